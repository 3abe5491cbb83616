"""Node selectors and required node affinity match as kube's component-helpers `nodeaffinity` matches them.

The cases marked "was" are where one of the replaced copies (the simulated scheduler's NodeAffinity
filter, the simulated DaemonSet controller's placement) answered otherwise.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from flotilla.api.nodeaffinity import NodeSelector, RequiredNodeAffinity, requirements_selector
from flotilla.api.selectors import label_selector_from_object


def node(name: str = "node-a", **labels: str) -> dict[str, Any]:
    return {"metadata": {"name": name, "labels": {"zone": "a", "cpus": "8", **labels}}}


def expression(key: str, operator: str, *values: str) -> dict[str, Any]:
    found: dict[str, Any] = {"key": key, "operator": operator}
    if values:
        found["values"] = list(values)
    return found


def name_field(operator: str, *values: str, key: str = "metadata.name") -> dict[str, Any]:
    return {"key": key, "operator": operator, "values": list(values)}


def selector(*terms: dict[str, Any]) -> NodeSelector:
    return NodeSelector.from_object({"nodeSelectorTerms": list(terms)})


@pytest.mark.parametrize(
    ("expressions", "expected"),
    [
        ([expression("zone", "In", "a", "b")], True),
        ([expression("zone", "In", "b")], False),
        ([expression("zone", "NotIn", "b")], True),
        ([expression("missing", "NotIn", "b")], True),
        ([expression("zone", "Exists")], True),
        ([expression("missing", "DoesNotExist")], True),
        ([expression("cpus", "Gt", "4")], True),
        ([expression("cpus", "Lt", "4")], False),
        ([expression("cpus", "Gt", "-4")], False),  # nor is a negative one
        ([expression("cpus", "Gt", "+4")], False),  # an int64, but no label value
        ([expression("zone", "In", "a"), expression("cpus", "Lt", "4")], False),
        # what kube cannot build matches nothing
        ([expression("zone", "NotIn")], False),  # was: everything (DaemonSet placement)
        ([expression("zone", "Exists", "a")], False),  # was: a match (both copies)
        ([expression("cpus", "Gt", "4", "5")], False),
        ([expression("cpus", "Gt", " 4")], False),  # was: a match (DaemonSet placement, int())
        ([expression("zone", "in", "a")], False),
        ([expression("bad key!", "Exists")], False),  # was: a match (both copies)
        ([expression("zone", "In", "not a label value")], False),
    ],
)
def test_match_expressions_are_anded_with_kubes_requirement_rules(
    expressions: list[dict[str, Any]], expected: bool
) -> None:
    """In/NotIn need values, Exists/DoesNotExist none, Gt/Lt one int64; keys and values are validated."""
    assert selector({"matchExpressions": expressions}).matches(node()) is expected


def test_gt_and_lt_read_the_label_as_go_reads_an_int64() -> None:
    """A label that strconv.ParseInt refuses is no number (was: Python's int() read `1_0` and ` 16`)."""
    term = {"matchExpressions": [expression("cpus", "Gt", "4")]}
    assert selector(term).matches(node(cpus="16"))
    assert not selector(term).matches(node(cpus="1_6"))
    assert not selector(term).matches(node(cpus=" 16"))
    assert not selector(term).matches(node(cpus="99999999999999999999"))


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        ([name_field("In", "node-a")], True),
        ([name_field("In", "node-b")], False),
        ([name_field("NotIn", "node-b")], True),
        ([name_field("In", "node-a", "node-b")], False),  # was: a match (both copies)
        ([name_field("Exists")], False),  # was: a match (DaemonSet placement)
        ([name_field("NotIn", "x", key="spec.unschedulable")], True),  # was: refused (scheduler)
        ([name_field("In", "x", key="spec.unschedulable")], False),
    ],
)
def test_match_fields_take_one_value_with_in_or_not_in(fields: list[dict[str, Any]], expected: bool) -> None:
    """`matchFields` are In/NotIn of one value; a field the node lacks reads as ""."""
    assert selector({"matchFields": fields}).matches(node()) is expected


def test_a_node_without_a_name_passes_match_fields() -> None:
    """kube tests fields only when the node has some, and a nameless node has none."""
    assert selector({"matchFields": [name_field("In", "node-b")]}).matches(node(name=""))


def test_terms_are_ored_and_an_empty_term_matches_nothing() -> None:
    """One term that matches is enough; `{}` and unbuildable terms never match."""
    matching = {
        "matchExpressions": [expression("zone", "In", "a")],
        "matchFields": [name_field("In", "node-a")],
    }
    other = {"matchExpressions": [expression("zone", "In", "b")]}
    assert selector(other, matching).matches(node())
    assert not selector(other).matches(node())
    assert not selector({}).matches(node())
    assert not selector({"matchExpressions": []}).matches(node())
    assert not selector().matches(node())


def required(pod_spec: dict[str, Any]) -> RequiredNodeAffinity:
    return RequiredNodeAffinity.of_pod_spec(pod_spec)


def affinity(*terms: dict[str, Any]) -> dict[str, Any]:
    return {
        "nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": list(terms)}}
    }


def test_no_required_affinity_matches_every_node_and_no_terms_none() -> None:
    """A nil selector selects everything; a selector with no terms selects nothing."""
    assert required({}).matches(node())
    assert required({"affinity": {"nodeAffinity": {}}}).matches(node())
    assert not required({"affinity": affinity()}).matches(node())


def test_node_selector_and_required_affinity_must_both_hold() -> None:
    """Every nodeSelector pair is a label of the node, and one required term matches."""
    zone_a = {"matchExpressions": [expression("zone", "In", "a")]}
    assert required({"nodeSelector": {"zone": "a"}, "affinity": affinity(zone_a)}).matches(node())
    assert not required({"nodeSelector": {"zone": "b"}, "affinity": affinity(zone_a)}).matches(node())
    assert not required({"nodeSelector": {"gpu": "true"}}).matches(node())


def test_requirements_selector_is_nothing_when_one_requirement_is_invalid() -> None:
    """Karmada's cluster field selectors build the same selector: one bad requirement spoils it."""
    built = requirements_selector([expression("provider", "In", "aws")])
    assert built is not None
    assert built.matches({"provider": "aws"})
    assert not built.matches({})
    assert requirements_selector([expression("provider", "In", "aws"), expression("region", "In")]) is None


_KEYS = st.sampled_from(["zone", "tier", "example.com/team"])
_VALUES = st.lists(st.sampled_from(["a", "b", "c"]), min_size=1, max_size=3, unique=True)
_EXPRESSIONS = st.lists(
    st.one_of(
        st.builds(lambda k, op, vs: expression(k, op, *vs), _KEYS, st.sampled_from(["In", "NotIn"]), _VALUES),
        st.builds(expression, _KEYS, st.sampled_from(["Exists", "DoesNotExist"])),
    ),
    max_size=4,
)
_LABELS = st.dictionaries(_KEYS, st.sampled_from(["a", "b", "c"]), max_size=3)


@given(_EXPRESSIONS, _LABELS)
def test_node_selector_requirements_select_as_label_selector_expressions(
    expressions: list[dict[str, Any]], labels: dict[str, str]
) -> None:
    """On the operators both share, a node selector term and a metav1 label selector agree."""
    built = requirements_selector(expressions)
    assert built is not None
    assert built.matches(labels) == label_selector_from_object({"matchExpressions": expressions}).matches(
        labels
    )
