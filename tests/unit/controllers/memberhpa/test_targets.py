"""Which workloads propagated HPAs mark, and which HPA events can change a mark."""

from __future__ import annotations

from typing import Any

from flotilla.controllers.memberhpa.marker import _changed_targets, _marking_view
from flotilla.controllers.memberhpa.targets import (
    ScaleTarget,
    is_marked,
    mark_patch,
    scale_target,
    wants_mark,
)

POLICY_LABEL = {"propagationpolicy.karmada.io/permanent-id": "0b5c…"}
RETAIN = "resourcetemplate.karmada.io/retain-replicas"


def hpa(
    target: str = "web", *, propagated: bool = True, api_version: str = "apps/v1", **meta: Any
) -> dict[str, Any]:
    labels = dict(POLICY_LABEL) if propagated else {}
    return {
        "apiVersion": "autoscaling/v2",
        "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": f"{target}-hpa", "namespace": "shop", "labels": labels, **meta},
        "spec": {
            "scaleTargetRef": {"apiVersion": api_version, "kind": "Deployment", "name": target},
            "minReplicas": 1,
            "maxReplicas": 10,
        },
    }


def web(target: str = "web") -> ScaleTarget:
    return ScaleTarget("shop", "apps", "Deployment", target)


def test_an_hpa_names_its_target_in_its_own_namespace_whatever_the_version() -> None:
    assert scale_target(hpa()) == web()
    assert scale_target(hpa(api_version="apps/v2")) == web(), "the version does not name another workload"
    assert scale_target(hpa()).gvk.api_version == "apps/v1"  # type: ignore[union-attr]
    assert hash(scale_target(hpa(api_version="apps/v2"))) == hash(web())


def test_an_hpa_without_a_usable_target_names_none() -> None:
    broken = hpa()
    broken["spec"]["scaleTargetRef"] = {"kind": "Deployment"}
    assert scale_target(broken) is None
    broken["spec"] = {}
    assert scale_target(broken) is None


def test_only_a_propagated_hpa_that_is_not_being_deleted_wants_the_mark() -> None:
    assert wants_mark([hpa()])
    cluster_wide = hpa(propagated=False)
    cluster_wide["metadata"]["labels"] = {"clusterpropagationpolicy.karmada.io/permanent-id": "x"}
    assert wants_mark([cluster_wide])
    assert not wants_mark([hpa(propagated=False)])
    assert not wants_mark([hpa(deletionTimestamp="2026-01-01T00:00:00Z")])
    assert not wants_mark([])
    assert wants_mark([hpa(propagated=False), hpa()]), "one propagated HPA is enough"


def test_the_mark_is_the_retain_replicas_label_set_or_removed_by_a_merge_patch() -> None:
    assert mark_patch(True) == {"metadata": {"labels": {RETAIN: "true"}}}
    assert mark_patch(False) == {"metadata": {"labels": {RETAIN: None}}}
    assert is_marked({"metadata": {"labels": {RETAIN: "true"}}})
    assert not is_marked({"metadata": {"labels": {RETAIN: "false"}}})
    assert not is_marked({"metadata": {}})


def test_a_propagated_hpa_added_or_changed_enqueues_its_target() -> None:
    assert list(_changed_targets(hpa(), None)) == [web()]
    assert list(_changed_targets(hpa(), hpa())) == [web()]


def test_a_retargeted_hpa_enqueues_the_old_target_too() -> None:
    assert list(_changed_targets(hpa("api"), hpa("web"))) == [web("api"), web("web")]


def test_an_hpa_deleted_or_no_longer_propagated_enqueues_its_target_to_lose_the_mark() -> None:
    assert list(_changed_targets(None, hpa())) == [web()]
    assert list(_changed_targets(hpa(propagated=False), hpa())) == [web()]


def test_hpas_never_propagated_enqueue_nothing_so_a_mark_set_by_hand_stays() -> None:
    assert list(_changed_targets(hpa(propagated=False), None)) == []
    assert list(_changed_targets(None, hpa(propagated=False))) == []
    assert list(_changed_targets(hpa("api", propagated=False), hpa(propagated=False))) == []


def test_a_status_write_does_not_change_what_the_mark_depends_on() -> None:
    """The binding-status controller rewrites a propagated HPA's status as members scale: no reconcile."""
    scaled = hpa()
    scaled["status"] = {"currentReplicas": 7, "desiredReplicas": 8}
    assert _marking_view(scaled) == _marking_view(hpa())
    assert _marking_view(hpa("api")) != _marking_view(hpa())
    assert _marking_view(hpa(propagated=False)) != _marking_view(hpa())
