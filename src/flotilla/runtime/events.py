"""Events about objects, written as client-go's event recorder writes them: best effort, once.

A controller that cannot do what an object asks for says so on the object, where `kubectl
describe` shows it: a core/v1 Event whose `involvedObject` is the object (events about
cluster-scoped objects go to `default`, as kube's recorder puts them). Recording is best effort — a
failure is logged, never raised — so telling the user never becomes a reason to retry.

An Event is named `<object name>.<16 hex digits>` (client-go uses the time in hex; random digits
need no clock and do not collide between replicas). Object names reach 253 characters, so the
object's part is cut to keep the Event's own name a valid object name.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from typing import Any

import structlog

from flotilla.api.names import DNS1123_SUBDOMAIN_MAX
from flotilla.client import ClientError
from flotilla.client.interfaces import Writer

log = structlog.get_logger("flotilla.runtime.events")

NORMAL = "Normal"
WARNING = "Warning"
CLUSTER_SCOPED_EVENTS_NAMESPACE = "default"
_SUFFIX_DIGITS = 16


def event_name(object_name: str) -> str:
    """A fresh Event name for an object: its name (cut to fit) then `.` and random hex digits."""
    room = DNS1123_SUBDOMAIN_MAX - _SUFFIX_DIGITS - 1
    # A cut name must still end a DNS label with an alphanumeric character.
    head = object_name[:room].rstrip("-.") if len(object_name) > room else object_name
    return f"{head}.{secrets.token_hex(_SUFFIX_DIGITS // 2)}"


def object_event(
    obj: Mapping[str, Any], event_type: str, reason: str, message: str, *, component: str, now: str
) -> dict[str, Any]:
    """A core/v1 Event about `obj`, reported by `component` at `now` (RFC 3339)."""
    metadata = obj.get("metadata") or {}
    namespace = str(metadata.get("namespace") or "")
    involved: dict[str, Any] = {
        "apiVersion": obj.get("apiVersion"),
        "kind": obj.get("kind"),
        "name": metadata.get("name"),
        "uid": metadata.get("uid", ""),
        "resourceVersion": metadata.get("resourceVersion", ""),
    }
    if namespace:
        involved["namespace"] = namespace
    return {
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {
            "name": event_name(str(metadata.get("name") or "")),
            "namespace": namespace or CLUSTER_SCOPED_EVENTS_NAMESPACE,
        },
        "involvedObject": involved,
        "type": event_type,
        "reason": reason,
        "message": message,
        "source": {"component": component},
        "reportingComponent": component,
        "reportingInstance": "",
        "firstTimestamp": now,
        "lastTimestamp": now,
        "count": 1,
    }


async def record_event(hub: Writer, event: dict[str, Any], *, controller: str, field_manager: str) -> None:
    """Create `event`; a failure is logged and swallowed (events are best effort)."""
    try:
        await hub.create(event, field_manager=field_manager, decode=False)
    except ClientError as error:
        log.info(
            "event.failed",
            controller=controller,
            reason=event.get("reason"),
            object=(event.get("involvedObject") or {}).get("name"),
            error=str(error),
        )
