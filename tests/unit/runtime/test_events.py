"""Events about objects: names that stay valid object names, and the fields kubectl describe reads."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

from flotilla.api.names import dns1123_subdomain_errors
from flotilla.api.times import format_time
from flotilla.runtime.events import WARNING, event_name, object_event


def test_an_event_is_named_after_its_object_with_random_hex() -> None:
    """`<name>.<16 hex digits>`, different each time."""
    first, second = event_name("nginx-deployment"), event_name("nginx-deployment")
    assert first.startswith("nginx-deployment.") and len(first) == len("nginx-deployment") + 17
    assert first != second


def test_the_event_of_an_object_with_a_253_character_name_is_still_a_valid_name() -> None:
    """The object's part is cut, and never left ending in `-` or `.` before the suffix."""
    for name in ("c" * 253, "a-" * 126 + "a", "a." * 126 + "a"):
        named = event_name(name)
        assert len(named) <= 253
        assert dns1123_subdomain_errors(named) == []
        assert named.startswith(name[:200])


def test_an_event_about_a_namespaced_object_names_it_and_lives_beside_it() -> None:
    """involvedObject carries the object's coordinates; cluster-scoped objects report in default."""
    config_map = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "app", "namespace": "shop", "uid": "u-1", "resourceVersion": "7"},
    }
    event = object_event(
        config_map, WARNING, "ApplyPolicyFailed", "it failed", component="resource-detector", now="T"
    )
    assert event["metadata"]["namespace"] == "shop"
    assert event["involvedObject"] == {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "name": "app",
        "namespace": "shop",
        "uid": "u-1",
        "resourceVersion": "7",
    }
    assert (event["type"], event["reason"], event["message"]) == ("Warning", "ApplyPolicyFailed", "it failed")
    assert event["source"] == {"component": "resource-detector"}
    cluster_role = {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "ClusterRole",
        "metadata": {"name": "r"},
    }
    scoped = object_event(cluster_role, WARNING, "X", "y", component="c", now="T")
    assert scoped["metadata"]["namespace"] == "default" and "namespace" not in scoped["involvedObject"]


def test_event_times_are_whole_seconds_in_utc() -> None:
    moment = datetime(2026, 3, 4, 5, 6, 7, 890000, tzinfo=timezone(timedelta(hours=2)))
    assert format_time(moment) == "2026-03-04T03:06:07Z"
    assert format_time(datetime(2026, 1, 1, tzinfo=UTC)) == "2026-01-01T00:00:00Z"
