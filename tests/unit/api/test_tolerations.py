"""Tolerations tolerate taints by kube's `ToleratesTaint`, for Karmada's clusters and simulated nodes."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from flotilla.api.tolerations import (
    NO_EXECUTE,
    Taint,
    Toleration,
    expired_toleration,
    taints_of,
    tolerates,
    toleration_end,
    tolerations_of,
    untolerated,
    untolerated_taint,
)


@pytest.mark.parametrize(
    ("toleration", "taint", "expected"),
    [
        (Toleration("k", "Equal", "v", "NoSchedule"), Taint("k", "v", "NoSchedule"), True),
        (Toleration("k", "", "v", ""), Taint("k", "v", "NoExecute"), True),
        (Toleration("k", "Equal", "w", "NoSchedule"), Taint("k", "v", "NoSchedule"), False),
        (Toleration("k", "Exists", "", "NoSchedule"), Taint("k", "anything", "NoSchedule"), True),
        (Toleration("", "Exists", "", ""), Taint("any", "x", "NoExecute"), True),
        (Toleration("", "Equal", "x", ""), Taint("any", "x", "NoExecute"), True),
        (Toleration("k", "Exists", "", "NoExecute"), Taint("k", "", "NoSchedule"), False),
        (Toleration("other", "Exists", "", ""), Taint("k", "", "NoSchedule"), False),
        (Toleration("k", "Lt", "5", ""), Taint("k", "1", "NoSchedule"), False),
        (Toleration("k", "exists", "", ""), Taint("k", "", "NoSchedule"), False),
    ],
)
def test_toleration_matching_follows_kube(toleration: Toleration, taint: Taint, expected: bool) -> None:
    """Effect, then key, then the operator: Exists any value, Equal or none the same value, others nothing."""
    assert toleration.tolerates(taint) is expected


@pytest.mark.parametrize(
    ("toleration", "expected"),
    [
        ({"key": "k", "operator": "Equal", "value": "v", "effect": "NoSchedule"}, True),
        ({"key": "k", "value": "v"}, True),
        ({"key": "k", "operator": "Exists"}, True),
        ({"operator": "Exists"}, True),
        ({"key": "k", "value": "other"}, False),
        ({"key": "k", "operator": "Exists", "effect": "NoExecute"}, False),
        ({"key": "other", "operator": "Exists"}, False),
        ({"key": "k", "value": None, "operator": None}, False),
    ],
)
def test_tolerations_of_json_read_absent_and_null_fields_as_empty(
    toleration: dict[str, str], expected: bool
) -> None:
    """A pod's JSON toleration reads as its typed form; `null` and absent are both empty."""
    taint = {"key": "k", "value": "v", "effect": "NoSchedule"}
    (typed,) = tolerations_of([toleration])
    assert typed.tolerates(Taint.from_object(taint)) is expected
    assert tolerates(toleration, taint) is expected


def test_the_first_untolerated_filtered_taint_is_returned() -> None:
    """PreferNoSchedule only scores; the first NoSchedule/NoExecute taint nothing tolerates is the answer."""
    taints = taints_of(
        [
            {"key": "soft", "effect": "PreferNoSchedule"},
            {"key": "gpu", "value": "true", "effect": "NoSchedule"},
            {"key": "node.kubernetes.io/unreachable", "effect": "NoExecute"},
            "not a taint",
        ]
    )
    assert untolerated_taint(taints, ()) == Taint("gpu", "true", "NoSchedule")
    tolerant = tolerations_of([{"key": "gpu", "operator": "Exists"}])
    assert untolerated_taint(taints, tolerant) == Taint("node.kubernetes.io/unreachable", "", "NoExecute")
    assert untolerated_taint(taints, tolerant, (NO_EXECUTE,)) == Taint(
        "node.kubernetes.io/unreachable", "", "NoExecute"
    )
    assert untolerated_taint(taints, tolerations_of([{"operator": "Exists"}])) is None


def test_json_taints_are_filtered_as_the_typed_ones() -> None:
    """`untolerated` answers on a node's and a pod's JSON what `untolerated_taint` answers on typed ones."""
    taints = [
        {"key": "soft", "effect": "PreferNoSchedule"},
        {"key": "gpu", "value": "true", "effect": "NoSchedule"},
        {"key": "node.kubernetes.io/unreachable", "effect": "NoExecute"},
    ]
    assert untolerated(taints, None) == taints[1]
    assert untolerated(taints, [{"key": "gpu", "operator": "Exists"}, "junk"]) == taints[2]
    assert untolerated(taints, [{"operator": "Exists"}]) is None
    assert untolerated(None, None) is None


