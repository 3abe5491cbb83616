"""Editing a Cluster's shared taint list: only one's own taints, matched by key and effect."""

from __future__ import annotations

from datetime import UTC, datetime

from flotilla.api.karmada.clustertaints import describe_taints, taints_patch, updated_taints
from flotilla.api.karmada.model import Taint

NOW = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
USER = Taint(key="maintenance", value="planned", effect="NoSchedule")
NOT_READY = Taint(key="cluster.karmada.io/not-ready", effect="NoExecute")


def test_adding_appends_the_missing_taint_stamped_and_keeps_the_others() -> None:
    """A new taint goes last with timeAdded; taints already there (by key and effect) are not repeated."""
    updated = updated_taints([USER], [NOT_READY], [], NOW)
    assert updated == [USER, NOT_READY.model_copy(update={"time_added": "2026-03-01T12:00:00Z"})]
    assert updated_taints(updated, [NOT_READY.model_copy(update={"value": "other"})], [], NOW) is None


def test_removing_drops_by_key_and_effect_whatever_the_value() -> None:
    """The value is ignored when matching; a taint with another effect stays."""
    stamped = NOT_READY.model_copy(update={"value": "x", "time_added": "2026-01-01T00:00:00Z"})
    other_effect = NOT_READY.model_copy(update={"effect": "NoSchedule"})
    assert updated_taints([USER, stamped, other_effect], [], [NOT_READY], NOW) == [USER, other_effect]
    assert updated_taints([USER], [], [NOT_READY], NOW) is None


def test_the_patch_carries_the_resource_version_and_clears_an_empty_list() -> None:
    """The write is refused if the Cluster changed; no taints left writes null (omitempty)."""
    assert taints_patch("42", [USER]) == {
        "metadata": {"resourceVersion": "42"},
        "spec": {"taints": [{"key": "maintenance", "value": "planned", "effect": "NoSchedule"}]},
    }
    assert taints_patch("42", [])["spec"] == {"taints": None}


def test_taints_are_described_as_karmadas_events_list_them() -> None:
    """{Key:…,Value:…,Effect:…} joined by commas; none is said in words."""
    assert describe_taints([USER, NOT_READY]) == (
        "{Key:maintenance,Value:planned,Effect:NoSchedule},{Key:cluster.karmada.io/not-ready,Effect:NoExecute}"
    )
    assert describe_taints([]) == "cluster now does not have taints"
