"""The hub's ResourceInterpreterCustomizations, handed to the controllers that interpret objects.

The interpreter is pure, so this shell reads the customizations for it: one informer on
`config.karmada.io/v1alpha1` ResourceInterpreterCustomizations, shared by the controllers of a
process, and a `ResourceInterpreter` rebuilt only when the set of customizations (names and
resourceVersions) changes; compiled scripts live in the sandbox, which is kept across rebuilds.

Calls that run a script go to a worker thread (`off_loop`; the sandbox keeps one Lua runtime per
thread), so a script at its time limit delays its own reconcile, not the controller's event loop.

A script that fails is reported by `report_failures`: a structured log line and a Warning Event
on the customization (`InterpreterOperationFailed`, naming the operation and Lua's message with
its line), at most once a minute for the same customization, operation and message, so a script
that fails on every reconcile does not flood the hub with Events. Karmada's customizations carry
no status, so the Event is where `kubectl describe ric NAME` shows the failure.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import datetime
from typing import Any, TypeVar

import structlog

from flotilla.api.karmada.config import (
    CONFIG_GROUP,
    CONFIG_VERSION,
    INTERPRETER_OPERATION_FAILED,
    RESOURCE_INTERPRETER_CUSTOMIZATION,
)
from flotilla.api.times import format_time
from flotilla.client.interfaces import Writer
from flotilla.interpreter.customized import BUILT_IN, ResourceInterpreter
from flotilla.interpreter.lua import CustomizationIndex, CustomizedInterpreter, LuaSandbox
from flotilla.runtime.clock import Clock, SystemClock
from flotilla.runtime.events import WARNING, object_event, record_event
from flotilla.runtime.informers import SharedInformers

log = structlog.get_logger("flotilla.runtime.interpretation")

T = TypeVar("T")
_REPEAT_SECONDS = 60.0
_FIELD_MANAGER = "flotilla-interpreter"


class Interpretation:
    """The current interpreter of a process: the hub's customizations over the built-in rules."""

    def __init__(self, informers: SharedInformers | None, clock: Clock | None = None) -> None:
        self._clock = clock or SystemClock()
        self._informer = informers.get(RESOURCE_INTERPRETER_CUSTOMIZATION) if informers else None
        self._sandbox = LuaSandbox()
        self._seen: tuple[tuple[str, str], ...] = ()
        self._interpreter = BUILT_IN
        self._reported: dict[tuple[str, str, str], datetime] = {}

    def interpreter(self) -> ResourceInterpreter:
        """A fresh interpreter over the current customizations (its failures are the caller's)."""
        if self._informer is None:
            return ResourceInterpreter()
        objects = self._informer.list()
        seen = tuple(
            sorted(
                (str(obj["metadata"].get("name")), str(obj["metadata"].get("resourceVersion")))
                for obj in objects
            )
        )
        if seen != self._seen:
            self._seen = seen
            index = CustomizationIndex.from_objects(objects)
            self._interpreter = ResourceInterpreter(
                CustomizedInterpreter(index, self._sandbox) if index else None
            )
        return ResourceInterpreter(self._interpreter.customizations)

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
        """Log each failure of `interpreter`'s customizations and record a (rate-limited) Event."""
        for failure in interpreter.drain_failures():
            log.warning(
                "interpreter.customization_failed",
                controller=controller,
                customization=failure.customization,
                operation=str(failure.operation),
                error=failure.detail,
            )
            key = (failure.customization, str(failure.operation), failure.detail)
            now = self._clock.now()
            last = self._reported.get(key)
            if last is not None and (now - last).total_seconds() < _REPEAT_SECONDS:
                continue
            self._reported[key] = now
            customization = self._customization(failure.customization)
            event = object_event(
                customization,
                WARNING,
                INTERPRETER_OPERATION_FAILED,
                f"InterpreterOperation({failure.operation}) failed: {failure.detail}",
                component=controller,
                now=format_time(now),
            )
            await record_event(hub, event, controller=controller, field_manager=_FIELD_MANAGER)

    def _customization(self, name: str) -> dict[str, Any]:
        found = self._informer.get(name) if self._informer is not None else None
        if found is not None:
            return found
        return {
            "apiVersion": f"{CONFIG_GROUP}/{CONFIG_VERSION}",
            "kind": RESOURCE_INTERPRETER_CUSTOMIZATION.kind,
            "metadata": {"name": name},
        }
