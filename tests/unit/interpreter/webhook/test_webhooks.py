"""Interpreter webhooks: Karmada's matching and order, its ResourceInterpreterContext both ways, and
the interpreter's precedence (Lua customization, then webhook, then built-in rules)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from flotilla.interpreter.customized import ResourceInterpreter
from flotilla.interpreter.health import ResourceHealth
from flotilla.interpreter.lua import CustomizationIndex, CustomizedInterpreter, Operation
from flotilla.interpreter.webhook import (
    InterpreterWebhook,
    WebhookCallFailed,
    WebhookIndex,
    WebhookInterpreter,
    WebhookInterpreterError,
)
from flotilla.interpreter.webhook.context import InvalidResponse, read_response
from tests.unit.interpreter.webhook.samples import fleet, interpret, webhook_configuration

Answer = dict[str, Any]


def served_by(answer: Any) -> tuple[WebhookInterpreter, list[dict[str, Any]]]:
    """An interpreter whose webhook answers with `answer(request)`, and the requests it saw."""
    seen: list[dict[str, Any]] = []

    def call(webhook: InterpreterWebhook, body: bytes) -> bytes:
        context = json.loads(body)
        seen.append(context)
        response = answer(context["request"])
        return json.dumps({**{k: context[k] for k in ("apiVersion", "kind")}, "response": response}).encode()

    index = WebhookIndex.from_objects([webhook_configuration()])
    return WebhookInterpreter(index, call), seen


def test_rules_match_as_karmadas_matcher() -> None:
    """Operation, group, version and kind each match exactly or by '*'."""
    index = WebhookIndex.from_objects([webhook_configuration(operations=["InterpretHealth"])])
    assert index.first("apps.example.io/v1", "Fleet", Operation.INTERPRET_HEALTH) is not None
    assert index.first("apps.example.io/v1", "Fleet", Operation.INTERPRET_REPLICA) is None
    assert index.first("apps.example.io/v2", "Fleet", Operation.INTERPRET_HEALTH) is None
    assert index.first("v1", "Fleet", Operation.INTERPRET_HEALTH) is None


def test_the_first_webhook_by_configuration_and_name_answers() -> None:
    """Several matching webhooks: the one whose `<configuration>/<name>` sorts first."""
    index = WebhookIndex.from_objects([webhook_configuration("zeta"), webhook_configuration("alpha")])
    found = index.first("apps.example.io/v1", "Fleet", Operation.RETAIN)
    assert found is not None and found.uid == "alpha/fleets.example.io"
    assert found.timeout_seconds == 10


def test_a_service_client_config_is_reached_by_its_cluster_dns_name() -> None:
    configuration = webhook_configuration()
    configuration["webhooks"][0]["clientConfig"] = {
        "service": {"namespace": "ops", "name": "fleets", "path": "/i"}
    }
    (webhook,) = WebhookIndex.from_objects([configuration]).webhooks
    assert webhook.url == "https://fleets.ops.svc:443/i"


def test_every_operation_round_trips_through_the_context() -> None:
    """Requests carry Karmada's fields; answers are read per operation and patches applied."""
    hooks, seen = served_by(interpret)
    assert hooks.get_replicas(fleet(6)) == (6, {"resourceRequest": {"cpu": "100m"}})
    assert hooks.revise_replica(fleet(6), 2) == {**fleet(6), "spec": {"size": 2}}
    assert hooks.interpret_health(fleet(2, ready=2)) is True
    assert hooks.interpret_health(fleet(2, ready=1)) is False
    assert hooks.reflect_status(fleet(2, ready=1)) == {"ready": 1, "from": "webhook"}
    items = [{"clusterName": "m1", "status": {"ready": 1}}, {"clusterName": "m2", "status": {"ready": 2}}]
    assert (hooks.aggregate_status(fleet(3), items) or {})["status"] == {"ready": 3}
    observed = {**fleet(3), "spec": {"size": 3, "paused": True}}
    assert (hooks.retain(fleet(3), observed) or {})["spec"] == {"size": 3, "paused": True}
    assert hooks.get_dependencies(fleet()) == [
        {"apiVersion": "v1", "kind": "ConfigMap", "namespace": "ns", "name": "conf"}
    ]
    first = seen[0]
    assert (
        first["apiVersion"] == "config.karmada.io/v1alpha1" and first["kind"] == "ResourceInterpreterContext"
    )
    request = first["request"]
    assert request["kind"] == {"group": "apps.example.io", "version": "v1", "kind": "Fleet"}
    assert (request["name"], request["namespace"], request["operation"]) == ("web", "ns", "InterpretReplica")
    assert seen[1]["request"]["replicas"] == 2
    assert seen[5]["request"]["aggregatedStatus"] == items
    assert seen[6]["request"]["observedObject"] == observed


