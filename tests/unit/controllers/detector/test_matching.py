"""Which policy claims a template: selectors, priorities, the PP-before-CPP rule, claims and preemption."""

from __future__ import annotations

from flotilla.api.karmada.policy import ResourceSelector
from flotilla.controllers.detector.matching import (
    ImplicitPriority,
    best_policy,
    choose_policy,
    selector_priority,
)
from tests.unit.controllers.detector.policies import (
    by_kind,
    by_label,
    by_name,
    claimed_by,
    cluster_propagation_policy,
    deployment,
    propagation_policy,
)

PP_ID = "propagationpolicy.karmada.io/permanent-id"
CPP_ID = "clusterpropagationpolicy.karmada.io/permanent-id"


def _selector(**fields: object) -> ResourceSelector:
    return ResourceSelector.from_object({"apiVersion": "apps/v1", "kind": "Deployment", **fields})


def test_a_name_selector_matches_only_that_name_and_ignores_its_label_selector() -> None:
    """With `name` set the label selector does not count, even when it would not match."""
    selector = _selector(name="web", labelSelector={"matchLabels": {"app": "other"}})
    assert selector_priority(deployment("web"), selector) is ImplicitPriority.MATCH_NAME
    assert selector_priority(deployment("api"), selector) is ImplicitPriority.MISMATCH


def test_label_selectors_match_by_labels_and_empty_selectors_match_everything() -> None:
    """matchLabels must hold; `{}` selects every template of the kind; no selector matches all."""
    assert selector_priority(
        deployment(labels={"tier": "a"}), _selector(labelSelector={"matchLabels": {"tier": "a"}})
    ) is (ImplicitPriority.MATCH_LABEL_SELECTOR)
    assert selector_priority(
        deployment(labels={"tier": "b"}), _selector(labelSelector={"matchLabels": {"tier": "a"}})
    ) is (ImplicitPriority.MISMATCH)
    assert (
        selector_priority(deployment(), _selector(labelSelector={})) is ImplicitPriority.MATCH_LABEL_SELECTOR
    )
    assert selector_priority(deployment(), _selector()) is ImplicitPriority.MATCH_ALL


def test_api_version_kind_and_namespace_must_all_agree() -> None:
    """A selector of another apiVersion, kind or namespace never matches."""
    template = deployment()
    assert selector_priority(template, _selector(apiVersion="apps/v1beta1")) is ImplicitPriority.MISMATCH
    assert selector_priority(template, _selector(kind="StatefulSet")) is ImplicitPriority.MISMATCH
    assert selector_priority(template, _selector(namespace="other")) is ImplicitPriority.MISMATCH
    assert selector_priority(template, _selector(namespace="shop")) is ImplicitPriority.MATCH_ALL


def test_explicit_priority_beats_a_more_specific_selector() -> None:
    """A kind-only policy of priority 5 wins over a by-name policy of priority 0."""
    high = propagation_policy("kind-high", [by_kind()], priority=5)
    named = propagation_policy("named", [by_name()])
    assert best_policy(deployment(), [named, high]) is high


def test_on_equal_priority_name_beats_labels_beats_kind() -> None:
    """The implicit priority decides between policies of the same explicit priority."""
    kind_only = propagation_policy("a-kind", [by_kind()])
    labelled = propagation_policy("b-label", [by_label(app="web")])
    named = propagation_policy("c-name", [by_name()])
    assert best_policy(deployment(), [kind_only, labelled, named]) is named
    assert best_policy(deployment(), [kind_only, labelled]) is labelled


def test_a_full_tie_goes_to_the_smaller_policy_name() -> None:
    """Same explicit and implicit priority: lexicographic order of names."""
    first = propagation_policy("alpha", [by_name()])
    second = propagation_policy("beta", [by_name()])
    assert best_policy(deployment(), [second, first]) is first


def test_a_policy_uses_its_best_selector() -> None:
    """A policy with a kind-only and a by-name selector ranks as a by-name match."""
    mixed = propagation_policy("z-mixed", [by_kind(), by_name()])
    labelled = propagation_policy("a-label", [by_label(app="web")])
    assert best_policy(deployment(), [labelled, mixed]) is mixed


def test_policies_being_deleted_never_win() -> None:
    """A policy with a deletionTimestamp selects nothing."""
    doomed = propagation_policy("doomed", [by_name()], deleting=True)
    assert best_policy(deployment(), [doomed]) is None


