"""How strategic merge patch merges each kind of field: maps, keyed lists, value sets, replaced lists."""

from __future__ import annotations

import copy
from typing import Any

from flotilla.apiserver.registry.patch import apply_strategic_merge_patch
from flotilla.apiserver.registry.schema.model import Schema
from tests.unit.apiserver.registry.patch.workloads import (
    container_names,
    containers,
    kind_schema,
    template_patch,
)


def test_labels_merge_key_by_key_and_null_deletes_one(
    deployment: dict[str, Any], deployment_schema: Schema
) -> None:
    """A labels patch adds and removes single labels and keeps the others."""
    patch = {"metadata": {"labels": {"tier": None, "release": "canary"}}}

    result = apply_strategic_merge_patch(deployment, patch, deployment_schema)

    assert result["metadata"]["labels"] == {"app": "web", "release": "canary"}


def test_env_merges_by_name(deployment: dict[str, Any], deployment_schema: Schema) -> None:
    """A patched env var changes in place, a new one is added, the untouched one stays."""
    patch = template_patch(
        {"containers": [{"name": "nginx", "env": [{"name": "LOG", "value": "debug"}, {"name": "NEW"}]}]}
    )

    result = apply_strategic_merge_patch(deployment, patch, deployment_schema)

    env = {var["name"]: var.get("value") for var in containers(result)[0]["env"]}
    assert env == {"MODE": "prod", "LOG": "debug", "NEW": None}
    assert containers(result)[1] == containers(deployment)[1]


def test_ports_merge_by_numeric_container_port(deployment: dict[str, Any], deployment_schema: Schema) -> None:
    """Ports match on containerPort, an integer: port 80 is updated, port 443 is added."""
    patch = template_patch(
        {
            "containers": [
                {"name": "nginx", "ports": [{"containerPort": 80, "name": "http"}, {"containerPort": 443}]}
            ]
        }
    )

    result = apply_strategic_merge_patch(deployment, patch, deployment_schema)

    assert sorted(containers(result)[0]["ports"], key=lambda port: port["containerPort"]) == [
        {"containerPort": 80, "protocol": "TCP", "name": "http"},
        {"containerPort": 443},
    ]


def test_new_container_without_order_lands_before_live_ones_as_in_kubernetes(
    deployment: dict[str, Any], deployment_schema: Schema
) -> None:
    """Without `$setElementOrder` an element the live list lacks comes first, like a Kubernetes server."""
    patch = template_patch({"containers": [{"name": "sidecar", "image": "envoy:1.30"}]})

    result = apply_strategic_merge_patch(deployment, patch, deployment_schema)

    assert container_names(result) == ["sidecar", "nginx", "x"]


def test_patched_containers_take_the_patch_order_among_live_ones(
    deployment: dict[str, Any], deployment_schema: Schema
) -> None:
    """Elements the patch names follow the patch's order; the rest keep their live positions."""
    pod_spec = deployment["spec"]["template"]["spec"]
    pod_spec["containers"] = [{"name": name, "image": "i"} for name in ("a", "b", "c")]
    patch = template_patch({"containers": [{"name": "c", "image": "j"}, {"name": "a", "image": "j"}]})

    result = apply_strategic_merge_patch(deployment, patch, deployment_schema)

    assert container_names(result) == ["b", "c", "a"]


def test_finalizers_merge_as_a_set(deployment: dict[str, Any], deployment_schema: Schema) -> None:
    """Finalizers already present are not repeated and a new one is added once."""
    patch = {"metadata": {"finalizers": ["example.com/b", "example.com/new", "example.com/new"]}}

    result = apply_strategic_merge_patch(deployment, patch, deployment_schema)

    assert sorted(result["metadata"]["finalizers"]) == ["example.com/a", "example.com/b", "example.com/new"]


