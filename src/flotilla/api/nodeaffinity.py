"""Node selectors and required node affinity, matched as kube's component-helpers `nodeaffinity` does.

The simulated kube-scheduler (its NodeAffinity filter) and the simulated DaemonSet controller
(`NodeShouldRunDaemonPod`) both ask whether a pod may run on a node, and Karmada's cluster field
selectors (`provider`, `region`) are node selector requirements too. The rules, from
`k8s.io/component-helpers/scheduling/corev1/nodeaffinity`:

- a pod's `nodeSelector` needs every pair among the node's labels; its required node affinity is
  absent (nil: every node matches) or a `NodeSelector` whose `nodeSelectorTerms` are ORed — no
  terms match no node;
- a term ANDs its `matchExpressions` (on labels) and `matchFields` (on fields: only
  `metadata.name`, and ignored for a node without a name); a term with neither matches nothing;
- `matchExpressions` become a label selector as `nodeSelectorRequirementsAsSelector` builds one:
  `In`/`NotIn` need values, `Exists`/`DoesNotExist` none, `Gt`/`Lt` exactly one int64 (compared
  with the label read as an int64, as `strconv.ParseInt` reads it), every key a qualified name and
  every value a label value, any other operator is refused; a term kube cannot build matches
  nothing (its error is only reported when no term matches, which a filter reads as "no");
- `matchFields` take only `In` or `NotIn` with exactly one value; a field the node does not have
  reads as "".

The copies this replaces differed on the edges: the DaemonSet controller read `Gt`/`Lt` with
Python's `int()` (so ` 5` and `1_0` were numbers), let `NotIn` without values match everything and
ignored values given to `Exists`; both accepted any operator and several values in `matchFields`;
the scheduler refused `matchFields` on a key other than `metadata.name` outright; neither
validated keys or values.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from flotilla.api.names import label_value_errors, qualified_name_errors
from flotilla.api.selectors import LabelSelector, Operator, Requirement, parse_int64

NAME_FIELD = "metadata.name"

_OPERATORS = {
    "In": Operator.IN,
    "NotIn": Operator.NOT_IN,
    "Exists": Operator.EXISTS,
    "DoesNotExist": Operator.DOES_NOT_EXIST,
    "Gt": Operator.GREATER_THAN,
    "Lt": Operator.LESS_THAN,
}


def _strings(value: object) -> tuple[str, ...] | None:
    """A `values` list, or None when it is not a list of strings."""
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        return None
    return tuple(value)


Triple = tuple[str, str, tuple[str, ...]]
"""A requirement as written (key, operator, values), hashable so parses can be remembered."""


def _triple(requirement: object) -> Triple | None:
    """A requirement's parts, or None when it is not shaped as one (not an object, odd types)."""
    if not isinstance(requirement, Mapping):
        return None
    key, operator = requirement.get("key"), requirement.get("operator")
    values = _strings(requirement.get("values"))
    if not isinstance(key, str) or not isinstance(operator, str) or values is None:
        return None
    return key, operator, values


def _triples(requirements: Sequence[object]) -> tuple[Triple, ...] | None:
    found = []
    for requirement in requirements:
        triple = _triple(requirement)
        if triple is None:
            return None
        found.append(triple)
    return tuple(found)


def _requirement(key: str, operator_text: str, values: tuple[str, ...]) -> Requirement | None:
    """One expression as `labels.NewRequirement` accepts it, or None where kube returns an error."""
    operator = _OPERATORS.get(operator_text)
    if operator is None or qualified_name_errors(key):
        return None
    if operator in (Operator.IN, Operator.NOT_IN) and not values:
        return None
    if operator in (Operator.EXISTS, Operator.DOES_NOT_EXIST) and values:
        return None
    if operator in (Operator.GREATER_THAN, Operator.LESS_THAN) and (
        len(values) != 1 or parse_int64(values[0]) is None
    ):
        return None
    if any(label_value_errors(value) for value in values):
        return None
    return Requirement(key, operator, values)


@functools.lru_cache(maxsize=1024)
def _selector(expressions: tuple[Triple, ...]) -> LabelSelector | None:
    """The selector of some expressions, remembered: the same pod templates and placements are
    matched against every node or cluster, and validating and compiling them costs more than matching."""
    requirements = []
    for expression in expressions:
        requirement = _requirement(*expression)
        if requirement is None:
            return None
        requirements.append(requirement)
    return LabelSelector(tuple(requirements))


def requirements_selector(expressions: Sequence[object]) -> LabelSelector | None:
    """Node selector requirements as a label selector (`nodeSelectorRequirementsAsSelector`), or None
    when one of them is invalid — a selector kube cannot build selects nothing."""
    triples = _triples(expressions)
    return None if triples is None else _selector(triples)


@dataclass(frozen=True, slots=True)
class FieldRequirement:
    """One `matchFields` entry: `In` (`equal`) or `NotIn` one value of a field."""

    key: str
    equal: bool
    value: str

    def matches(self, fields: Mapping[str, str]) -> bool:
        return (fields.get(self.key, "") == self.value) is self.equal


