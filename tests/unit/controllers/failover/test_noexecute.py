"""Karmada's taint manager arithmetic: which NoExecute taints evict now, later, or never."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from flotilla.api.times import format_time
from flotilla.controllers.failover.noexecute import Verdict, judge, no_execute_taints
from flotilla.runtime.clock import ManualClock

ADDED = ManualClock().now()
"""When the taints of these tests were added."""


def taint(
    key: str, *, value: str = "", seconds_ago: float = 0.0, effect: str = "NoExecute"
) -> dict[str, Any]:
    found: dict[str, Any] = {"key": key, "effect": effect, "timeAdded": format_time(ADDED)}
    if value:
        found["value"] = value
    return found


def toleration(key: str, seconds: int | None = None, **fields: str) -> dict[str, Any]:
    found: dict[str, Any] = {"key": key, "operator": "Exists", "effect": "NoExecute", **fields}
    if seconds is not None:
        found["tolerationSeconds"] = seconds
    return found


def at(seconds: float) -> Any:
    return ADDED + timedelta(seconds=seconds)


def test_an_untolerated_taint_evicts_at_once_and_names_the_taint() -> None:
    """No toleration for the taint: evict now, whatever other taints are tolerated."""
    judgement = judge([taint("ok"), taint("down", value="yes")], [toleration("ok")], at(0))
    assert judgement.verdict is Verdict.EVICT
    assert judgement.untolerated
    assert str(judgement.taint) == "down=yes:NoExecute"
    assert judgement.added == ADDED
    assert judgement.seconds_left(at(0)) is None


def test_a_toleration_without_seconds_tolerates_forever() -> None:
    """Karmada's fix for #7613: no tolerationSeconds means never evicted, however long the taint stays."""
    judgement = judge([taint("down")], [toleration("down")], at(10**6))
    assert judgement.verdict is Verdict.TOLERATE
    assert judgement.taint is None


def test_toleration_seconds_count_from_the_taints_time_added() -> None:
    """Tolerated for 30s from timeAdded: wait 20s at +10s, evict at +30s and after."""
    tolerations = [toleration("down", 30)]
    waiting = judge([taint("down")], tolerations, at(10))
    assert waiting.verdict is Verdict.WAIT
    assert waiting.expires == at(30)
    assert waiting.seconds_left(at(10)) == 20
    assert judge([taint("down")], tolerations, at(30)).verdict is Verdict.EVICT
    expired = judge([taint("down")], tolerations, at(31))
    assert expired.verdict is Verdict.EVICT
    assert not expired.untolerated
    assert expired.expires == at(30)


def test_the_earliest_ending_toleration_decides() -> None:
    """Two tolerated taints, 60s and 20s: the binding is evicted when the shorter one ends."""
    taints = [taint("slow"), taint("fast")]
    judgement = judge(taints, [toleration("slow", 60), toleration("fast", 20)], at(0))
    assert judgement.verdict is Verdict.WAIT
    assert judgement.taint is not None and judgement.taint.key == "fast"
    assert judgement.expires == at(20)


def test_a_timed_toleration_ends_even_when_a_forever_toleration_covers_another_taint() -> None:
    """A forever toleration of one taint does not stretch the timed toleration of another."""
    judgement = judge([taint("kept"), taint("timed")], [toleration("kept"), toleration("timed", 5)], at(6))
    assert judgement.verdict is Verdict.EVICT
    assert judgement.taint is not None and judgement.taint.key == "timed"


def test_zero_toleration_seconds_evict_at_once() -> None:
    assert judge([taint("down")], [toleration("down", 0)], at(0)).verdict is Verdict.EVICT


def test_a_taint_without_time_added_starts_no_clock() -> None:
    """As in Karmada; the API server stamps timeAdded, so only a hand-built object lacks it."""
    bare = {"key": "down", "effect": "NoExecute"}
    assert judge([bare], [toleration("down", 5)], at(100)).verdict is Verdict.TOLERATE


def test_tolerations_match_with_kubes_rules() -> None:
    """Equal needs the value; an empty key with Exists tolerates every taint; an effect must match."""
    valued = taint("down", value="hard")
    assert judge([valued], [{"key": "down", "operator": "Equal", "value": "soft"}], at(0)).untolerated
    assert judge([valued], [{"key": "down", "value": "hard"}], at(0)).verdict is Verdict.TOLERATE
    assert judge([valued], [{"operator": "Exists"}], at(0)).verdict is Verdict.TOLERATE
    no_schedule_only = [{"key": "down", "operator": "Exists", "effect": "NoSchedule"}]
    assert judge([valued], no_schedule_only, at(0)).untolerated


def test_no_taints_are_tolerated() -> None:
    assert judge([], [], at(0)).verdict is Verdict.TOLERATE


def test_only_no_execute_taints_of_a_cluster_count() -> None:
    cluster = {"spec": {"taints": [taint("a", effect="NoSchedule"), taint("b"), "junk"]}}
    assert [t["key"] for t in no_execute_taints(cluster)] == ["b"]
    assert no_execute_taints({}) == []