def test_propagation_policies_come_before_cluster_propagation_policies() -> None:
    """A kind-only PP wins over a by-name CPP of higher priority."""
    pp = propagation_policy("pp", [by_kind()])
    cpp = cluster_propagation_policy("cpp", [by_name()], priority=100)
    assert choose_policy(deployment(), [pp], [cpp]) is pp
    assert choose_policy(deployment(), [], [cpp]) is cpp


def test_no_matching_policy_means_none() -> None:
    """A template nobody selects waits."""
    other = propagation_policy("other", [by_name("api")])
    assert choose_policy(deployment(), [other], []) is None


def test_an_existing_claim_sticks_against_a_higher_priority_policy() -> None:
    """Without preemption a later, stronger policy does not take a claimed template."""
    current = propagation_policy("current", [by_kind()])
    stronger = propagation_policy("stronger", [by_name()], priority=10)
    template = claimed_by(deployment(), PP_ID, "pp-current")
    assert choose_policy(template, [current, stronger], []) is current


def test_preemption_takes_a_template_from_a_lower_priority_policy() -> None:
    """`preemption: Always` with a higher priority wins the claimed template."""
    current = propagation_policy("current", [by_kind()], priority=1)
    preemptor = propagation_policy("preemptor", [by_name()], priority=2, preemption="Always")
    template = claimed_by(deployment(), PP_ID, "pp-current")
    assert choose_policy(template, [current, preemptor], []) is preemptor


def test_preemption_needs_a_strictly_higher_priority_against_a_propagation_policy() -> None:
    """An equal-priority preemptor leaves the claim alone."""
    current = propagation_policy("current", [by_kind()], priority=2)
    preemptor = propagation_policy("preemptor", [by_name()], priority=2, preemption="Always")
    template = claimed_by(deployment(), PP_ID, "pp-current")
    assert choose_policy(template, [current, preemptor], []) is current


def test_a_propagation_policy_preempts_any_cluster_policy_regardless_of_priority() -> None:
    """PP with Always beats a CPP claim even at a lower priority."""
    cpp = cluster_propagation_policy("cpp", [by_name()], priority=100)
    pp = propagation_policy("pp", [by_name()], priority=0, preemption="Always")
    template = claimed_by(deployment(), CPP_ID, "cpp-cpp")
    assert choose_policy(template, [pp], [cpp]) is pp


def test_a_propagation_policy_without_preemption_leaves_a_cluster_claim() -> None:
    """Matching is not enough to take a CPP's template: preemption is needed."""
    cpp = cluster_propagation_policy("cpp", [by_name()])
    pp = propagation_policy("pp", [by_name()], priority=50)
    template = claimed_by(deployment(), CPP_ID, "cpp-cpp")
    assert choose_policy(template, [pp], [cpp]) is cpp


def test_a_cluster_policy_preempts_only_a_lower_priority_cluster_policy() -> None:
    """CPP with Always and a higher priority takes a CPP claim, but never a PP claim."""
    low = cluster_propagation_policy("low", [by_kind()], priority=1)
    high = cluster_propagation_policy("high", [by_name()], priority=9, preemption="Always")
    assert choose_policy(claimed_by(deployment(), CPP_ID, "cpp-low"), [], [low, high]) is high
    pp = propagation_policy("pp", [by_kind()])
    assert choose_policy(claimed_by(deployment(), PP_ID, "pp-pp"), [pp], [high]) is pp


def test_a_claim_of_a_vanished_or_unselecting_policy_is_matched_afresh() -> None:
    """Stale claims (policy gone, deleting, or no longer selecting) do not hold the template."""
    fresh = propagation_policy("fresh", [by_kind()])
    gone = claimed_by(deployment(), PP_ID, "pp-gone")
    assert choose_policy(gone, [fresh], []) is fresh
    narrowed = propagation_policy("narrowed", [by_name("api")])
    assert choose_policy(claimed_by(deployment(), PP_ID, "pp-narrowed"), [narrowed, fresh], []) is fresh
    deleting = propagation_policy("deleting", [by_name()], deleting=True)
    assert choose_policy(claimed_by(deployment(), PP_ID, "pp-deleting"), [deleting], []) is None
