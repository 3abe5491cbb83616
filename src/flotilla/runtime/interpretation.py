"""The hub's customizations and interpreter webhooks, handed to the controllers that interpret objects.

The interpreter is pure, so this shell reads what it needs: one informer on
`config.karmada.io/v1alpha1` ResourceInterpreterCustomizations and one on
ResourceInterpreterWebhookConfigurations, shared by the controllers of a process (the controller
manager, or a Pull cluster's agent), and a `ResourceInterpreter` rebuilt only when either set
(names and resourceVersions) changes; compiled scripts live in the sandbox, which is kept across
rebuilds.

Calls that run a script or call a webhook go to a worker thread (`off_loop`; the sandbox keeps one
Lua runtime per thread), so a script at its time limit or a webhook at its timeout delays its own
reconcile, not the controller's event loop. A webhook is called over HTTPS by the shared webhook
client (`client/webhookcalls.py`: the CA bundle, kube's timeout hint, Go-worded failures), run on
the process's event loop for the worker thread that waits for it (`_call_webhook`).

A script or a webhook that fails is reported by `report_failures`: a structured log line and a
Warning Event on the customization or webhook configuration (`InterpreterOperationFailed`, naming
the operation and Lua's message with its line, or the webhook and the call's failure), at most once
a minute for the same object, operation and message, so a failure on every reconcile does not flood
the hub with Events. Karmada's config kinds carry no status, so the Event is where
`kubectl describe ric NAME` (or the webhook configuration) shows the failure.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from datetime import datetime
from typing import Any, TypeVar

import structlog

from flotilla.api.karmada.config import (
    CONFIG_GROUP,
    CONFIG_VERSION,
    INTERPRETER_OPERATION_FAILED,
    RESOURCE_INTERPRETER_CUSTOMIZATION,
    RESOURCE_INTERPRETER_WEBHOOK_CONFIGURATION,
)
from flotilla.api.scheme import GroupVersionKind
from flotilla.api.times import format_time
from flotilla.client.interfaces import Writer
from flotilla.client.webhookcalls import Endpoint, WebhookCallError, WebhookClient
from flotilla.interpreter.customized import BUILT_IN, InterpreterFailure, ResourceInterpreter
from flotilla.interpreter.lua import CustomizationIndex, CustomizedInterpreter, LuaSandbox
from flotilla.interpreter.lua.operations import CustomizationError
from flotilla.interpreter.webhook import (
    InterpreterWebhook,
    WebhookCallFailed,
    WebhookIndex,
    WebhookInterpreter,
)
from flotilla.runtime.clock import Clock, SystemClock
from flotilla.runtime.events import WARNING, object_event, record_event
from flotilla.runtime.informers import SharedInformers

log = structlog.get_logger("flotilla.runtime.interpretation")

T = TypeVar("T")
_REPEAT_SECONDS = 60.0
_FIELD_MANAGER = "flotilla-interpreter"
_USER_AGENT = "flotilla-resource-interpreter"
_CALL_GRACE_SECONDS = 5.0
"""How much longer than a webhook's own timeout a worker thread waits for the event loop's answer."""


class Interpretation:
    """The current interpreter of a process: the hub's customizations over the built-in rules."""

    def __init__(self, informers: SharedInformers | None, clock: Clock | None = None) -> None:
        self._clock = clock or SystemClock()
        self._informer = informers.get(RESOURCE_INTERPRETER_CUSTOMIZATION) if informers else None
        self._webhook_informer = (
            informers.get(RESOURCE_INTERPRETER_WEBHOOK_CONFIGURATION) if informers else None
        )
        self._sandbox = LuaSandbox()
        self._seen: tuple[tuple[str, str], ...] = ()
        self._seen_webhooks: tuple[tuple[str, str], ...] = ()
        self._interpreter = BUILT_IN
        self._reported: dict[tuple[str, str, str], datetime] = {}
        self._loop: asyncio.AbstractEventLoop | None = None

    def interpreter(self) -> ResourceInterpreter:
        """A fresh interpreter over the current customizations and webhooks (its failures are the
        caller's)."""
        if self._informer is None or self._webhook_informer is None:
            return ResourceInterpreter()
        with contextlib.suppress(RuntimeError):  # outside a loop (a test): webhooks cannot be called
            self._loop = asyncio.get_running_loop()
        customizations = self._informer.list()
        configurations = self._webhook_informer.list()
        seen, seen_webhooks = _versions(customizations), _versions(configurations)
        if (seen, seen_webhooks) != (self._seen, self._seen_webhooks):
            self._seen, self._seen_webhooks = seen, seen_webhooks
            index = CustomizationIndex.from_objects(customizations)
            webhooks = WebhookIndex.from_objects(configurations)
            self._interpreter = ResourceInterpreter(
                CustomizedInterpreter(index, self._sandbox) if index else None,
                WebhookInterpreter(webhooks, self._call_webhook) if webhooks else None,
            )
        return ResourceInterpreter(self._interpreter.customizations, self._interpreter.webhooks)

    def _call_webhook(self, webhook: InterpreterWebhook, body: bytes) -> bytes:
        """Post `body` to `webhook` on the event loop, for the worker thread that waits here."""
        loop = self._loop
        if loop is None or loop.is_closed():
            raise WebhookCallFailed("no event loop to call the webhook from")
        if _on_loop_thread(loop):
            # A webhook answers only off the loop (`off_loop`): waiting here would block the loop.
            raise WebhookCallFailed("an interpreter webhook may not be called on the event loop")
        endpoint = Endpoint(webhook.url, webhook.ca_bundle, webhook.timeout_seconds)
        future = asyncio.run_coroutine_threadsafe(_post(endpoint, body), loop)
        try:
            return future.result(timeout=webhook.timeout_seconds + _CALL_GRACE_SECONDS)
        except WebhookCallError as error:
            raise WebhookCallFailed(error.reason) from error
        except TimeoutError as error:
            future.cancel()
            raise WebhookCallFailed("failed to call webhook: context deadline exceeded") from error

    async def off_loop(self, call: Callable[[], T], *, customized: bool) -> T:
        """`call()`, in a worker thread when a customization takes part (a script may use up to its
        time limit, which the event loop must not wait for), inline otherwise (no thread's cost for
        the built-in rules)."""
        if not customized:
            return call()
        return await asyncio.to_thread(call)

    async def report_failures(
        self, hub: Writer, interpreter: ResourceInterpreter, *, controller: str
    ) -> None:
        """Log each failure of `interpreter`'s customizations and webhooks and record a
        (rate-limited) Event on the object to blame."""
        for failure in interpreter.drain_failures():
            kind, name = _blamed(failure)
            log.warning(
                "interpreter.customization_failed",
                controller=controller,
                kind=kind.kind,
                name=name,
                operation=str(failure.operation),
                error=failure.detail,
            )
            key = (f"{kind.kind}/{name}", str(failure.operation), failure.detail)
            now = self._clock.now()
            last = self._reported.get(key)
            if last is not None and (now - last).total_seconds() < _REPEAT_SECONDS:
                continue
            self._reported[key] = now
            event = object_event(
                self._object(kind, name),
                WARNING,
                INTERPRETER_OPERATION_FAILED,
                f"InterpreterOperation({failure.operation}) failed: {failure.detail}",
                component=controller,
                now=format_time(now),
            )
            await record_event(hub, event, controller=controller, field_manager=_FIELD_MANAGER)

    def _object(self, kind: GroupVersionKind, name: str) -> dict[str, Any]:
        informer = self._informer if kind == RESOURCE_INTERPRETER_CUSTOMIZATION else self._webhook_informer
        found = informer.get(name) if informer is not None else None
        if found is not None:
            return found
        return {
            "apiVersion": f"{CONFIG_GROUP}/{CONFIG_VERSION}",
            "kind": kind.kind,
            "metadata": {"name": name},
        }


def _blamed(failure: InterpreterFailure) -> tuple[GroupVersionKind, str]:
    if isinstance(failure, CustomizationError):
        return RESOURCE_INTERPRETER_CUSTOMIZATION, failure.customization
    return RESOURCE_INTERPRETER_WEBHOOK_CONFIGURATION, failure.configuration


def _versions(objects: list[dict[str, Any]]) -> tuple[tuple[str, str], ...]:
    return tuple(
        sorted(
            (str(obj["metadata"].get("name")), str(obj["metadata"].get("resourceVersion"))) for obj in objects
        )
    )


def _on_loop_thread(loop: asyncio.AbstractEventLoop) -> bool:
    try:
        return asyncio.get_running_loop() is loop
    except RuntimeError:  # no loop runs in this thread: a worker thread
        return False


async def _post(endpoint: Endpoint, body: bytes) -> bytes:
    """One call with a client of its own: the controllers have no shutdown hook to close a shared
    session on, and interpreter calls are few (one per reconcile that needs one)."""
    client = WebhookClient(user_agent=_USER_AGENT)
    try:
        return await client.post(endpoint, body)
    finally:
        await client.close()
