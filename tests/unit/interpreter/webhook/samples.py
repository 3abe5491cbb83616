"""A webhook configuration and a tiny interpreter webhook, as plain functions the tests call."""

from __future__ import annotations

import base64
import json
from typing import Any

FLEET_API_VERSION = "apps.example.io/v1"


def webhook_configuration(
    name: str = "fleet-interpreter",
    url: str = "https://127.0.0.1:9443/interpret",
    *,
    ca_bundle: str = "",
    operations: list[str] | None = None,
    kinds: list[str] | None = None,
    timeout_seconds: int | None = None,
) -> dict[str, Any]:
    """A one-webhook ResourceInterpreterWebhookConfiguration for Fleets."""
    webhook: dict[str, Any] = {
        "name": "fleets.example.io",
        "clientConfig": {"url": url, **({"caBundle": ca_bundle} if ca_bundle else {})},
        "rules": [
            {
                "operations": operations or ["*"],
                "apiGroups": ["apps.example.io"],
                "apiVersions": ["v1"],
                "kinds": kinds or ["Fleet"],
            }
        ],
        "interpreterContextVersions": ["v1alpha1"],
    }
    if timeout_seconds is not None:
        webhook["timeoutSeconds"] = timeout_seconds
    return {
        "apiVersion": "config.karmada.io/v1alpha1",
        "kind": "ResourceInterpreterWebhookConfiguration",
        "metadata": {"name": name},
        "webhooks": [webhook],
    }


def json_patch(operations: list[dict[str, Any]]) -> str:
    return base64.b64encode(json.dumps(operations).encode()).decode()


def interpret(request: dict[str, Any]) -> dict[str, Any]:
    """What a Fleet interpreter webhook answers: replicas from `spec.size`, a revised `spec.size`,
    health from `status.ready >= spec.size`, the status as it is, and the ready counts summed."""
    operation = request["operation"]
    obj = request.get("object") or {}
    response: dict[str, Any] = {"uid": request["uid"], "successful": True}
    if operation == "InterpretReplica":
        response["replicas"] = obj["spec"]["size"]
        response["replicaRequirements"] = {"resourceRequest": {"cpu": "100m"}}
    elif operation == "ReviseReplica":
        response["patchType"] = "JSONPatch"
        response["patch"] = json_patch(
            [{"op": "replace", "path": "/spec/size", "value": request["replicas"]}]
        )
    elif operation == "InterpretHealth":
        status = obj.get("status") or {}
        response["healthy"] = status.get("ready", 0) >= obj["spec"]["size"]
    elif operation == "InterpretStatus":
        response["rawStatus"] = {"ready": (obj.get("status") or {}).get("ready", 0), "from": "webhook"}
    elif operation == "AggregateStatus":
        ready = sum(
            (item.get("status") or {}).get("ready", 0) for item in request.get("aggregatedStatus") or []
        )
        response["patchType"] = "JSONPatch"
        response["patch"] = json_patch([{"op": "add", "path": "/status", "value": {"ready": ready}}])
    elif operation == "Retain":
        observed = request["observedObject"]
        response["patchType"] = "JSONPatch"
        response["patch"] = json_patch(
            [{"op": "add", "path": "/spec/paused", "value": observed["spec"].get("paused", False)}]
        )
    elif operation == "InterpretDependency":
        response["dependencies"] = [
            {"apiVersion": "v1", "kind": "ConfigMap", "namespace": "ns", "name": "conf"}
        ]
    else:
        return {"uid": request["uid"], "successful": False, "status": {"code": 400, "message": operation}}
    return response


def fleet(size: int = 4, ready: int | None = None) -> dict[str, Any]:
    obj: dict[str, Any] = {
        "apiVersion": FLEET_API_VERSION,
        "kind": "Fleet",
        "metadata": {"name": "web", "namespace": "ns"},
        "spec": {"size": size},
    }
    if ready is not None:
        obj["status"] = {"ready": ready}
    return obj