def test_delete_from_primitive_list_and_additions_in_one_patch(
    deployment: dict[str, Any], deployment_schema: Schema
) -> None:
    """One patch can add a finalizer and remove another."""
    patch = {
        "metadata": {
            "$setElementOrder/finalizers": ["example.com/b", "example.com/c"],
            "$deleteFromPrimitiveList/finalizers": ["example.com/a"],
            "finalizers": ["example.com/c"],
        }
    }

    result = apply_strategic_merge_patch(deployment, patch, deployment_schema)

    assert result["metadata"]["finalizers"] == ["example.com/b", "example.com/c"]


def test_tolerations_are_replaced_whole(deployment: dict[str, Any], deployment_schema: Schema) -> None:
    """Tolerations have no merge key, so the patch's list replaces the live one."""
    toleration = {"key": "gpu", "operator": "Exists", "effect": "NoSchedule"}

    result = apply_strategic_merge_patch(
        deployment, template_patch({"tolerations": [toleration]}), deployment_schema
    )

    assert result["spec"]["template"]["spec"]["tolerations"] == [toleration]


def test_container_args_are_replaced_whole(deployment: dict[str, Any], deployment_schema: Schema) -> None:
    """A list of values without merge strategy (args) is replaced, not unioned."""
    patch = template_patch({"containers": [{"name": "x", "args": ["sleep", "60"]}]})

    result = apply_strategic_merge_patch(deployment, patch, deployment_schema)

    assert containers(result)[1]["args"] == ["sleep", "60"]


def test_strategy_without_retain_keys_merges_like_any_object(
    deployment: dict[str, Any], deployment_schema: Schema
) -> None:
    """A retainKeys field patched without `$retainKeys` keeps the fields the patch does not name."""
    patch = {"spec": {"strategy": {"rollingUpdate": {"maxSurge": 1}}}}

    result = apply_strategic_merge_patch(deployment, patch, deployment_schema)

    assert result["spec"]["strategy"] == {
        "type": "RollingUpdate",
        "rollingUpdate": {"maxSurge": 1, "maxUnavailable": 0},
    }


def test_replace_strategy_object_is_replaced_not_merged() -> None:
    """A PodDisruptionBudget selector (patch strategy replace) takes the patch's value whole."""
    budget = {"spec": {"selector": {"matchLabels": {"app": "web", "tier": "front"}}, "minAvailable": 1}}
    patch = {"spec": {"selector": {"matchLabels": {"app": "api"}}}}

    result = apply_strategic_merge_patch(budget, patch, kind_schema("policy", "v1", "PodDisruptionBudget"))

    assert result["spec"] == {"selector": {"matchLabels": {"app": "api"}}, "minAvailable": 1}


def test_pod_conditions_merge_by_type() -> None:
    """Status conditions match on `type`: Ready is updated and PodScheduled is kept."""
    pod = {
        "status": {
            "conditions": [{"type": "PodScheduled", "status": "True"}, {"type": "Ready", "status": "False"}]
        }
    }
    patch = {"status": {"conditions": [{"type": "Ready", "status": "True"}]}}

    result = apply_strategic_merge_patch(pod, patch, kind_schema("", "v1", "Pod"))

    assert {c["type"]: c["status"] for c in result["status"]["conditions"]} == {
        "PodScheduled": "True",
        "Ready": "True",
    }


def test_duplicate_keys_in_the_live_list_are_tolerated(
    deployment: dict[str, Any], deployment_schema: Schema
) -> None:
    """A live list with a repeated merge key merges the patch into the first and keeps the second."""
    containers(deployment)[0]["env"] = [{"name": "A", "value": "1"}, {"name": "A", "value": "2"}]
    patch = template_patch({"containers": [{"name": "nginx", "env": [{"name": "A", "value": "3"}]}]})

    result = apply_strategic_merge_patch(deployment, patch, deployment_schema)

    assert containers(result)[0]["env"] == [{"name": "A", "value": "3"}, {"name": "A", "value": "2"}]


