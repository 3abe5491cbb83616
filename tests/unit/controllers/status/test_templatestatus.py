"""The template status change as a merge patch: changed fields, and nulls for removed ones."""

from __future__ import annotations

from flotilla.controllers.status.templatestatus import merge_patch, status_patch


def test_changed_and_removed_counters_are_patched() -> None:
    """A new count is set; a counter that dropped to zero (and was omitted) is nulled."""
    template = {
        "status": {"replicas": 2, "readyReplicas": 1, "unavailableReplicas": 1, "observedGeneration": 3}
    }
    aggregated = {"status": {"replicas": 2, "readyReplicas": 2, "observedGeneration": 3}}
    assert status_patch(template, aggregated) == {"status": {"readyReplicas": 2, "unavailableReplicas": None}}


def test_an_unchanged_status_needs_no_patch() -> None:
    """Equal statuses (or none on either side) mean no write."""
    assert status_patch({"status": {"replicas": 1}}, {"status": {"replicas": 1}}) is None
    assert status_patch({}, {"status": {}}) is None


def test_nested_objects_are_diffed_and_lists_replaced() -> None:
    """Objects recurse; lists (load balancer ingress) are replaced whole."""
    old = {"loadBalancer": {"ingress": [{"ip": "1.1.1.1"}]}, "x": {"a": 1, "b": 2}}
    new = {"loadBalancer": {"ingress": [{"ip": "1.1.1.1"}, {"ip": "2.2.2.2"}]}, "x": {"a": 1}}
    assert merge_patch(old, new) == {
        "loadBalancer": {"ingress": [{"ip": "1.1.1.1"}, {"ip": "2.2.2.2"}]},
        "x": {"b": None},
    }


def test_a_stale_template_does_not_keep_a_field_the_last_write_added() -> None:
    """The template lags our write that added unavailableReplicas: the next patch nulls it anyway."""
    stale = {"status": {"replicas": 3, "readyReplicas": 2}}
    written = {"replicas": 3, "readyReplicas": 2, "unavailableReplicas": 1}
    aggregated = {"status": {"replicas": 3, "readyReplicas": 3}}
    assert status_patch(stale, aggregated, written) == {
        "status": {"unavailableReplicas": None, "replicas": 3, "readyReplicas": 3}
    }


def test_what_was_last_written_needs_no_write_and_a_stale_look_alike_does() -> None:
    """Writing the same again is skipped; a template that only looks right while lagging is rewritten."""
    aggregated = {"status": {"replicas": 1}}
    assert status_patch({"status": {"replicas": 2}}, aggregated, {"replicas": 1}) is None
    assert status_patch({"status": {"replicas": 1}}, aggregated, {"replicas": 2}) == {
        "status": {"replicas": 1}
    }
