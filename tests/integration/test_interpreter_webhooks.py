"""Interpreter webhooks end to end, beside a Lua customization, on a Push and a Pull member.

A hub, a controller manager, one Push member (m1) and one Pull member (m2, served by its agent).
The kind `Squad` (squads.example.io/v1) is unknown to the built-in interpreter. A
ResourceInterpreterWebhookConfiguration points at an HTTPS interpreter webhook this test serves
itself (its own CA; `interpret` below): replicas from `spec.size`, a revised `spec.size`, the status
it reflects marked `from: webhook`, the ready counts summed, and health — which it always says is
good. Beside it a Lua customization scripts only InterpretHealth (ready >= size); as in Karmada it
answers first, so a member with too few ready replicas is Unhealthy. m2's copy is applied,
reflected and health-checked by the agent, so the Pull path uses the same customization and webhook.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from typing import Any

import pytest

from tests.integration.federation import (
    Federation,
    MemberCluster,
    custom_resource_definition,
    propagation_policy,
    resource_selector,
    static_weights,
)
from tests.support.kubectl import Kubectl
from tests.support.waiting import eventually
from tests.unit.apiserver.admission.webhook_server import WebhookServer

pytestmark = pytest.mark.kubectl

GROUP = "squads.example.io"
API_VERSION = f"{GROUP}/v1"
SQUADS = f"squads.{GROUP}"
WEBHOOKS = "resourceinterpreterwebhookconfigurations"
CONFIGURATION = "squad-interpreter"
PATH = "/interpret"
SCHEMA = {"type": "object", "x-kubernetes-preserve-unknown-fields": True}
LUA_HEALTH = """
function InterpretHealth(observedObj)
  if observedObj.status == nil or observedObj.status.ready == nil then
    return false
  end
  return observedObj.status.ready >= observedObj.spec.size