@pytest.mark.parametrize(
    ("taint", "written"),
    [
        (Taint("k", "v", "NoSchedule"), "k=v:NoSchedule"),
        (Taint("k", "", "NoSchedule"), "k:NoSchedule"),
        (Taint("k", "v", ""), "k=v:"),
        (Taint("k", "", ""), "k"),
    ],
)
def test_a_taint_prints_as_kube_taint_to_string(taint: Taint, written: str) -> None:
    """`Taint.ToString()`: empty parts left out, which the schedulers' reasons quote."""
    assert str(taint) == written


_FIELD = st.sampled_from(["", "k", "v", "NoSchedule", "NoExecute"])


@given(_FIELD, _FIELD, st.sampled_from(["", "Equal", "Exists", "Lt"]), _FIELD, _FIELD, _FIELD, _FIELD)
def test_exists_tolerates_at_least_what_equal_tolerates(
    key: str, value: str, operator: str, effect: str, taint_key: str, taint_value: str, taint_effect: str
) -> None:
    """Relaxing Equal to Exists never loses a taint, nor an empty effect or key; JSON reads as typed."""
    taint = Taint(taint_key, taint_value, taint_effect)
    toleration = Toleration(key, operator, value, effect)
    as_json = {"key": key, "operator": operator, "value": value, "effect": effect}
    assert tolerates(as_json, {"key": taint_key, "value": taint_value, "effect": taint_effect}) is (
        toleration.tolerates(taint)
    )
    if toleration.tolerates(taint):
        assert Toleration(key, "Exists", "", effect).tolerates(taint)
        assert Toleration(key, operator, value, "").tolerates(taint)
    if operator == "Exists" and toleration.tolerates(taint):
        assert Toleration("", "Exists", "", effect).tolerates(taint)


# --- how long NoExecute taints are tolerated -----------------------------------------------------------

ADDED = datetime(2026, 1, 1, tzinfo=UTC)


def timed(key: str, seconds: int | None) -> Toleration:
    return Toleration(key, "Exists", "", NO_EXECUTE, seconds)


def test_time_added_and_toleration_seconds_are_read_from_json() -> None:
    """`timeAdded` as a time, `tolerationSeconds` as an integer; odd values read as absent."""
    taint = Taint.from_object({"key": "k", "effect": NO_EXECUTE, "timeAdded": "2026-01-01T00:00:00Z"})
    assert taint.time_added == ADDED
    assert Taint.from_object({"key": "k", "timeAdded": "yesterday"}).time_added is None
    (toleration, flag, text) = tolerations_of(
        [{"key": "k", "tolerationSeconds": 30}, {"tolerationSeconds": True}, {"tolerationSeconds": "30"}]
    )
    assert (toleration.toleration_seconds, flag.toleration_seconds, text.toleration_seconds) == (
        30,
        None,
        None,
    )


def test_a_toleration_ends_its_seconds_after_the_taint_was_added() -> None:
    """Expired at exactly +30s and after, running before."""
    taints = [Taint("k", "", NO_EXECUTE, ADDED)]
    end = toleration_end(taints, [timed("k", 30)])
    assert end is not None and (end.taint.key, end.added, end.expires) == (
        "k",
        ADDED,
        ADDED + timedelta(seconds=30),
    )
    assert expired_toleration(taints, [timed("k", 30)], ADDED + timedelta(seconds=29)) is None
    assert expired_toleration(taints, [timed("k", 30)], ADDED + timedelta(seconds=30)) == end


def test_the_first_matching_toleration_is_the_one_used() -> None:
    """As Karmada's taint manager: a later toleration without seconds does not stretch the first one."""
    taints = [Taint("k", "", NO_EXECUTE, ADDED)]
    assert toleration_end(taints, [timed("k", 5), timed("k", None)]) is not None
    assert toleration_end(taints, [timed("k", None), timed("k", 5)]) is None


def test_no_clock_runs_without_seconds_time_added_or_a_no_execute_taint() -> None:
    assert toleration_end([Taint("k", "", NO_EXECUTE, ADDED)], [timed("k", None)]) is None
    assert toleration_end([Taint("k", "", NO_EXECUTE)], [timed("k", 5)]) is None
    no_schedule = Taint("k", "", "NoSchedule", ADDED)
    assert toleration_end([no_schedule], [Toleration("k", "Exists", toleration_seconds=5)]) is None
    assert toleration_end([Taint("other", "", NO_EXECUTE, ADDED)], [timed("k", 5)]) is None


def test_the_earliest_end_over_every_taint_a_used_toleration_tolerates_counts() -> None:
    """One toleration for every key: it ends first for the taint added first."""
    later = Taint("b", "", NO_EXECUTE, ADDED + timedelta(seconds=10))
    earlier = Taint("a", "", NO_EXECUTE, ADDED)
    end = toleration_end([later, earlier], [Toleration("", "Exists", "", NO_EXECUTE, 60)])
    assert end is not None and end.taint == earlier and end.expires == ADDED + timedelta(seconds=60)
