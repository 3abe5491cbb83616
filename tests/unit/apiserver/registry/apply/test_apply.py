"""Server-side apply: merging, ownership, removal of disowned fields and conflicts."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

import pytest

from flotilla.apiserver.registry.apply import (
    ApplyConflict,
    ApplyError,
    FieldSet,
    apply,
    fields_of,
    record_update,
)
from tests.unit.apiserver.registry.apply.objects import (
    APPS_V1,
    LATER,
    NOW,
    containers,
    deployment_schema,
    entry,
    managers,
    partial_deployment,
    pod_spec,
    web_deployment,
)


def applied_by(
    manager: str,
    configuration: dict[str, Any],
    live: dict[str, Any] | None = None,
    *,
    force: bool = False,
    now: datetime = NOW,
    subresource: str = "",
) -> dict[str, Any]:
    """The object after `manager` applies `configuration` onto `live` (the result carries managedFields)."""
    managed = live.get("metadata", {}).get("managedFields") if live is not None else None
    result = apply(
        live,
        configuration,
        manager=manager,
        schema=deployment_schema(),
        managed_fields=managed,
        force=force,
        api_version=APPS_V1,
        now=now,
        subresource=subresource,
    )
    assert result.obj["metadata"].get("managedFields") == (result.managed_fields or None)
    return result.obj


def owned(obj: dict[str, Any], manager: str, operation: str = "Apply") -> FieldSet:
    return FieldSet.from_fields_v1(entry(obj["metadata"]["managedFields"], manager, operation)["fieldsV1"])


def without_managed_fields(obj: dict[str, Any]) -> dict[str, Any]:
    return {**obj, "metadata": {k: v for k, v in obj["metadata"].items() if k != "managedFields"}}


REPLICAS = ("f:spec", "f:replicas")
IMAGE = ("f:spec", "f:template", "f:spec", "f:containers", 'k:{"name":"nginx"}', "f:image")


def test_applying_to_nothing_creates_the_object_owned_by_the_applier() -> None:
    """The object is the configuration, and one Apply entry owns what it sets."""
    obj = applied_by("kubectl", web_deployment())
    assert without_managed_fields(obj) == web_deployment()
    assert obj["metadata"]["managedFields"] == [
        {
            "manager": "kubectl",
            "operation": "Apply",
            "apiVersion": APPS_V1,
            "time": "2024-05-01T10:00:00Z",
            "fieldsType": "FieldsV1",
            "fieldsV1": fields_of(web_deployment(), deployment_schema()).to_fields_v1(),
        }
    ]


def test_applying_the_same_configuration_twice_changes_nothing() -> None:
    """The second apply returns the same object and managedFields, timestamp included."""
    first = applied_by("kubectl", web_deployment())
    assert applied_by("kubectl", web_deployment(), first, now=LATER) == first


def test_a_changed_value_owned_by_another_manager_conflicts() -> None:
    """Changing replicas that `kubectl` applied fails for `helm`, with kube's message and cause."""
    live = applied_by("kubectl", web_deployment())
    with pytest.raises(ApplyConflict) as raised:
        applied_by("helm", partial_deployment({"replicas": 3}), live)
    assert raised.value.message == 'Apply failed with 1 conflict: conflict with "kubectl": .spec.replicas'
    assert raised.value.causes() == [
        {"reason": "FieldManagerConflict", "message": 'conflict with "kubectl"', "field": ".spec.replicas"}
    ]


def test_forcing_a_conflict_moves_ownership_to_the_applier() -> None:
    """With force the value changes and only the forcing manager owns it afterwards."""
    live = applied_by("kubectl", web_deployment())
    obj = applied_by("helm", partial_deployment({"replicas": 3}), live, force=True)
    assert obj["spec"]["replicas"] == 3
    assert REPLICAS in owned(obj, "helm")
    assert REPLICAS not in owned(obj, "kubectl")
    assert IMAGE in owned(obj, "kubectl")


def test_applying_an_owned_field_with_the_same_value_shares_it() -> None:
    """No conflict when the value does not change; both managers own the field."""
    live = applied_by("kubectl", web_deployment())
    obj = applied_by("helm", partial_deployment({"replicas": 1}), live)
    assert REPLICAS in owned(obj, "helm")
    assert REPLICAS in owned(obj, "kubectl")