end
"""


def _patch(operations: list[dict[str, Any]]) -> str:
    return base64.b64encode(json.dumps(operations).encode()).decode()


def interpret(request: dict[str, Any]) -> bytes:
    """The Squad interpreter webhook: one ResourceInterpreterContext in, one out."""
    operation, obj = request["operation"], request.get("object") or {}
    response: dict[str, Any] = {"uid": request["uid"], "successful": True}
    if operation == "InterpretReplica":
        response["replicas"] = obj["spec"]["size"]
        response["replicaRequirements"] = {"resourceRequest": {"cpu": "100m"}}
    elif operation == "ReviseReplica":
        response["patchType"] = "JSONPatch"
        response["patch"] = _patch([{"op": "replace", "path": "/spec/size", "value": request["replicas"]}])
    elif operation == "InterpretStatus":
        response["rawStatus"] = {"ready": (obj.get("status") or {}).get("ready", 0), "from": "webhook"}
    elif operation == "AggregateStatus":
        items = request.get("aggregatedStatus") or []
        ready = sum((item.get("status") or {}).get("ready", 0) for item in items)
        response["patchType"] = "JSONPatch"
        response["patch"] = _patch([{"op": "add", "path": "/status", "value": {"ready": ready}}])
    elif operation == "InterpretHealth":
        response["healthy"] = True  # never asked: the Lua customization answers first
    else:
        response = {"uid": request["uid"], "successful": False, "status": {"code": 400, "message": operation}}
    context = {"apiVersion": "config.karmada.io/v1alpha1", "kind": "ResourceInterpreterContext"}
    return json.dumps({**context, "response": response}).encode()


def webhook_configuration(url: str, ca_bundle: str) -> dict[str, Any]:
    return {
        "apiVersion": "config.karmada.io/v1alpha1",
        "kind": "ResourceInterpreterWebhookConfiguration",
        "metadata": {"name": CONFIGURATION},
        "webhooks": [
            {
                "name": "squads.example.io",
                "clientConfig": {"url": url, "caBundle": ca_bundle},
                "rules": [
                    {"operations": ["*"], "apiGroups": [GROUP], "apiVersions": ["v1"], "kinds": ["Squad"]}
                ],
                "timeoutSeconds": 3,
                "interpreterContextVersions": ["v1alpha1"],
            }
        ],
    }


def health_customization() -> dict[str, Any]:
    return {
        "apiVersion": "config.karmada.io/v1alpha1",
        "kind": "ResourceInterpreterCustomization",
        "metadata": {"name": "squad-health"},
        "spec": {
            "target": {"apiVersion": API_VERSION, "kind": "Squad"},
            "customizations": {"healthInterpretation": {"luaScript": LUA_HEALTH}},
        },
    }


@pytest.fixture(scope="module")
def webhook() -> Iterator[WebhookServer]:
    with WebhookServer({PATH: interpret}) as server:
        yield server


@pytest.fixture(scope="module")
def federation(tmp_path_factory: pytest.TempPathFactory, webhook: WebhookServer) -> Iterator[Federation]:
    root = tmp_path_factory.mktemp("interpreter-webhooks")
    members = [MemberCluster("m1"), MemberCluster("m2", sync_mode="Pull")]
    with Federation(root, members) as federation:
        federation.start()
        hub = federation.kubectl(root / "cache-hub")
        hub.apply_yaml([webhook_configuration(webhook.url(PATH), webhook.ca_bundle), health_customization()])
        kubectls = [hub, *(federation.member(name, root / f"cache-{name}") for name in ("m1", "m2"))]
        crd = custom_resource_definition(GROUP, "Squad", SCHEMA, subresources={"status": {}})
        for kubectl in kubectls:
            kubectl.apply_yaml(crd)
        for kubectl in kubectls:
            kubectl("wait", "--for=condition=established", f"crd/{SQUADS}", "--timeout=20s")
        eventually(
            lambda: all(serves_squads(hub, name) for name in ("m1", "m2")),
            timeout=30,
            what="Squads in both members' API enablements",
        )
        yield federation


def serves_squads(hub: Kubectl, cluster: str) -> bool:
    enablements = hub.json("get", "cluster", cluster).get("status", {}).get("apiEnablements") or []
    return any(
        enablement.get("groupVersion") == API_VERSION
        and any(resource.get("kind") == "Squad" for resource in enablement.get("resources") or [])
        for enablement in enablements
    )


def squad_on_hub(name: str, size: int) -> list[dict[str, Any]]:
    template = {
        "apiVersion": API_VERSION,
        "kind": "Squad",
        "metadata": {"name": name},
        "spec": {"size": size},
    }
    placement = {
        "clusterAffinity": {"clusterNames": ["m1", "m2"]},
        "replicaScheduling": static_weights({"m1": 1, "m2": 1}),
    }
    return [template, propagation_policy(name, [resource_selector("Squad", name, API_VERSION)], placement)]


def set_ready(member: Kubectl, ns: str, name: str, ready: int) -> None:
    """What a member's Squad controller would do: report its ready count."""
    patch = json.dumps({"status": {"ready": ready}})
    member("patch", SQUADS, name, "-n", ns, "--subresource=status", "--type=merge", "-p", patch)


def aggregated_items(hub: Kubectl, ns: str, binding: str) -> dict[str, dict[str, Any]]:
    items = (hub.json_or_none("get", "rb", binding, "-n", ns) or {}).get("status", {}).get("aggregatedStatus")
    return {item["clusterName"]: item for item in items or []}


