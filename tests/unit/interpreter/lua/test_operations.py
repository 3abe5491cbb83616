"""Each interpreter operation run from a customization in Karmada's shape, and the merge rules."""

from __future__ import annotations

import pytest

from flotilla.interpreter.lua import CustomizationIndex, CustomizedInterpreter, Operation, parse_customization
from flotilla.interpreter.lua.customizations import conflicts
from flotilla.interpreter.lua.operations import CustomizationError
from tests.unit.interpreter.lua.customizations import fleet, fleet_customization


def interpreter(*objects: dict[str, object]) -> CustomizedInterpreter:
    return CustomizedInterpreter(CustomizationIndex.from_objects(objects or [fleet_customization()]))


def test_get_replicas_returns_replicas_and_requirements() -> None:
    """GetReplicas gives the count and kube.accuratePodRequirements' node claim and requests."""
    found = interpreter().get_replicas(fleet(replicas=4))
    assert found is not None
    assert found.replicas == 4
    assert found.requirements == {
        "nodeClaim": {"nodeSelector": {"zone": "a"}},
        "resourceRequest": {"cpu": "250m", "memory": "64Mi"},
    }


def test_requirements_follow_the_template_from_call_to_call() -> None:
    """kube.accuratePodRequirements remembers answers by the template's content, never by chance:
    a changed request or a script that changes the table it got back gives the new answer."""
    custom = interpreter()
    first = custom.get_replicas(fleet(replicas=4))
    changed = fleet(replicas=4)
    changed["spec"]["template"]["spec"]["containers"][0]["resources"]["requests"]["cpu"] = "1"
    second = custom.get_replicas(changed)
    again = custom.get_replicas(fleet(replicas=4))
    assert first is not None and second is not None and again is not None
    assert (first.requirements or {})["resourceRequest"]["cpu"] == "250m"
    assert (second.requirements or {})["resourceRequest"]["cpu"] == "1"
    assert again.requirements == first.requirements
    editing = fleet_customization(
        replicaResource=(
            'local kube = require("kube")\n'
            "function GetReplicas(obj)\n"
            "  local r = kube.accuratePodRequirements(obj.spec.template)\n"
            "  r.resourceRequest.cpu = '2'\n"
            "  return 1, r\n"
            "end"
        )
    )
    # The same sandbox (and so the same remembered answers) as `custom`.
    same_runtime = CustomizedInterpreter(CustomizationIndex.from_objects([editing]), custom.sandbox)
    edited = same_runtime.get_replicas(fleet(replicas=4))
    assert edited is not None and (edited.requirements or {})["resourceRequest"]["cpu"] == "2"
    assert custom.get_replicas(fleet(replicas=4)) == first


def test_revise_replica_keeps_empty_objects_of_the_input() -> None:
    """The revised object keeps `selector: {}` and `labels: {}` as objects (Karmada's repair)."""
    revised = interpreter().revise_replica(fleet(replicas=4), 1)
    assert revised is not None
    assert revised["spec"]["replicas"] == 1
    assert revised["spec"]["selector"] == {}
    assert revised["metadata"]["labels"] == {}


def test_retain_keeps_the_members_field() -> None:
    observed = fleet()
    observed["spec"]["paused"] = True
    retained = interpreter().retain(fleet(), observed)
    assert retained is not None
    assert retained["spec"]["paused"] is True


def test_reflect_status_and_health() -> None:
    custom = interpreter()
    assert custom.reflect_status(fleet(ready=3)) == {"readyReplicas": 3, "generation": 2}
    assert custom.reflect_status(fleet()) == {}
    assert custom.interpret_health(fleet(replicas=3, ready=3)) is True
    assert custom.interpret_health(fleet(replicas=3, ready=1)) is False


def test_aggregate_status_sums_the_members() -> None:
    """statusItems arrive as Karmada marshals them; the script's status comes back."""
    items = [
        {"clusterName": "member1", "status": {"readyReplicas": 2}, "applied": True, "health": "Healthy"},
        {"clusterName": "member2", "applied": False},
    ]
    aggregated = interpreter().aggregate_status(fleet(), items)
    assert aggregated is not None
    assert aggregated["status"] == {"readyReplicas": 2, "clusters": ["member1", "member2"]}


def test_dependencies_from_the_pod_template() -> None:
    assert interpreter().get_dependencies(fleet()) == [
        {"apiVersion": "v1", "kind": "ConfigMap", "namespace": "default", "name": "web-config"}
    ]


