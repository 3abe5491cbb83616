"""Events the workload controllers report about what they did (`kubectl describe` shows them).

kube's controllers record events through a best-effort recorder: a failure to write one never
fails the reconcile. Each event is a core/v1 Event named `<object>.<16 hex digits>`, from the
controller's component name (`replicaset-controller`, `deployment-controller`, …).
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from typing import Any

import structlog

from flotilla.api.scheme import GroupVersionKind
from flotilla.api.times import format_time
from flotilla.apiserver import errors
from flotilla.apiserver.localclient import LocalClient
from flotilla.runtime.clock import Clock
from flotilla.sim.controllers.framework.kinds import EVENT

log = structlog.get_logger("flotilla.sim.controllers")

NORMAL = "Normal"
WARNING = "Warning"
_MAX_NAME_PREFIX = 253 - 17


class EventRecorder:
    def __init__(self, client: LocalClient, clock: Clock, component: str) -> None:
        self._client = client
        self._clock = clock
        self.component = component

    async def record(
        self, obj: Mapping[str, Any], kind: GroupVersionKind, event_type: str, reason: str, message: str
    ) -> None:
        meta = obj["metadata"]
        namespace = meta.get("namespace") or "default"
        now = format_time(self._clock.now())
        involved = {
            "apiVersion": kind.api_version,
            "kind": kind.kind,
            "name": meta["name"],
            "uid": meta.get("uid", ""),
            "resourceVersion": meta.get("resourceVersion", ""),
        }
        if meta.get("namespace"):
            involved["namespace"] = meta["namespace"]
        event = {
            "apiVersion": "v1",
            "kind": "Event",
            "metadata": {
                "name": f"{meta['name'][:_MAX_NAME_PREFIX]}.{secrets.token_hex(8)}",
                "namespace": namespace,
            },
            "involvedObject": involved,
            "reason": reason,
            "message": message,
            "type": event_type,
            "source": {"component": self.component},
            "firstTimestamp": now,
            "lastTimestamp": now,
            "count": 1,
            "reportingComponent": self.component,
            "reportingInstance": "",
        }
        try:
            await self._client.create(EVENT, event)
        except errors.APIError as exc:  # best effort, as kube's event recorder is
            log.info("controller.event_failed", component=self.component, reason=reason, error=str(exc))