def _field_requirements(requirements: tuple[Triple, ...]) -> tuple[FieldRequirement, ...] | None:
    """`nodeSelectorRequirementsAsFieldSelector`, or None when kube returns an error."""
    found = []
    for key, operator, values in requirements:
        if operator not in ("In", "NotIn") or len(values) != 1:
            return None
        found.append(FieldRequirement(key, operator == "In", values[0]))
    return tuple(found)


@dataclass(frozen=True, slots=True)
class NodeSelectorTerm:
    """A term kube could build: its label selector (None without `matchExpressions`) and field tests."""

    labels: LabelSelector | None
    fields: tuple[FieldRequirement, ...]

    @classmethod
    def from_object(cls, term: object) -> NodeSelectorTerm | None:
        """The term, or None when it matches nothing (empty, or not buildable)."""
        if not isinstance(term, Mapping):
            return None
        expressions = term.get("matchExpressions") or []
        field_requirements = term.get("matchFields") or []
        if not isinstance(expressions, list) or not isinstance(field_requirements, list):
            return None
        expression_triples, field_triples = _triples(expressions), _triples(field_requirements)
        if expression_triples is None or field_triples is None:
            return None
        return _term(expression_triples, field_triples)

    def matches(self, labels: Mapping[str, str], name: str) -> bool:
        if self.labels is not None and not self.labels.matches(labels):
            return False
        # kube tests fields only when the node has some: a node without a name passes them.
        return not name or all(field.matches({NAME_FIELD: name}) for field in self.fields)


@functools.lru_cache(maxsize=1024)
def _term(expressions: tuple[Triple, ...], fields: tuple[Triple, ...]) -> NodeSelectorTerm | None:
    if not expressions and not fields:
        return None
    labels = _selector(expressions) if expressions else None
    field_requirements = _field_requirements(fields)
    if (expressions and labels is None) or field_requirements is None:
        return None
    return NodeSelectorTerm(labels, field_requirements)


@dataclass(frozen=True, slots=True)
class NodeSelector:
    """A `NodeSelector`: its terms ORed (the ones that match nothing are left out)."""

    terms: tuple[NodeSelectorTerm, ...]

    @classmethod
    def from_object(cls, selector: Mapping[str, Any]) -> NodeSelector:
        raw = selector.get("nodeSelectorTerms")
        return cls.of_terms(raw if isinstance(raw, list) else [])

    @classmethod
    def of_terms(cls, terms: Sequence[object]) -> NodeSelector:
        built = (NodeSelectorTerm.from_object(term) for term in terms)
        return cls(tuple(term for term in built if term is not None))

    def matches(self, node: Mapping[str, Any]) -> bool:
        labels, name = _labels_and_name(node)
        return any(term.matches(labels, name) for term in self.terms)


def required_terms(pod_spec: Mapping[str, Any]) -> list[Any] | None:
    """The pod's required `nodeSelectorTerms` as written, None when it has no required node affinity."""
    affinity = pod_spec.get("affinity")
    node_affinity = affinity.get("nodeAffinity") if isinstance(affinity, Mapping) else None
    required = (
        node_affinity.get("requiredDuringSchedulingIgnoredDuringExecution")
        if isinstance(node_affinity, Mapping)
        else None
    )
    if not isinstance(required, Mapping):
        return None
    terms = required.get("nodeSelectorTerms")
    return list(terms) if isinstance(terms, list) else []


@dataclass(frozen=True, slots=True)
class RequiredNodeAffinity:
    """What a pod requires of its node (`GetRequiredNodeAffinity`): `nodeSelector` and node affinity."""

    node_selector: Mapping[str, Any]
    affinity: NodeSelector | None

    @classmethod
    def of_pod_spec(cls, pod_spec: Mapping[str, Any]) -> RequiredNodeAffinity:
        selector = pod_spec.get("nodeSelector")
        if not selector and not pod_spec.get("affinity"):
            return _ANY_NODE  # most pods: nothing to read
        terms = required_terms(pod_spec)
        return cls(
            selector if isinstance(selector, Mapping) else {},
            None if terms is None else NodeSelector.of_terms(terms),
        )

    def matches(self, node: Mapping[str, Any]) -> bool:
        if not self.node_selector and self.affinity is None:
            return True
        labels, name = _labels_and_name(node)
        if any(labels.get(key) != value for key, value in self.node_selector.items()):
            return False
        return self.affinity is None or any(term.matches(labels, name) for term in self.affinity.terms)


_ANY_NODE = RequiredNodeAffinity({}, None)


def _labels_and_name(node: Mapping[str, Any]) -> tuple[Mapping[str, str], str]:
    metadata = node.get("metadata")
    if not isinstance(metadata, Mapping):
        return {}, ""
    labels = metadata.get("labels")
    name = metadata.get("name")
    return (labels if isinstance(labels, Mapping) else {}), (name if isinstance(name, str) else "")
