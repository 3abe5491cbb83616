"""TaintToleration: NoSchedule/NoExecute taints keep out bindings that do not tolerate them."""

from __future__ import annotations

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