def test_fields_a_manager_stops_applying_are_removed() -> None:
    """Dropping a label and a container from the configuration removes them from the object."""
    configuration = web_deployment()
    configuration["metadata"]["labels"]["tier"] = "front"
    containers(configuration).append({"name": "sidecar", "image": "envoy"})
    live = applied_by("kubectl", configuration)
    obj = applied_by("kubectl", web_deployment(), live)
    assert obj["metadata"]["labels"] == {"app": "web"}
    assert [c["name"] for c in containers(obj)] == ["nginx"]


def test_fields_another_applier_shares_are_not_removed() -> None:
    """A label both managers applied stays when one of them stops applying it."""
    with_tier = web_deployment()
    with_tier["metadata"]["labels"]["tier"] = "front"
    live = applied_by("kubectl", with_tier)
    live = applied_by("helm", partial_deployment(metadata={"labels": {"tier": "front"}}), live)
    obj = applied_by("kubectl", web_deployment(), live)
    assert obj["metadata"]["labels"] == {"app": "web", "tier": "front"}
    assert ("f:metadata", "f:labels", "f:tier") not in owned(obj, "kubectl")


def test_fields_another_writer_took_over_are_not_removed() -> None:
    """After `kubectl edit` changed a label, the applier no longer owns it and dropping it keeps it."""
    with_tier = web_deployment()
    with_tier["metadata"]["labels"]["tier"] = "front"
    live = applied_by("kubectl", with_tier)
    edited = json.loads(json.dumps(live))
    edited["metadata"]["labels"]["tier"] = "back"
    edited["metadata"]["managedFields"] = record_update(
        live,
        edited,
        manager="kubectl-edit",
        schema=deployment_schema(),
        managed_fields=live["metadata"]["managedFields"],
        api_version=APPS_V1,
        now=NOW,
    )
    obj = applied_by("kubectl", web_deployment(), edited)
    assert obj["metadata"]["labels"] == {"app": "web", "tier": "back"}


def test_fields_nobody_owns_are_kept() -> None:
    """Fields the server defaulted are not the applier's to remove."""
    live = applied_by("kubectl", web_deployment())
    containers(live)[0]["imagePullPolicy"] = "IfNotPresent"
    live["spec"]["revisionHistoryLimit"] = 10
    obj = applied_by("kubectl", web_deployment(), live)
    assert containers(obj)[0]["imagePullPolicy"] == "IfNotPresent"
    assert obj["spec"]["revisionHistoryLimit"] == 10


def test_ports_from_two_appliers_merge_and_leave_independently() -> None:
    """Ports are keyed by containerPort and protocol: each manager removes only its own."""
    live = applied_by("kubectl", web_deployment())
    https = {"containers": [{"name": "nginx", "ports": [{"containerPort": 443}]}]}
    live = applied_by("tls", partial_deployment({"template": {"spec": https}}), live)
    assert [p["containerPort"] for p in containers(live)[0]["ports"]] == [80, 443]
    without_ports = web_deployment()
    del containers(without_ports)[0]["ports"]
    obj = applied_by("kubectl", without_ports, live)
    assert containers(obj)[0]["ports"] == [{"containerPort": 443}]


def test_set_items_from_two_appliers_leave_independently() -> None:
    """Finalizers are a set: a manager dropping its finalizer leaves the other's."""
    live = applied_by("a", partial_deployment(metadata={"finalizers": ["example.com/a"]}))
    live = applied_by("b", partial_deployment(metadata={"finalizers": ["example.com/b"]}), live)
    assert live["metadata"]["finalizers"] == ["example.com/a", "example.com/b"]
    obj = applied_by("a", partial_deployment(metadata={"labels": {"x": "y"}}), live)
    assert obj["metadata"]["finalizers"] == ["example.com/b"]


def test_atomic_lists_conflict_as_a_whole() -> None:
    """Tolerations are atomic: another manager's different list conflicts, and forcing replaces it."""
    live = applied_by("a", partial_deployment({"template": {"spec": {"tolerations": [{"key": "x"}]}}}))
    theirs = partial_deployment({"template": {"spec": {"tolerations": [{"key": "y"}]}}})
    with pytest.raises(ApplyConflict, match=r"\.spec\.template\.spec\.tolerations$"):
        applied_by("b", theirs, live)
    obj = applied_by("b", theirs, live, force=True)
    assert pod_spec(obj)["tolerations"] == [{"key": "y"}]
    assert managers(obj["metadata"]["managedFields"]) == [("b", "Apply")]


