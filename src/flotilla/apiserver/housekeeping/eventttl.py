"""Events expire: kube-apiserver stores them with a one-hour lease (`--event-ttl`); we delete them.

Clusters record an Event for nearly every change (pods created, scheduled, started…), so without
expiry a long-running cluster grows without end. Once a minute this controller deletes events whose
last occurrence (or creation) is older than the TTL, straight from the cache's view.
"""

from __future__ import annotations

import contextlib
from datetime import datetime, timedelta

import structlog

from flotilla.api.scheme import GroupVersionKind
from flotilla.api.times import timestamp
from flotilla.apiserver import errors
from flotilla.apiserver.context import APIContext
from flotilla.apiserver.writes.deletion import DeleteOptions, delete_object
from flotilla.runtime.periodic import PeriodicTask

log = structlog.get_logger("flotilla.apiserver.events")

EVENT = GroupVersionKind("", "v1", "Event")


def last_seen(event: dict[str, object]) -> datetime | None:
    """When the event last happened, as kubectl's LAST SEEN column reads it."""
    for field in ("lastTimestamp", "eventTime"):
        value = event.get(field)
        if isinstance(value, str) and value:
            return timestamp(value)
    meta = event.get("metadata")
    created = meta.get("creationTimestamp") if isinstance(meta, dict) else None
    return timestamp(created) if isinstance(created, str) else None


class EventExpiry:
    NAME = "event-ttl"

    def __init__(self, ctx: APIContext, ttl: timedelta = timedelta(hours=1), interval: float = 60.0) -> None:
        self.ctx = ctx
        self.ttl = ttl
        self.interval = interval
        self._timer = PeriodicTask(self.NAME, self.expire_once, interval)

    def start(self) -> None:
        self._timer.start()

    async def stop(self) -> None:
        await self._timer.stop()

    async def expire_once(self) -> int:
        served = self.ctx.registry.by_kind(EVENT)
        if served is None:
            return 0
        cutoff = self.ctx.clock() - self.ttl
        expired = 0
        for item in self.ctx.cache.list(served.storage_prefix):
            seen = last_seen(item.obj)
            if seen is None or seen >= cutoff:
                continue
            with contextlib.suppress(errors.NotFound, errors.Conflict):
                await delete_object(
                    self.ctx,
                    served,
                    item.namespace,
                    item.name,
                    DeleteOptions(False, "Background", None, item.metadata.get("uid", "")),
                )
                expired += 1
        if expired:
            log.info("events.expired", count=expired)
        return expired
