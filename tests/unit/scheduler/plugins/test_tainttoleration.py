"""TaintToleration: NoSchedule/NoExecute taints keep out bindings that do not tolerate them."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from flotilla.scheduler.plugins.tainttoleration import TaintToleration
from tests.unit.scheduler.manifests import binding, cluster

UNREACHABLE = {"key": "cluster.karmada.io/unreachable", "effect": "NoSchedule"}


def test_untolerated_noschedule_taint_rejects_with_the_taint_in_the_reason() -> None:
    """The reason names the taint as kube prints it: `{key:effect}`."""
    result = TaintToleration().filter(binding(replicas=1), cluster("a", taints=[UNREACHABLE]))
    assert result.reasons == ("cluster(s) had untolerated taint {cluster.karmada.io/unreachable:NoSchedule}",)


def test_taint_with_a_value_prints_key_value_effect() -> None:
    """A valued taint reads `{key=value:effect}`."""
    taint = {"key": "dedicated", "value": "gpu", "effect": "NoExecute"}
    result = TaintToleration().filter(binding(replicas=1), cluster("a", taints=[taint]))
    assert result.reasons == ("cluster(s) had untolerated taint {dedicated=gpu:NoExecute}",)


def test_prefer_no_schedule_taints_are_ignored() -> None:
    """PreferNoSchedule is advice, not a filter."""
    taint = {"key": "busy", "effect": "PreferNoSchedule"}
    assert TaintToleration().filter(binding(replicas=1), cluster("a", taints=[taint])).is_success


def test_matching_toleration_lets_the_binding_in() -> None:
    """A placement toleration for the key and effect admits the cluster."""
    placement = {
        "clusterTolerations": [{"key": UNREACHABLE["key"], "operator": "Exists", "effect": "NoSchedule"}]
    }
    result = TaintToleration().filter(
        binding(replicas=1, placement=placement), cluster("a", taints=[UNREACHABLE])
    )
    assert result.is_success


def test_cluster_already_in_the_result_passes_despite_a_new_taint() -> None:
    """Evicting from a newly tainted cluster is the taint manager's call, not the scheduler's."""
    result = TaintToleration().filter(
        binding(replicas=1, clusters={"a": 1}), cluster("a", taints=[UNREACHABLE])
    )
    assert result.is_success


# --- NoExecute tolerations with tolerationSeconds ------------------------------------------------------

ADDED = datetime(2026, 1, 1, tzinfo=UTC)
OUTAGE = {"key": "outage", "effect": "NoExecute", "timeAdded": "2026-01-01T00:00:00Z"}


def tolerating(seconds: int | None) -> dict[str, Any]:
    toleration: dict[str, Any] = {"key": "outage", "operator": "Exists", "effect": "NoExecute"}
    if seconds is not None:
        toleration["tolerationSeconds"] = seconds
    return {"clusterTolerations": [toleration]}


def at(seconds: float) -> datetime:
    return ADDED + timedelta(seconds=seconds)


def test_a_no_execute_toleration_whose_seconds_ran_out_no_longer_admits_a_new_cluster() -> None:
    """Tolerated for 2s from timeAdded: at +2s and after, the cluster counts as untolerated, so a binding
    the taint manager evicted is not placed straight back."""
    for now in (at(2), at(3600)):
        result = TaintToleration().filter(
            binding(replicas=1, placement=tolerating(2), now=now), cluster("a", taints=[OUTAGE])
        )
        assert result.reasons == ("cluster(s) had taint {outage:NoExecute} whose toleration ran out",)


def test_a_toleration_still_running_admits_the_cluster() -> None:
    """Before the seconds are up the cluster is tolerated; the taint manager evicts when they are."""
    result = TaintToleration().filter(
        binding(replicas=1, placement=tolerating(2), now=at(1.5)), cluster("a", taints=[OUTAGE])
    )
    assert result.is_success


def test_a_toleration_without_seconds_admits_the_cluster_forever() -> None:
    result = TaintToleration().filter(
        binding(replicas=1, placement=tolerating(None), now=at(10**7)), cluster("a", taints=[OUTAGE])
    )
    assert result.is_success


def test_a_cluster_in_the_result_passes_after_its_toleration_ran_out() -> None:
    """Evicting is still the taint manager's business, not the filter's."""
    result = TaintToleration().filter(
        binding(replicas=1, placement=tolerating(2), clusters={"a": 1}, now=at(60)),
        cluster("a", taints=[OUTAGE]),
    )
    assert result.is_success


def test_without_a_clock_no_toleration_runs_out() -> None:
    """A binding read without `now` (no round time given) matches tolerations as Karmada does."""
    result = TaintToleration().filter(
        binding(replicas=1, placement=tolerating(2)), cluster("a", taints=[OUTAGE])
    )
    assert result.is_success


def test_seconds_count_only_for_no_execute_taints() -> None:
    """A NoSchedule taint tolerated by a toleration with seconds stays tolerated: the seconds bound
    NoExecute only."""
    taint = {"key": "outage", "effect": "NoSchedule"}
    placement = {"clusterTolerations": [{"key": "outage", "operator": "Exists", "tolerationSeconds": 1}]}
    result = TaintToleration().filter(
        binding(replicas=1, placement=placement, now=at(60)), cluster("a", taints=[taint])
    )
    assert result.is_success
