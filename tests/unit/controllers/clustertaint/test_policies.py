"""A Cluster's taints under ClusterTaintPolicies: Karmada's add, remove, order and selection rules."""

from __future__ import annotations

from typing import Any

from flotilla.api.karmada.model import Taint
from flotilla.controllers.clustertaint.policies import ordered_policies, policy_taints
from flotilla.runtime.clock import ManualClock

NOW = ManualClock().now()
STAMP = "2026-01-01T00:00:00Z"
NOT_READY = {"key": "cluster.karmada.io/not-ready", "effect": "NoExecute"}
UNREACHABLE = {"key": "cluster.karmada.io/unreachable", "effect": "NoExecute"}
USER = {"key": "maintenance", "value": "planned", "effect": "NoSchedule"}
NOT_READY_TEST = {"conditionType": "Ready", "operator": "NotIn", "statusValues": ["True"]}
READY_TEST = {"conditionType": "Ready", "operator": "In", "statusValues": ["True"]}


def cluster(
    name: str = "member1", *, ready: str = "False", taints: Any = (), **labels: str
) -> dict[str, Any]:
    condition = {"type": "Ready", "status": ready, "reason": "R", "message": "m", "lastTransitionTime": STAMP}
    return {
        "metadata": {"name": name, "labels": labels, "resourceVersion": "7"},
        "spec": {"syncMode": "Push", "taints": [dict(t) for t in taints]},
        "status": {"conditions": [condition]},
    }


def policy(
    name: str = "p",
    *,
    created: str = STAMP,
    add: Any = (NOT_READY_TEST,),
    remove: Any = (READY_TEST,),
    taints: Any = (NOT_READY,),
    target: dict[str, Any] | None = None,
) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "addOnConditions": list(add),
        "removeOnConditions": list(remove),
        "taints": [dict(t) for t in taints],
    }
    if target is not None:
        spec["targetClusters"] = target
    return {"metadata": {"name": name, "creationTimestamp": created}, "spec": spec}


def keys(taints: list[Taint] | None) -> list[tuple[str, str]]:
    assert taints is not None
    return [(t.key, t.effect) for t in taints]


def test_taints_are_added_stamped_while_the_add_conditions_hold() -> None:
    """A NotReady cluster gets the policy's NoExecute taint after the user's, with timeAdded."""
    taints = policy_taints(cluster(taints=[USER]), ordered_policies([policy()]), NOW)
    assert taints == [Taint(**USER), Taint(**NOT_READY, time_added="2026-01-01T00:00:00Z")]


def test_taints_are_removed_while_the_remove_conditions_hold_and_others_stay() -> None:
    """A Ready cluster loses the policy's taint (by key and effect) and keeps the user's."""
    tainted = cluster(ready="True", taints=[USER, {**NOT_READY, "timeAdded": STAMP}])
    assert keys(policy_taints(tainted, ordered_policies([policy()]), NOW)) == [("maintenance", "NoSchedule")]


def test_nothing_changes_when_the_taints_are_already_right() -> None:
    """Already tainted and still NotReady, or Ready and untainted: no write."""
    policies = ordered_policies([policy()])
    assert policy_taints(cluster(taints=[{**NOT_READY, "timeAdded": STAMP}]), policies, NOW) is None
    assert policy_taints(cluster(ready="True"), policies, NOW) is None


def test_empty_condition_lists_never_add_or_remove() -> None:
    """No add conditions: never adds; no remove conditions: never removes."""
    never_adds = ordered_policies([policy(add=())])
    never_removes = ordered_policies([policy(remove=())])
    assert policy_taints(cluster(ready="False"), never_adds, NOW) is None
    assert policy_taints(cluster(ready="True", taints=[NOT_READY]), never_removes, NOW) is None


def test_add_is_evaluated_before_remove() -> None:
    """A policy whose add and remove conditions both hold ends without its taint."""
    both = ordered_policies([policy(remove=(NOT_READY_TEST,))])
    assert policy_taints(cluster(ready="False"), both, NOW) is None
    assert keys(policy_taints(cluster(ready="False", taints=[NOT_READY]), both, NOW)) == []


def test_only_target_clusters_are_tainted() -> None:
    """targetClusters is a ClusterAffinity: labels, names and exclusions as in placements."""
    by_label = ordered_policies([policy(target={"labelSelector": {"matchLabels": {"env": "prod"}}})])
    assert policy_taints(cluster(env="dev"), by_label, NOW) is None
    assert keys(policy_taints(cluster(env="prod"), by_label, NOW)) == [
        ("cluster.karmada.io/not-ready", "NoExecute")
    ]
    excluded = ordered_policies([policy(target={"exclude": ["member1"]})])
    assert policy_taints(cluster(), excluded, NOW) is None
    assert policy_taints(cluster(), ordered_policies([policy(target={})]), NOW) is not None


def test_a_cluster_that_stops_matching_keeps_its_taints() -> None:
    """Selection only decides which clusters a policy acts on, never removes by itself."""
    elsewhere = ordered_policies([policy(target={"clusterNames": ["member2"]})])
    assert policy_taints(cluster(ready="True", taints=[NOT_READY]), elsewhere, NOW) is None


def test_policies_apply_oldest_first_on_the_list_the_previous_left() -> None:
    """An older policy adds, a newer one removing the same taint on the same condition wins."""
    adder = policy("b-adder", created="2026-01-01T00:00:00Z", remove=())
    remover = policy("a-remover", created="2026-01-02T00:00:00Z", add=(), remove=(NOT_READY_TEST,))
    policies = ordered_policies([remover, adder])
    assert [p.metadata.name for p in policies] == ["b-adder", "a-remover"]
    assert policy_taints(cluster(), policies, NOW) is None
    assert keys(policy_taints(cluster(taints=[NOT_READY]), policies, NOW)) == []


def test_several_taints_of_several_policies_are_all_added_once() -> None:
    """Two policies tainting on the same condition add both taints; a shared one only once."""
    first = policy("one", taints=(NOT_READY,))
    second = policy("two", taints=(NOT_READY, UNREACHABLE))
    taints = policy_taints(cluster(), ordered_policies([first, second]), NOW)
    assert keys(taints) == [
        ("cluster.karmada.io/not-ready", "NoExecute"),
        ("cluster.karmada.io/unreachable", "NoExecute"),
    ]