def test_several_conflicts_are_grouped_by_manager() -> None:
    """The message lists each manager's fields; Update managers are named with their apiVersion."""
    live = applied_by("alpha", web_deployment())
    changed = json.loads(json.dumps(live))
    changed["spec"]["minReadySeconds"] = 5
    changed["metadata"]["managedFields"] = record_update(
        live,
        changed,
        manager="kubectl-edit",
        schema=deployment_schema(),
        managed_fields=live["metadata"]["managedFields"],
        api_version=APPS_V1,
        now=NOW,
    )
    configuration = web_deployment(replicas=2, minReadySeconds=10)
    containers(configuration)[0]["image"] = "nginx:2"
    with pytest.raises(ApplyConflict) as raised:
        applied_by("beta", configuration, changed)
    assert raised.value.message == (
        'Apply failed with 3 conflicts: conflicts with "alpha":\n'
        "- .spec.replicas\n"
        '- .spec.template.spec.containers[name="nginx"].image\n'
        'conflicts with "kubectl-edit" using apps/v1:\n'
        "- .spec.minReadySeconds"
    )
    assert [cause["field"] for cause in raised.value.causes()] == [
        ".spec.replicas",
        '.spec.template.spec.containers[name="nginx"].image',
        ".spec.minReadySeconds",
    ]
    assert raised.value.causes()[2]["message"] == 'conflict with "kubectl-edit" using apps/v1'


def test_a_manager_applying_nothing_loses_its_entry_and_its_fields() -> None:
    """An apply of just the name removes what the manager applied and drops its entry."""
    live = applied_by("kubectl", web_deployment())
    live = applied_by("labeller", partial_deployment(metadata={"labels": {"tier": "front"}}), live)
    obj = applied_by("labeller", partial_deployment(), live)
    assert obj["metadata"]["labels"] == {"app": "web"}
    assert managers(obj["metadata"]["managedFields"]) == [("kubectl", "Apply")]


def test_an_object_without_managed_fields_is_attributed_before_the_first_apply() -> None:
    """What the object had is owned by `before-first-apply`, so changing it conflicts as in kube."""
    live = web_deployment()
    with pytest.raises(
        ApplyConflict, match=r'conflict with "before-first-apply" using apps/v1: \.spec\.replicas'
    ):
        applied_by("kubectl", partial_deployment({"replicas": 5}), live)
    obj = applied_by("kubectl", partial_deployment({"replicas": 5}), live, force=True)
    before = owned(obj, "before-first-apply", "Update")
    assert IMAGE in before
    assert REPLICAS not in before
    assert REPLICAS in owned(obj, "kubectl")


def test_status_applied_through_the_main_resource_is_not_owned() -> None:
    """Status is reset on the main resource; through the status subresource it is owned there."""
    live = applied_by("kubectl", {**web_deployment(), "status": {"replicas": 1}})
    assert not owned(live, "kubectl").child("f:status")
    obj = applied_by(
        "controller", partial_deployment() | {"status": {"replicas": 1}}, live, subresource="status"
    )
    status_entry = entry(obj["metadata"]["managedFields"], "controller")
    assert status_entry["subresource"] == "status"
    assert status_entry["fieldsV1"] == {"f:status": {"f:replicas": {}}}


def test_managed_entries_are_sorted_as_kube_sorts_them() -> None:
    """Apply entries first, then by time and manager."""
    live = applied_by("zeta", partial_deployment({"replicas": 1}), now=LATER)
    live = applied_by("alpha", partial_deployment({"minReadySeconds": 1}), live, now=LATER)
    live = applied_by("mid", partial_deployment({"paused": False}), live, now=NOW)
    assert managers(live["metadata"]["managedFields"]) == [
        ("mid", "Apply"),
        ("alpha", "Apply"),
        ("zeta", "Apply"),
    ]