def test_no_customization_means_the_built_in_rules_answer() -> None:
    """A kind without a script for an operation gets None (the caller falls back)."""
    other = {"apiVersion": "apps/v1", "kind": "Deployment", "spec": {}}
    assert interpreter().get_replicas(other) is None
    assert interpreter(fleet_customization(statusAggregation="")).aggregate_status(fleet(), []) is None


def test_a_wrong_result_type_names_the_customization_and_operation() -> None:
    broken = fleet_customization(healthInterpretation="function InterpretHealth(o) return 'yes' end")
    with pytest.raises(CustomizationError, match='"fleet" InterpretHealth: result type string is not bool'):
        interpreter(broken).interpret_health(fleet())


def test_a_helper_error_is_a_script_error() -> None:
    """A bad quantity given to kube.resourceAdd fails the call, not the process."""
    script = "function InterpretHealth(o) return require('kube').resourceAdd('1', 'lots') == '' end"
    with pytest.raises(CustomizationError, match="InterpretHealth"):
        interpreter(fleet_customization(healthInterpretation=script)).interpret_health(fleet())


def test_resource_add_sums_quantities() -> None:
    script = """function InterpretHealth(o)
      local kube = require('kube')
      return kube.resourceAdd('100m', '1', nil) == '1100m' and kube.resourceAdd('1Gi', '1Gi') == '2Gi'
        and kube.getResourceQuantity('1500m') == 1.5
    end"""
    assert interpreter(fleet_customization(healthInterpretation=script)).interpret_health(fleet()) is True


def test_customizations_merge_in_name_order() -> None:
    """The first customization by name scripting an operation wins; dependency scripts all run, their
    references joined without duplicates and sorted."""
    secret = (
        "function GetDependencies(o)"
        " return {{apiVersion='v1', kind='Secret', namespace='default', name='s'}} end"
    )
    first = fleet_customization("a", healthInterpretation="function InterpretHealth(o) return true end")
    second = fleet_customization(
        "b",
        healthInterpretation="function InterpretHealth(o) return false end",
        dependencyInterpretation=secret,
    )
    third = fleet_customization("c", healthInterpretation="")
    custom = interpreter(third, second, first)
    assert custom.interpret_health(fleet()) is True
    assert [(ref["kind"], ref["name"]) for ref in custom.get_dependencies(fleet()) or []] == [
        ("ConfigMap", "web-config"),
        ("Secret", "s"),
    ]


def test_a_global_set_to_nil_reads_nil() -> None:
    """Globals are real globals, as in gopher-lua: `error = nil` leaves nil, not the builtin."""
    script = """function AggregateStatus(desiredObj, statusItems)
      error = ''
      for i = 1, #statusItems do error = statusItems[i].status.error end
      desiredObj.status = { error = error, items = #statusItems }
      return desiredObj
    end"""
    custom = interpreter(fleet_customization(statusAggregation=script))
    aggregated = custom.aggregate_status(fleet(), [{"clusterName": "m1", "status": {"phase": "x"}}])
    assert aggregated is not None
    assert aggregated["status"] == {"items": 1}


def test_no_status_items_is_nil_and_an_empty_list_an_empty_table() -> None:
    script = "function AggregateStatus(d, items) d.status = { none = items == nil } return d end"
    custom = interpreter(fleet_customization(statusAggregation=script))
    assert (custom.aggregate_status(fleet(), None) or {})["status"] == {"none": True}
    assert (custom.aggregate_status(fleet(), []) or {})["status"] == {"none": False}


def test_conflicts_are_per_target_and_operation_except_dependencies() -> None:
    new = parse_customization(fleet_customization("new", dependencyInterpretation="x"))
    existing = parse_customization(
        fleet_customization("old", replicaResource="", dependencyInterpretation="x")
    )
    found = conflicts(new, [existing])
    assert (Operation.INTERPRET_HEALTH, "old") in found
    assert all(operation is not Operation.INTERPRET_DEPENDENCY for operation, _ in found)
    assert (Operation.INTERPRET_REPLICA, "old") not in found


def test_operation_names_parse_as_karmadactl_takes_them() -> None:
    assert Operation.parse("interpretReplica") is Operation.INTERPRET_REPLICA
    with pytest.raises(ValueError, match="not supported"):
        Operation.parse("explode")
