"""`--taint CLUSTER=KEY[=VALUE]:EFFECT`: reading it with kubectl's errors, and laying it on the Clusters."""

from __future__ import annotations

import pytest

from flotilla.cli.membership.taints import TaintSpec
from flotilla.cli.planning.taints import (
    ClusterTaint,
    TaintArgumentError,
    check_clusters,
    parse_cluster_taint,
    parse_cluster_taints,
    tainted_clusters,
)
from tests.unit.cli.planning.taintworld import NOW, cluster


def test_a_taint_names_its_cluster_before_the_first_equals_sign() -> None:
    """`member2=key=value:Effect` and `member2=key:Effect`: the part after the cluster is kubectl taint's."""
    assert parse_cluster_taint("member2=dedicated=gpu:NoExecute") == ClusterTaint(
        "member2", TaintSpec("dedicated", "gpu", "NoExecute")
    )
    assert parse_cluster_taint("member2=example.com/maintenance:NoSchedule") == ClusterTaint(
        "member2", TaintSpec("example.com/maintenance", "", "NoSchedule")
    )


@pytest.mark.parametrize(
    ("argument", "message"),
    [
        (
            "maintenance:NoExecute",
            'invalid --taint "maintenance:NoExecute": expected CLUSTER=KEY[=VALUE]:EFFECT',
        ),
        ("=maintenance:NoExecute", "expected CLUSTER=KEY[=VALUE]:EFFECT"),
        ("member2=", "expected CLUSTER=KEY[=VALUE]:EFFECT"),
        ("member2=maintenance:NoRun", "invalid taint effect: NoRun, unsupported taint effect"),
        ("member2=maintenance", "invalid taint spec: maintenance, an effect is required"),
        ("member2=a:b:NoExecute", "invalid taint spec: a:b:NoExecute"),
        ("member2=bad key:NoExecute", "invalid taint spec: bad key:NoExecute"),
        ("member2=k=v=w:NoExecute", "invalid taint spec: k=v=w:NoExecute"),
    ],
)
def test_a_bad_taint_is_refused_with_kubectls_words(argument: str, message: str) -> None:
    """The syntax errors are `kubectl taint`'s, prefixed with the argument."""
    with pytest.raises(TaintArgumentError) as caught:
        parse_cluster_taint(argument)
    assert str(caught.value).startswith(f'invalid --taint "{argument}": ')
    assert message in str(caught.value)


def test_the_same_taint_twice_on_one_cluster_is_refused() -> None:
    """Same cluster, key and effect twice is ambiguous; on two clusters it is two taints."""
    with pytest.raises(TaintArgumentError, match="duplicated taints with the same key and effect"):
        parse_cluster_taints(["member2=m=a:NoExecute", "member2=m=b:NoExecute"])
    assert len(parse_cluster_taints(["member1=m:NoExecute", "member2=m:NoExecute"])) == 2


def test_a_cluster_the_hub_does_not_have_is_named() -> None:
    """The error says which cluster and which the hub has."""
    with pytest.raises(TaintArgumentError) as caught:
        check_clusters(parse_cluster_taints(["member9=m:NoExecute"]), ["member2", "member1"])
    assert str(caught.value) == (
        'invalid --taint "member9=m:NoExecute": cluster "member9" not found (the hub has member1, member2)'
    )


def test_a_new_no_execute_taint_is_stamped_now_and_the_rest_is_kept() -> None:
    """As the API server stores it: `timeAdded` on NoExecute only; other taints and clusters unchanged."""
    existing = {"key": "other", "effect": "NoSchedule"}
    clusters = [cluster("member1", "a"), cluster("member2", "a", [existing])]
    taints = parse_cluster_taints(["member2=maintenance:NoExecute", "member2=disk:NoSchedule"])
    tainted, laid = tainted_clusters(clusters, taints, NOW)
    assert tainted[0] == clusters[0]
    assert tainted[1]["spec"]["taints"] == [
        {"key": "maintenance", "effect": "NoExecute", "timeAdded": "2026-12-02T04:00:00Z"},
        {"key": "disk", "effect": "NoSchedule"},
        existing,
    ]
    assert [item.new for item in laid] == [True, True]
    assert clusters[1]["spec"]["taints"] == [existing]  # the hub's objects are not touched


def test_the_same_taint_keeps_its_time_and_a_new_value_replaces_the_old() -> None:
    """The very same taint keeps `timeAdded` and is not new; a new value for key and effect starts again."""
    old = {"key": "maintenance", "value": "a", "effect": "NoExecute", "timeAdded": "2026-12-01T00:00:00Z"}
    clusters = [cluster("member2", "a", [old])]
    same, laid = tainted_clusters(clusters, parse_cluster_taints(["member2=maintenance=a:NoExecute"]), NOW)
    assert same[0]["spec"]["taints"] == [old]
    assert [item.new for item in laid] == [False]
    changed, laid = tainted_clusters(clusters, parse_cluster_taints(["member2=maintenance=b:NoExecute"]), NOW)
    assert changed[0]["spec"]["taints"] == [
        {"key": "maintenance", "value": "b", "effect": "NoExecute", "timeAdded": "2026-12-02T04:00:00Z"}
    ]
    assert [item.new for item in laid] == [True]