@pytest.mark.parametrize(
    ("configuration", "message"),
    [
        (
            {**partial_deployment(), "metadata": {"name": "web", "managedFields": []}},
            "managedFields must be nil",
        ),
        ({**partial_deployment(), "apiVersion": "apps/v1beta1"}, "Specified patch version: apps/v1beta1"),
        (partial_deployment({"template": {"spec": {"containers": [{"image": "x"}]}}}), 'key field "name"'),
    ],
)
def test_configurations_that_cannot_be_applied_are_bad_requests(
    configuration: dict[str, Any], message: str
) -> None:
    """managedFields in the body, another apiVersion, or an item without its key raise `ApplyError`."""
    with pytest.raises(ApplyError, match=message):
        applied_by("kubectl", configuration, web_deployment())


def test_apply_leaves_its_inputs_alone() -> None:
    """Neither the live object nor the configuration is modified."""
    live = applied_by("kubectl", web_deployment())
    snapshot = json.dumps(live, sort_keys=True)
    configuration = web_deployment(replicas=4)
    applied_by("kubectl", configuration, live)
    assert json.dumps(live, sort_keys=True) == snapshot
    assert configuration == web_deployment(replicas=4)


def every_container_changed(value: Any) -> None:
    """Change every map and list inside `value` in place."""
    if isinstance(value, dict):
        for item in list(value.values()):
            every_container_changed(item)
        value["changed"] = True
    elif isinstance(value, list):
        for item in list(value):
            every_container_changed(item)
        value.append("changed")


def test_the_applied_object_shares_nothing_with_its_inputs() -> None:
    """Changing every map and list of the result, as the write pipeline may, changes neither input."""
    live = applied_by("kubectl", web_deployment())
    live["spec"]["strategy"] = {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 1}}
    containers(live).append({"name": "sidecar", "image": "envoy", "ports": [{"containerPort": 9901}]})
    snapshot = json.dumps(live, sort_keys=True)
    configuration = web_deployment(replicas=4)
    configuration["metadata"]["annotations"] = {"note": "x"}
    result = applied_by("other", configuration, live, force=True, now=LATER)
    every_container_changed(result)
    assert json.dumps(live, sort_keys=True) == snapshot
    assert configuration == {
        **web_deployment(replicas=4),
        "metadata": {**web_deployment()["metadata"], "annotations": {"note": "x"}},
    }


def test_a_shared_result_keeps_what_it_takes_whole_from_the_live_object() -> None:
    """Asked to share, apply hands back the live object's untouched parts, and the same object."""
    live = applied_by("kubectl", web_deployment())
    live["spec"]["strategy"] = {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 1}}
    configuration = web_deployment(replicas=4)
    results = [
        apply(
            live,
            configuration,
            manager="other",
            schema=deployment_schema(),
            managed_fields=live["metadata"]["managedFields"],
            force=True,
            api_version=APPS_V1,
            now=LATER,
            share=share,
        )
        for share in (False, True)
    ]
    copied, shared = results
    assert shared.obj["spec"]["strategy"] is live["spec"]["strategy"]
    assert copied.obj["spec"]["strategy"] is not live["spec"]["strategy"]
    assert json.dumps(shared.obj) == json.dumps(copied.obj)
    assert shared.managed_fields == copied.managed_fields


def test_kinds_without_a_schema_merge_maps_granularly_and_replace_lists() -> None:
    """With no schema, a field dropped from a map is removed and a list is applied whole."""

    def apply_thing(configuration: dict[str, Any], live: dict[str, Any] | None) -> dict[str, Any]:
        managed = live["metadata"]["managedFields"] if live is not None else None
        return apply(
            live,
            configuration,
            manager="kubectl",
            schema=None,
            managed_fields=managed,
            force=False,
            api_version="example.com/v1",
            now=NOW,
        ).obj

    def thing(spec: dict[str, Any]) -> dict[str, Any]:
        return {"apiVersion": "example.com/v1", "kind": "Thing", "metadata": {"name": "t"}, "spec": spec}

    live = apply_thing(thing({"a": 1, "b": {"c": 2}, "items": [1, 2, 3]}), None)
    obj = apply_thing(thing({"a": 1, "items": [3]}), live)
    assert obj["spec"] == {"a": 1, "items": [3]}
    assert entry(obj["metadata"]["managedFields"], "kubectl")["fieldsV1"] == {
        "f:spec": {".": {}, "f:a": {}, "f:items": {}}
    }
