"""Built-in kinds' timestamps are re-encoded as kube-apiserver stores them: UTC, `Z`, Time in whole
seconds and MicroTime with six fractional digits; what Go cannot parse is reported, never stored."""

from __future__ import annotations

from typing import Any

import pytest

from flotilla.api.scheme import GroupVersionKind
from flotilla.apiserver.registry.schema.builtin import builtin_schemas
from flotilla.apiserver.registry.schema.model import Schema
from flotilla.apiserver.writes.timestamps import (
    MICRO_TIME,
    TIME,
    kind_timestamp_plan,
    reencode_timestamps,
    timestamp_plan,
)

OBJECT_META = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"


def schema_of(group: str, version: str, kind: str) -> Schema:
    found = builtin_schemas().for_kind(GroupVersionKind(group, version, kind))
    assert found is not None
    return found


def reencoded(obj: dict[str, Any], schema: Schema, old: dict[str, Any] | None = None) -> list[str]:
    return reencode_timestamps(obj, schema, builtin_schemas().definition(OBJECT_META), old)


def core_event(**fields: Any) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Event", "metadata": {"name": "e", "namespace": "default"}, **fields}


def test_core_event_times_are_stored_in_utc_with_z() -> None:
    """firstTimestamp/lastTimestamp are Time (seconds); eventTime and series are MicroTime."""
    event = core_event(
        firstTimestamp="2026-01-01T10:00:00+02:00",
        lastTimestamp="2026-01-01T10:00:00.987654+00:00",
        eventTime="2026-01-01T10:00:00+00:00",
        series={"count": 2, "lastObservedTime": "2026-01-01T09:30:00.5-01:00"},
    )

    assert reencoded(event, schema_of("", "v1", "Event")) == []

    assert event["firstTimestamp"] == "2026-01-01T08:00:00Z"
    assert event["lastTimestamp"] == "2026-01-01T10:00:00Z"
    assert event["eventTime"] == "2026-01-01T10:00:00.000000Z"
    assert event["series"] == {"count": 2, "lastObservedTime": "2026-01-01T10:30:00.500000Z"}


def test_events_api_event_and_lease_use_micro_time_where_kube_does() -> None:
    """events.k8s.io Event's eventTime and a Lease's renew and acquire times keep microseconds."""
    event = {
        "metadata": {"name": "e"},
        "eventTime": "2026-03-04T05:06:07.123456789+00:00",
        "deprecatedFirstTimestamp": "2026-03-04T05:06:07.9Z",
    }
    lease = {"metadata": {"name": "l"}, "spec": {"renewTime": "2026-03-04T05:06:07+00:00"}}

    assert reencoded(event, schema_of("events.k8s.io", "v1", "Event")) == []
    assert reencoded(lease, schema_of("coordination.k8s.io", "v1", "Lease")) == []

    assert event["eventTime"] == "2026-03-04T05:06:07.123456Z"
    assert event["deprecatedFirstTimestamp"] == "2026-03-04T05:06:07Z"
    assert lease["spec"]["renewTime"] == "2026-03-04T05:06:07.000000Z"


def test_times_deep_in_lists_and_metadata_are_reencoded() -> None:
    """Pod conditions, container states and managedFields times are all reached."""
    pod: dict[str, Any] = {
        "metadata": {
            "name": "p",
            "managedFields": [{"manager": "m", "operation": "Update", "time": "2026-01-01T00:00:00+00:00"}],
        },
        "spec": {"containers": [{"name": "c", "image": "i"}]},
        "status": {
            "startTime": "2026-01-01T01:00:00+01:00",
            "conditions": [
                {"type": "Ready", "status": "True", "lastTransitionTime": "2026-01-01T00:00:00-00:30"}
            ],
            "containerStatuses": [
                {"name": "c", "state": {"running": {"startedAt": "2026-01-01T00:00:01+00:00"}}}
            ],
        },
    }

    assert reencoded(pod, schema_of("", "v1", "Pod")) == []

    assert pod["metadata"]["managedFields"][0]["time"] == "2026-01-01T00:00:00Z"
    assert pod["status"]["startTime"] == "2026-01-01T00:00:00Z"
    assert pod["status"]["conditions"][0]["lastTransitionTime"] == "2026-01-01T00:30:00Z"
    assert pod["status"]["containerStatuses"][0]["state"]["running"]["startedAt"] == "2026-01-01T00:00:01Z"


@pytest.mark.parametrize("value", ["2026-13-01T00:00:00Z", "yesterday", "", "null", "2026-01-01 10:00:00Z"])
def test_an_unreadable_time_is_reported_with_its_path_and_go_layout(value: str) -> None:
    """Go's time.Parse reads none of these (not even "" or "null"); the report quotes as Go does."""
    event = core_event(firstTimestamp=value)

    problems = reencoded(event, schema_of("", "v1", "Event"))

    assert problems == [
        f'firstTimestamp: parsing time "{value}" as "2006-01-02T15:04:05Z07:00": not an RFC 3339 date-time'
    ]
    assert event["firstTimestamp"] == value


def test_an_unreadable_micro_time_names_the_micro_time_layout() -> None:
    """The layout in the report is the field's own: MicroTime's has six fractional digits."""
    problems = reencoded(core_event(eventTime="soon"), schema_of("", "v1", "Event"))

    assert problems == [
        'eventTime: parsing time "soon" as "2006-01-02T15:04:05.000000Z07:00": not an RFC 3339 date-time'
    ]


def test_a_value_unchanged_since_it_was_stored_is_left_alone() -> None:
    """A patch re-encodes what it changed; a stored value it did not touch is not judged again."""
    old = core_event(firstTimestamp="stored long ago", lastTimestamp="2026-01-01T00:00:00Z")
    new = core_event(firstTimestamp="stored long ago", lastTimestamp="2026-01-01T02:00:00+02:00")

    assert reencoded(new, schema_of("", "v1", "Event"), old) == []

    assert new["firstTimestamp"] == "stored long ago"
    assert new["lastTimestamp"] == "2026-01-01T00:00:00Z"


def test_a_kind_without_timestamps_is_walked_only_in_metadata() -> None:
    """A ConfigMap's own fields hold no timestamp, so its plan is empty; ObjectMeta's has three."""
    metadata_plan = timestamp_plan(builtin_schemas().definition(OBJECT_META))

    assert kind_timestamp_plan(schema_of("", "v1", "ConfigMap")) is None
    assert metadata_plan is not None
    assert set(metadata_plan.fields) == {"creationTimestamp", "deletionTimestamp", "managedFields"}
    managed = metadata_plan.fields["managedFields"].items
    assert managed is not None and managed.fields["time"].leaf is TIME


def test_recursive_schemas_are_planned() -> None:
    """A CRD's schema type refers to itself; planning it ends, and finds its conditions' times."""
    plan = timestamp_plan(schema_of("apiextensions.k8s.io", "v1", "CustomResourceDefinition"))

    assert plan is not None
    conditions = plan.fields["status"].fields["conditions"].items
    assert conditions is not None and conditions.fields["lastTransitionTime"].leaf is TIME
    lease = timestamp_plan(schema_of("coordination.k8s.io", "v1", "Lease"))
    assert lease is not None and lease.fields["spec"].fields["renewTime"].leaf is MICRO_TIME