def test_unknown_fields_merge_like_a_merge_patch(
    deployment: dict[str, Any], deployment_schema: Schema
) -> None:
    """Fields the schema does not know merge as maps and have their lists replaced."""
    deployment["spec"]["extra"] = {"keep": 1, "items": [{"name": "a"}]}
    patch = {"spec": {"extra": {"items": [{"name": "b"}], "added": True}}}

    result = apply_strategic_merge_patch(deployment, patch, deployment_schema)

    assert result["spec"]["extra"] == {"keep": 1, "items": [{"name": "b"}], "added": True}


def test_without_schema_lists_are_replaced_and_directives_still_apply() -> None:
    """With no schema, lists are replaced, and `$patch` and `$retainKeys` in objects still work."""
    original = {"a": [1, 2], "b": {"x": 1, "y": 2}, "c": {"z": 1}, "d": {"p": 1, "q": 2}}
    patch = {
        "a": [3],
        "b": {"$patch": "replace", "y": 3},
        "c": {"$patch": "delete"},
        "d": {"$retainKeys": ["p"]},
    }

    result = apply_strategic_merge_patch(original, patch, None)

    assert result == {"a": [3], "b": {"y": 3}, "d": {"p": 1}}


def test_dollar_keys_that_are_not_directives_are_ordinary_fields() -> None:
    """A `$ref` key (a CRD schema field) is data, merged like any other key."""
    original = {"spec": {"schema": {"$ref": "#/a", "type": "object"}}}

    result = apply_strategic_merge_patch(original, {"spec": {"schema": {"$ref": "#/b"}}}, None)

    assert result == {"spec": {"schema": {"$ref": "#/b", "type": "object"}}}


def test_inputs_are_not_mutated(deployment: dict[str, Any], deployment_schema: Schema) -> None:
    """A patch using every directive leaves the stored object and the patch exactly as they were."""
    patch = {
        "metadata": {"labels": {"tier": None}, "$deleteFromPrimitiveList/finalizers": ["example.com/a"]},
        "spec": {
            "strategy": {"$retainKeys": ["type"], "type": "Recreate"},
            "template": {
                "spec": {
                    "$setElementOrder/containers": [{"name": "nginx"}, {"name": "new"}],
                    "containers": [
                        {"name": "nginx", "env": [{"name": "MODE", "$patch": "delete"}]},
                        {"name": "new", "image": "busybox"},
                        {"name": "x", "$patch": "delete"},
                    ],
                    "volumes": [{"$patch": "replace"}, {"name": "data", "emptyDir": {}}],
                }
            },
        },
    }
    deployment_before, patch_before = copy.deepcopy(deployment), copy.deepcopy(patch)

    apply_strategic_merge_patch(deployment, patch, deployment_schema)

    assert deployment == deployment_before
    assert patch == patch_before


def test_result_shares_no_containers_with_the_inputs(
    deployment: dict[str, Any], deployment_schema: Schema
) -> None:
    """Changing the result, touched parts or not, changes neither the stored object nor the patch."""
    patch = template_patch({"containers": [{"name": "x", "image": "busybox:1.37"}]})
    deployment_before, patch_before = copy.deepcopy(deployment), copy.deepcopy(patch)

    result = apply_strategic_merge_patch(deployment, patch, deployment_schema)
    containers(result)[0]["env"].clear()
    containers(result)[1]["args"].append("--more")
    result["metadata"]["labels"]["app"] = "changed"
    result["spec"]["template"]["spec"]["tolerations"][0]["value"] = "changed"

    assert deployment == deployment_before
    assert patch == patch_before


def test_empty_list_for_a_merge_list_keeps_the_live_elements(
    deployment: dict[str, Any], deployment_schema: Schema
) -> None:
    """An empty containers list merges nothing away; clearing takes null or `$patch: replace`."""
    result = apply_strategic_merge_patch(deployment, template_patch({"containers": []}), deployment_schema)

    assert containers(result) == containers(deployment)