@pytest.mark.parametrize(
    ("operation", "response", "message"),
    [
        (Operation.INTERPRET_REPLICA, {"uid": "u", "successful": True}, "nil response.replicas"),
        (Operation.INTERPRET_HEALTH, {"uid": "u", "successful": True}, "nil response.healthy"),
        (Operation.INTERPRET_STATUS, {"uid": "u", "successful": True}, "nil response.rawStatus"),
        (Operation.RETAIN, {"uid": "u", "successful": True, "patch": "W10="}, "nil response.patchType"),
        (
            Operation.RETAIN,
            {"uid": "u", "successful": True, "patchType": "Merge", "patch": "W10="},
            "invalid",
        ),
        (
            Operation.INTERPRET_HEALTH,
            {"uid": "other", "successful": True, "healthy": True},
            'expected response.uid "u"',
        ),
        (Operation.INTERPRET_HEALTH, {"uid": "u", "successful": False}, "require response.status"),
    ],
)
def test_unusable_answers_are_refused_in_karmadas_words(
    operation: Operation, response: Answer, message: str
) -> None:
    with pytest.raises(InvalidResponse, match=message):
        read_response("u", operation, json.dumps({"response": response}).encode())


def test_an_unsuccessful_answer_fails_with_its_status() -> None:
    hooks, _ = served_by(
        lambda request: {
            "uid": request["uid"],
            "successful": False,
            "status": {"code": 500, "message": "busy"},
        }
    )
    with pytest.raises(
        WebhookInterpreterError, match="webhook call failed, get status code: 500, msg: busy"
    ) as caught:
        hooks.interpret_health(fleet())
    assert caught.value.configuration == "fleet-interpreter"
    assert caught.value.operation is Operation.INTERPRET_HEALTH


def unreachable(webhook: InterpreterWebhook, body: bytes) -> bytes:
    raise WebhookCallFailed(f'failed to call webhook: Post "{webhook.url}": connect: connection refused')


def test_a_webhook_that_cannot_be_called_gives_unknown_health_and_a_failure_not_an_exception() -> None:
    """As a broken script: the built-in answer (Unknown health, no replicas) and one failure kept."""
    interpreter = ResourceInterpreter(
        None, WebhookInterpreter(WebhookIndex.from_objects([webhook_configuration()]), unreachable)
    )
    assert interpreter.customizes(fleet(), Operation.INTERPRET_HEALTH)
    assert interpreter.interpret_health(fleet(2, ready=2)) is ResourceHealth.UNKNOWN
    assert interpreter.get_replicas(fleet()) is None
    failures = interpreter.drain_failures()
    assert len(failures) == 2
    assert "connection refused" in failures[0].detail


LUA_HEALTH = {
    "apiVersion": "config.karmada.io/v1alpha1",
    "kind": "ResourceInterpreterCustomization",
    "metadata": {"name": "fleet-health"},
    "spec": {
        "target": {"apiVersion": "apps.example.io/v1", "kind": "Fleet"},
        "customizations": {
            "healthInterpretation": {"luaScript": "function InterpretHealth(obj) return false end"}
        },
    },
}


def test_a_lua_customization_answers_before_the_webhook_which_answers_the_rest() -> None:
    """Karmada's order: declarative (Lua) first, then the webhook, then the built-in rules."""
    hooks, seen = served_by(interpret)
    lua = CustomizedInterpreter(CustomizationIndex.from_objects([LUA_HEALTH]))
    interpreter = ResourceInterpreter(lua, hooks)
    assert interpreter.interpret_health(fleet(2, ready=2)) is ResourceHealth.UNHEALTHY
    assert seen == []
    replicas = interpreter.get_replicas(fleet(5))
    assert replicas is not None and replicas.replicas == 5
    assert [context["request"]["operation"] for context in seen] == ["InterpretReplica"]
    assert interpreter.drain_failures() == []
