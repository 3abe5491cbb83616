"""The Event table, shared by `v1 Event` and `events.k8s.io/v1 Event`.

kube-apiserver prints both API groups' events with one printer over the internal type:
`LAST SEEN TYPE REASON OBJECT MESSAGE`, plus wide `SUBOBJECT SOURCE FIRST SEEN COUNT NAME` (the name
is the last column). Events written by the new API carry `eventTime` and `series` instead of the old
first/last timestamps and count, so the printer falls back from one to the other. An
`events.k8s.io/v1` object is first renamed into the core shape (`regarding` → `involvedObject`,
`note` → `message`, `deprecated*` → the old fields), which is the conversion Kubernetes applies.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from flotilla.api.duration import since
from flotilla.api.times import timestamp
from flotilla.apiserver.registry.tables.descriptions import swagger_doc
from flotilla.apiserver.registry.tables.model import NAME, Cell, Column, Printer, wide
from flotilla.apiserver.registry.tables.objects import child, integer, mapping, name, text

COLUMNS = (
    Column("Last Seen", "string", description=swagger_doc("Event.lastTimestamp")),
    Column("Type", "string", description=swagger_doc("Event.type")),
    Column("Reason", "string", description=swagger_doc("Event.reason")),
    Column("Object", "string", description=swagger_doc("Event.involvedObject")),
    wide("Subobject", swagger_doc("ObjectReference.fieldPath")),
    wide("Source", swagger_doc("Event.source")),
    Column("Message", "string", description=swagger_doc("Event.message")),
    wide("First Seen", swagger_doc("Event.firstTimestamp")),
    wide("Count", swagger_doc("Event.count")),
    Column(NAME.name, NAME.type, NAME.format, NAME.description, priority=1),
)

_FROM_EVENTS_API = {
    "regarding": "involvedObject",
    "note": "message",
    "reportingController": "reportingComponent",
    "deprecatedSource": "source",
    "deprecatedFirstTimestamp": "firstTimestamp",
    "deprecatedLastTimestamp": "lastTimestamp",
    "deprecatedCount": "count",
}


def as_core_event(event: dict[str, Any]) -> dict[str, Any]:
    """An event in the `v1` shape, whichever API group it was read through."""
    if not text(event, "apiVersion").startswith("events.k8s.io/"):
        return event
    return {_FROM_EVENTS_API.get(key, key): value for key, value in event.items()}


def _source(event: dict[str, Any]) -> str:
    component = text(event, "source", "component") or text(event, "reportingComponent")
    instance = text(event, "source", "host") or text(event, "reportingInstance")
    return component if not instance else f"{component}, {instance}"


def event_row(obj: dict[str, Any], now: datetime) -> list[Cell]:
    event = as_core_event(obj)
    first_seen = since(child(event, "firstTimestamp"), now)
    if timestamp(child(event, "firstTimestamp")) is None:
        first_seen = since(child(event, "eventTime"), now)
    last_seen = since(child(event, "lastTimestamp"), now)
    if timestamp(child(event, "lastTimestamp")) is None:
        last_seen = first_seen
    count = integer(event, "count")
    series = child(event, "series")
    if isinstance(series, dict):
        last_seen = since(series.get("lastObservedTime"), now)
        count = integer(series, "count")
    elif count == 0:
        # Events from the new API are singletons without a count.
        count = 1
    involved = mapping(event, "involvedObject")
    kind = text(involved, "kind").lower()
    target = f"{kind}/{text(involved, 'name')}" if text(involved, "name") else kind
    return [
        last_seen,
        text(event, "type"),
        text(event, "reason"),
        target,
        text(involved, "fieldPath"),
        _source(event),
        text(event, "message").strip(),
        first_seen,
        count,
        name(event),
    ]


EVENT = Printer(COLUMNS, event_row)
