"""The runtime's interpretation shell: webhooks are called over HTTPS from worker threads (never from
the event loop), and their failures become Warning Events on the webhook configuration."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from flotilla.api.karmada.config import RESOURCE_INTERPRETER_WEBHOOK_CONFIGURATION
from flotilla.api.scheme import GroupVersionKind
from flotilla.interpreter.health import ResourceHealth
from flotilla.interpreter.lua import Operation
from flotilla.runtime.interpretation import Interpretation
from tests.unit.apiserver.admission.webhook_server import WebhookServer
from tests.unit.interpreter.webhook.samples import fleet, interpret, webhook_configuration


class Listed:
    """What Interpretation reads of an informer: its objects."""

    def __init__(self, objects: list[dict[str, Any]]) -> None:
        self.objects = objects

    def list(self) -> list[dict[str, Any]]:
        return self.objects

    def get(self, name: str) -> dict[str, Any] | None:
        return next((obj for obj in self.objects if obj["metadata"]["name"] == name), None)


class Informers:
    def __init__(self, configurations: list[dict[str, Any]]) -> None:
        self.by_kind = {RESOURCE_INTERPRETER_WEBHOOK_CONFIGURATION: Listed(configurations)}

    def get(self, gvk: GroupVersionKind) -> Listed:
        return self.by_kind.get(gvk) or Listed([])


class Recorder:
    """A hub that keeps what is created (events)."""

    def __init__(self) -> None:
        self.created: list[dict[str, Any]] = []

    async def create(self, obj: dict[str, Any], **options: Any) -> dict[str, Any]:
        self.created.append(obj)
        return obj


def context_answer(request: dict[str, Any]) -> bytes:
    return json.dumps({"response": interpret(request)}).encode()


@pytest.fixture(scope="module")
def server() -> Iterator[WebhookServer]:
    with WebhookServer({"/interpret": context_answer}) as served:
        yield served


def interpretation(url: str, ca_bundle: str) -> Interpretation:
    configuration = webhook_configuration(url=url, ca_bundle=ca_bundle)
    return Interpretation(Informers([configuration]))  # type: ignore[arg-type]


async def test_a_webhook_answers_over_https_from_a_worker_thread(server: WebhookServer) -> None:
    shell = interpretation(server.url("/interpret"), server.ca_bundle)
    interpreter = shell.interpreter()
    assert interpreter.customizes(fleet(), Operation.INTERPRET_HEALTH)
    health = await shell.off_loop(lambda: interpreter.interpret_health(fleet(2, ready=2)), customized=True)
    assert health is ResourceHealth.HEALTHY
    assert interpreter.drain_failures() == []
    assert [request["operation"] for request in server.received("/interpret")][-1] == "InterpretHealth"


async def test_a_call_on_the_event_loop_is_refused_not_deadlocked(server: WebhookServer) -> None:
    shell = interpretation(server.url("/interpret"), server.ca_bundle)
    interpreter = shell.interpreter()
    assert interpreter.interpret_health(fleet(2, ready=2)) is ResourceHealth.UNKNOWN
    (failure,) = interpreter.drain_failures()
    assert "may not be called on the event loop" in failure.detail


async def test_an_untrusted_certificate_fails_and_is_recorded_on_the_configuration(
    server: WebhookServer,
) -> None:
    shell = interpretation(server.url("/interpret"), "")  # the system roots do not know the test CA
    interpreter = shell.interpreter()
    replicas = await shell.off_loop(lambda: interpreter.get_replicas(fleet()), customized=True)
    assert replicas is None
    hub = Recorder()
    await shell.report_failures(hub, interpreter, controller="test")  # type: ignore[arg-type]
    (event,) = hub.created
    assert event["reason"] == "InterpreterOperationFailed" and event["type"] == "Warning"
    assert event["involvedObject"]["kind"] == "ResourceInterpreterWebhookConfiguration"
    assert event["involvedObject"]["name"] == "fleet-interpreter"
    assert "InterpreterOperation(InterpretReplica) failed" in event["message"]
    assert "x509: certificate signed by unknown authority" in event["message"]
