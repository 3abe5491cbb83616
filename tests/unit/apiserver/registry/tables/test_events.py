from datetime import UTC, datetime
from typing import Any

from flotilla.apiserver.registry.tables.events import EVENT, as_core_event

NOW = datetime(2025, 3, 1, 12, 0, 0, tzinfo=UTC)


def core_event(**fields: Any) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {"name": "web-7d9.17f3", "namespace": "default"},
        "involvedObject": {"kind": "Pod", "name": "web-7d9", "fieldPath": "spec.containers{web}"},
        "reason": "Pulled",
        "message": 'Successfully pulled image "nginx"\n',
        "source": {"component": "kubelet", "host": "node-1"},
        "type": "Normal",
        **fields,
    }


def test_columns_put_name_last_and_only_in_wide_output() -> None:
    """Events print LAST SEEN TYPE REASON OBJECT MESSAGE; the other five columns, name last, are wide."""
    assert [(column.name, column.priority) for column in EVENT.columns] == [
        ("Last Seen", 0),
        ("Type", 0),
        ("Reason", 0),
        ("Object", 0),
        ("Subobject", 1),
        ("Source", 1),
        ("Message", 0),
        ("First Seen", 1),
        ("Count", 1),
        ("Name", 1),
    ]


def test_core_event_row() -> None:
    """A kubelet event shows ages, lower-cased kind/name, trimmed message and `component, host` source."""
    event = core_event(firstTimestamp="2025-03-01T11:00:00Z", lastTimestamp="2025-03-01T11:58:00Z", count=4)
    assert EVENT.cells(event, NOW) == [
        "2m",
        "Normal",
        "Pulled",
        "pod/web-7d9",
        "spec.containers{web}",
        "kubelet, node-1",
        'Successfully pulled image "nginx"',
        "60m",
        4,
        "web-7d9.17f3",
    ]


def test_new_style_event_uses_event_time_series_and_reporting_fields() -> None:
    """Without old timestamps the event time is used; a series sets last seen and count."""
    event = core_event(
        eventTime="2025-03-01T11:50:00.000000Z", reportingComponent="scheduler", reportingInstance=""
    )
    del event["source"]
    row = EVENT.cells(event, NOW)
    assert (row[0], row[5], row[7], row[8]) == ("10m", "scheduler", "10m", 1)
    event["series"] = {"count": 7, "lastObservedTime": "2025-03-01T11:59:30.000000Z"}
    assert EVENT.cells(event, NOW)[0] == "30s"
    assert EVENT.cells(event, NOW)[8] == 7


def test_events_api_object_is_printed_like_its_core_form() -> None:
    """An events.k8s.io/v1 event maps `regarding`, `note` and `deprecated*` onto the core fields."""
    event = {
        "apiVersion": "events.k8s.io/v1",
        "kind": "Event",
        "metadata": {"name": "e1"},
        "regarding": {"kind": "Deployment", "name": "web"},
        "note": "Scaled up replica set web-7d9 to 3",
        "reason": "ScalingReplicaSet",
        "type": "Normal",
        "reportingController": "deployment-controller",
        "deprecatedFirstTimestamp": "2025-03-01T11:00:00Z",
        "deprecatedLastTimestamp": "2025-03-01T11:30:00Z",
        "deprecatedCount": 2,
    }
    assert as_core_event(event)["involvedObject"] == {"kind": "Deployment", "name": "web"}
    assert EVENT.cells(event, NOW) == [
        "30m",
        "Normal",
        "ScalingReplicaSet",
        "deployment/web",
        "",
        "deployment-controller",
        "Scaled up replica set web-7d9 to 3",
        "60m",
        2,
        "e1",
    ]


def test_event_about_a_kind_without_name_and_without_times() -> None:
    """An event without object name shows just the kind; missing times are `<unknown>`."""
    event = {"metadata": {"name": "e"}, "involvedObject": {"kind": "Node"}, "count": 0}
    assert EVENT.cells(event, NOW)[:4] == ["<unknown>", "", "", "node"]
