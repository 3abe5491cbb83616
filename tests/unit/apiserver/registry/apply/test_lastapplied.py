"""Moving from client-side to server-side apply: `kubectl` takes over what it applied client-side."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from flotilla.apiserver.registry.apply import (
    LAST_APPLIED_ANNOTATION,
    ApplyConflict,
    FieldSet,
    apply,
    record_update,
)
from flotilla.apiserver.registry.apply.jsonvalues import go_json
from tests.unit.apiserver.registry.apply.objects import (
    APPS_V1,
    LATER,
    NOW,
    deployment_schema,
    entry,
    web_deployment,
)

REPLICAS = ("f:spec", "f:replicas")


def client_side_applied(manifest: dict[str, Any]) -> dict[str, Any]:
    """What `kubectl apply` (client-side) creates: the manifest plus its annotation, owned as Update."""
    obj = copy.deepcopy(manifest)
    obj["metadata"]["annotations"] = {
        LAST_APPLIED_ANNOTATION: json.dumps(manifest, separators=(",", ":")) + "\n"
    }
    obj["metadata"]["managedFields"] = record_update(
        None,
        obj,
        manager="kubectl-client-side-apply",
        schema=deployment_schema(),
        managed_fields=None,
        api_version=APPS_V1,
        now=NOW,
    )
    return obj


def updated_by(manager: str, live: dict[str, Any], change: dict[str, Any]) -> dict[str, Any]:
    """`live` after a non-apply write by `manager` that sets the spec fields in `change`."""
    obj = copy.deepcopy(live)
    obj["spec"].update(change)
    obj["metadata"]["managedFields"] = record_update(
        live,
        obj,
        manager=manager,
        schema=deployment_schema(),
        managed_fields=live["metadata"]["managedFields"],
        api_version=APPS_V1,
        now=NOW,
    )
    return obj


def server_side_apply(manager: str, configuration: dict[str, Any], live: dict[str, Any]) -> dict[str, Any]:
    return apply(
        live,
        configuration,
        manager=manager,
        schema=deployment_schema(),
        managed_fields=live["metadata"]["managedFields"],
        force=False,
        api_version=APPS_V1,
        now=LATER,
    ).obj


def owned(obj: dict[str, Any], manager: str, operation: str) -> FieldSet:
    return FieldSet.from_fields_v1(entry(obj["metadata"]["managedFields"], manager, operation)["fieldsV1"])


def test_kubectl_takes_over_fields_it_applied_client_side() -> None:
    """`kubectl apply --server-side` changing replicas after `kubectl apply` succeeds without force."""
    live = client_side_applied(web_deployment())
    obj = server_side_apply("kubectl", web_deployment(replicas=3), live)
    assert obj["spec"]["replicas"] == 3
    assert REPLICAS in owned(obj, "kubectl", "Apply")
    assert REPLICAS not in owned(obj, "kubectl-client-side-apply", "Update")


def test_other_managers_still_conflict_with_client_side_apply() -> None:
    """The hand-over is kubectl's alone; another field manager gets kube's conflict."""
    live = client_side_applied(web_deployment())
    with pytest.raises(ApplyConflict) as raised:
        server_side_apply("ci", web_deployment(replicas=3), live)
    assert raised.value.message == (
        "Apply failed with 1 conflict: "
        'conflict with "kubectl-client-side-apply" using apps/v1: .spec.replicas'
    )


def test_fields_changed_since_the_client_side_apply_still_conflict() -> None:
    """Replicas set by an autoscaler after the client-side apply are not kubectl's to take."""
    live = updated_by("autoscaler", client_side_applied(web_deployment()), {"replicas": 5})
    with pytest.raises(ApplyConflict) as raised:
        server_side_apply("kubectl", web_deployment(replicas=3), live)
    assert [c.manager.manager for c in raised.value.conflicts] == ["autoscaler"]
    assert [c.field for c in raised.value.conflicts] == [".spec.replicas"]


def test_kubectl_applies_refresh_the_annotation_to_the_applied_configuration() -> None:
    """After the apply, the annotation holds the configuration as Go writes it, newline-terminated."""
    live = client_side_applied(web_deployment())
    configuration = web_deployment(replicas=3)
    obj = server_side_apply("kubectl", configuration, live)
    assert obj["metadata"]["annotations"][LAST_APPLIED_ANNOTATION] == go_json(configuration) + "\n"


def test_other_managers_leave_the_annotation_alone() -> None:
    """Only `kubectl` maintains the client-side apply annotation."""
    live = client_side_applied(web_deployment())
    obj = server_side_apply("ci", web_deployment(), live)
    assert obj["metadata"]["annotations"] == live["metadata"]["annotations"]
