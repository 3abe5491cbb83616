"""Strategic merge patches exactly as kubectl sends them, applied to a stored Deployment."""

from __future__ import annotations

import json
from typing import Any

from flotilla.apiserver.registry.patch import apply_strategic_merge_patch
from flotilla.apiserver.registry.schema.model import Schema
from tests.unit.apiserver.registry.patch.workloads import container_names, containers, template_patch

LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"


def test_client_side_apply_of_image_and_replicas_changes_only_those(
    deployment: dict[str, Any], deployment_schema: Schema
) -> None:
    """kubectl apply's image+replicas patch updates them and keeps every other container field."""
    deployment["spec"]["template"]["spec"]["containers"] = [containers(deployment)[0]]
    last_applied = json.dumps({"apiVersion": "apps/v1", "kind": "Deployment", "spec": {"replicas": 3}})
    patch = {
        "metadata": {"annotations": {LAST_APPLIED: last_applied}},
        "spec": {
            "replicas": 3,
            "template": {
                "spec": {
                    "$setElementOrder/containers": [{"name": "nginx"}],
                    "containers": [{"image": "nginx:1.26", "name": "nginx"}],
                }
            },
        },
    }

    result = apply_strategic_merge_patch(deployment, patch, deployment_schema)

    assert result["spec"]["replicas"] == 3
    assert result["metadata"]["annotations"] == {"team": "storefront", LAST_APPLIED: last_applied}
    assert containers(result) == [
        {
            "name": "nginx",
            "image": "nginx:1.26",
            "ports": [{"containerPort": 80, "protocol": "TCP"}],
            "env": [{"name": "MODE", "value": "prod"}, {"name": "LOG", "value": "info"}],
            "volumeMounts": [{"name": "cache", "mountPath": "/cache"}],
        }
    ]
    assert "$setElementOrder/containers" not in result["spec"]["template"]["spec"]


def test_three_way_patch_removes_a_container_dropped_from_the_manifest(
    deployment: dict[str, Any], deployment_schema: Schema
) -> None:
    """kubectl's delete element plus `$setElementOrder` removes that container and keeps the other."""
    patch = template_patch(
        {
            "$setElementOrder/containers": [{"name": "nginx"}],
            "containers": [{"$patch": "delete", "name": "x"}],
        }
    )

    result = apply_strategic_merge_patch(deployment, patch, deployment_schema)

    assert container_names(result) == ["nginx"]
    assert containers(result)[0] == containers(deployment)[0]


def test_three_way_patch_removes_a_finalizer_and_keeps_the_order(
    deployment: dict[str, Any], deployment_schema: Schema
) -> None:
    """`$deleteFromPrimitiveList/finalizers` removes the value; `$setElementOrder` keeps the rest in place."""
    deployment["metadata"]["finalizers"].append("example.com/c")
    patch = {
        "metadata": {
            "$deleteFromPrimitiveList/finalizers": ["example.com/b"],
            "$setElementOrder/finalizers": ["example.com/a", "example.com/c"],
        }
    }

    result = apply_strategic_merge_patch(deployment, patch, deployment_schema)

    assert result["metadata"]["finalizers"] == ["example.com/a", "example.com/c"]


def test_set_element_order_puts_live_and_new_containers_in_the_listed_order(
    deployment: dict[str, Any], deployment_schema: Schema
) -> None:
    """A new container listed first in `$setElementOrder` ends up first, live ones after in order."""
    patch = template_patch(
        {
            "$setElementOrder/containers": [{"name": "init-proxy"}, {"name": "nginx"}, {"name": "x"}],
            "containers": [{"name": "init-proxy", "image": "envoy:1.30"}],
        }
    )

    result = apply_strategic_merge_patch(deployment, patch, deployment_schema)

    assert container_names(result) == ["init-proxy", "nginx", "x"]


def test_set_element_order_can_reorder_without_changing_contents(
    deployment: dict[str, Any], deployment_schema: Schema
) -> None:
    """An order list alone swaps the containers and leaves each one unchanged."""
    patch = template_patch({"$setElementOrder/containers": [{"name": "x"}, {"name": "nginx"}]})

    result = apply_strategic_merge_patch(deployment, patch, deployment_schema)

    assert containers(result) == [containers(deployment)[1], containers(deployment)[0]]


def test_set_element_order_keeps_server_only_elements_at_their_live_position(
    deployment: dict[str, Any], deployment_schema: Schema
) -> None:
    """An env var the manifest never listed stays where it was among the ordered ones."""
    containers(deployment)[0]["env"] = [
        {"name": "A", "value": "1"},
        {"name": "INJECTED", "value": "by-webhook"},
        {"name": "B", "value": "2"},
    ]
    patch = template_patch(
        {
            "$setElementOrder/containers": [{"name": "nginx"}, {"name": "x"}],
            "containers": [
                {
                    "name": "nginx",
                    "$setElementOrder/env": [{"name": "A"}, {"name": "B"}, {"name": "C"}],
                    "env": [{"name": "C", "value": "3"}],
                }
            ],
        }
    )

    result = apply_strategic_merge_patch(deployment, patch, deployment_schema)

    assert [env["name"] for env in containers(result)[0]["env"]] == ["A", "INJECTED", "B", "C"]


def test_retain_keys_switches_deployment_strategy_to_recreate(
    deployment: dict[str, Any], deployment_schema: Schema
) -> None:
    """kubectl's `$retainKeys` for `strategy` drops rollingUpdate when the type becomes Recreate."""
    patch = {"spec": {"strategy": {"$retainKeys": ["type"], "type": "Recreate"}}}

    result = apply_strategic_merge_patch(deployment, patch, deployment_schema)

    assert result["spec"]["strategy"] == {"type": "Recreate"}


def test_retain_keys_switches_a_volume_source(deployment: dict[str, Any], deployment_schema: Schema) -> None:
    """A volume patched with `$retainKeys` loses its emptyDir source when it becomes a configMap."""
    patch = template_patch(
        {
            "$setElementOrder/volumes": [{"name": "cache"}],
            "volumes": [
                {"$retainKeys": ["configMap", "name"], "configMap": {"name": "web"}, "name": "cache"}
            ],
        }
    )

    result = apply_strategic_merge_patch(deployment, patch, deployment_schema)

    assert result["spec"]["template"]["spec"]["volumes"] == [{"name": "cache", "configMap": {"name": "web"}}]