def test_a_webhook_splits_reflects_and_aggregates_while_lua_answers_health_push_and_pull(
    webhook: WebhookServer, hub: Kubectl, members: dict[str, Kubectl], ns: str
) -> None:
    """InterpretReplica sizes the binding, ReviseReplica gives each member 2 of 4 (a JSON Patch), the
    status each member reports passes through the webhook (the agent calls it for the Pull member),
    the Lua customization's health wins over the webhook's, and AggregateStatus sums the members."""
    hub.apply_yaml(squad_on_hub("alpha", 4), "-n", ns)
    eventually(
        lambda: (
            (hub.json_or_none("get", "rb", "alpha-squad", "-n", ns) or {}).get("spec", {}).get("replicas")
            == 4
        ),
        timeout=30,
        what="replicas 4 from the webhook's InterpretReplica",
    )
    binding = hub.json("get", "rb", "alpha-squad", "-n", ns)
    assert binding["spec"]["replicaRequirements"]["resourceRequest"] == {"cpu": "100m"}

    def sizes() -> dict[str, Any]:
        found = {
            name: kubectl.json_or_none("get", SQUADS, "alpha", "-n", ns) for name, kubectl in members.items()
        }
        return {name: obj["spec"]["size"] for name, obj in found.items() if obj is not None}

    eventually(lambda: sizes() == {"m1": 2, "m2": 2}, timeout=30, what="2 on each member (ReviseReplica)")
    set_ready(members["m1"], ns, "alpha", 2)
    set_ready(members["m2"], ns, "alpha", 1)

    def reflected() -> dict[str, tuple[Any, Any, Any]]:
        return {
            name: (
                (item.get("status") or {}).get("from"),
                (item.get("status") or {}).get("ready"),
                item.get("health"),
            )
            for name, item in aggregated_items(hub, ns, "alpha-squad").items()
        }

    eventually(
        lambda: reflected() == {"m1": ("webhook", 2, "Healthy"), "m2": ("webhook", 1, "Unhealthy")},
        timeout=30,
        what="statuses reflected by the webhook, health by Lua (m2 by its agent)",
    )
    eventually(
        lambda: (hub.json("get", SQUADS, "alpha", "-n", ns).get("status") or {}).get("ready") == 3,
        timeout=30,
        what="ready 3 aggregated by the webhook",
    )
    operations = {request["operation"] for request in webhook.received(PATH)}
    assert {"InterpretReplica", "ReviseReplica", "InterpretStatus", "AggregateStatus"} <= operations
    assert "InterpretHealth" not in operations


def test_a_webhook_that_is_down_is_isolated(
    federation: Federation, webhook: WebhookServer, hub: Kubectl, members: dict[str, Kubectl], ns: str
) -> None:
    """Pointed at a closed port: a Warning Event on the configuration names the operation and the
    connection failure, the Squad gets no replica count (as an uninterpreted kind), Lua still
    answers health, and the controller manager keeps running."""
    hub.apply_yaml(webhook_configuration("https://127.0.0.1:1/interpret", webhook.ca_bundle))
    try:
        hub.apply_yaml(squad_on_hub("beta", 4), "-n", ns)

        def events() -> list[dict[str, Any]]:
            found = hub.json(
                "get", "events", "-n", "default", "--field-selector", f"involvedObject.name={CONFIGURATION}"
            )["items"]
            # Squads left by the other tests fail their AggregateStatus too: this test's is the replica one.
            return [
                event
                for event in found
                if event["reason"] == "InterpreterOperationFailed"
                and "InterpreterOperation(InterpretReplica)" in event["message"]
            ]

        event = eventually(events, timeout=30, what="InterpretReplica failed")[0]
        assert event["type"] == "Warning"
        assert event["involvedObject"]["kind"] == "ResourceInterpreterWebhookConfiguration"
        assert "InterpreterOperation(InterpretReplica) failed" in event["message"]
        assert "connection refused" in event["message"]
        binding = eventually(
            lambda: hub.json_or_none("get", "rb", "beta-squad", "-n", ns), timeout=30, what="beta bound"
        )
        assert not binding["spec"].get("replicas")
        assert federation.manager.process is not None and federation.manager.process.poll() is None
    finally:
        hub.apply_yaml(webhook_configuration(webhook.url(PATH), webhook.ca_bundle))


def test_a_malformed_configuration_is_refused_with_field_causes(hub: Kubectl, webhook: WebhookServer) -> None:
    """Karmada's webhook rules on write: https only, a known context version (422, field paths)."""
    bad = webhook_configuration("http://127.0.0.1/interpret", webhook.ca_bundle)
    bad["metadata"]["name"] = "malformed"
    bad["webhooks"][0]["interpreterContextVersions"] = ["v1"]
    answer = hub.run("apply", "-f", "-", check=False, input=json.dumps(bad))
    assert answer.returncode != 0
    assert "webhooks[0].clientConfig.url" in answer.stderr
    assert "'https' is the only allowed URL scheme" in answer.stderr
    assert "webhooks[0].interpreterContextVersions" in answer.stderr
