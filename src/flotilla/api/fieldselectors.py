"""Field selectors: the `fieldSelector=` string, which field labels a kind accepts, and their values.

A field selector is a comma-separated AND of `field=value`, `field==value` and `field!=value`
terms, parsed as apimachinery's `fields.ParseSelector` does: commas and `=` inside a value are
escaped with a backslash (`\\,` `\\=` `\\\\`), the field name is taken verbatim up to the first
operator, and terms are kept in the sorted order of their raw text, so `str()` prints what kube
prints.

Kubernetes never reads a selected field from the stored object directly. Each kind lists the field
labels it accepts (`spec.nodeName` for pods, `involvedObject.name` for events...) and derives a flat
`label -> string` map from the object, with its own rules for missing and non-string values: an
unset boolean reads `"false"`, an unset count `"0"`, an event's `source` falls back to its reporting
controller, and a pod's `status.podIPs` is accepted but never filled in. `field_values` builds that
map once per object; `FieldSelector.matches` then compares strings only. A label the map lacks reads
as the empty string, as in kube.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from flotilla.api.selectors import SelectorError, go_quoted

METADATA_FIELDS = ("metadata.name", "metadata.namespace")
"""The field labels every kind accepts, by kube's default field label conversion."""


class FieldOperator(enum.StrEnum):
    EQUALS = "="
    NOT_EQUALS = "!="


@dataclass(frozen=True, slots=True)
class FieldRequirement:
    field: str
    operator: FieldOperator
    value: str

    def matches(self, values: Mapping[str, str]) -> bool:
        equal = values.get(self.field, "") == self.value
        return equal if self.operator is FieldOperator.EQUALS else not equal

    def __str__(self) -> str:
        return f"{self.field}{self.operator}{escape_field_value(self.value)}"


@dataclass(frozen=True, slots=True)
class FieldSelector:
    """An AND of field requirements; with none it selects everything."""

    requirements: tuple[FieldRequirement, ...] = ()
    _terms: tuple[tuple[str, str, bool], ...] = field(init=False, repr=False, compare=False)
    _fields: frozenset[str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        terms = tuple((r.field, r.value, r.operator is FieldOperator.EQUALS) for r in self.requirements)
        object.__setattr__(self, "_terms", terms)
        object.__setattr__(self, "_fields", frozenset(r.field for r in self.requirements))

    @property
    def fields(self) -> frozenset[str]:
        """The field labels the selector reads."""
        return self._fields

    @property
    def empty(self) -> bool:
        return not self.requirements

    def matches(self, values: Mapping[str, str]) -> bool:
        for name, value, equal in self._terms:  # noqa: SIM110 - a plain loop skips all()'s generator on the hot path
            if (values.get(name, "") == value) is not equal:
                return False
        return True

    def requires_exact_match(self, field_label: str) -> str | None:
        """The value `field_label` must equal for anything to match (`metadata.name=x` → `x`), if any."""
        for requirement in self.requirements:
            if requirement.field == field_label and requirement.operator is FieldOperator.EQUALS:
                return requirement.value
        return None

    def __str__(self) -> str:
        return ",".join(str(requirement) for requirement in self.requirements)


EVERYTHING = FieldSelector()

_TERM_OPERATORS = (
    ("!=", FieldOperator.NOT_EQUALS),
    ("==", FieldOperator.EQUALS),
    ("=", FieldOperator.EQUALS),
)
_ESCAPED = frozenset("\\,=")


def parse_field_selector(text: str) -> FieldSelector:
    """The `fieldSelector=` string as a selector; raises `SelectorError` with kube's message."""
    requirements = []
    for term in sorted(_split_terms(text)):
        if not term:
            continue
        split = _split_term(term)
        if split is None:
            raise SelectorError(f"invalid selector: '{text}'; can't understand '{term}'")
        name, operator, raw_value = split
        requirements.append(FieldRequirement(name, operator, _unescape(raw_value)))
    return FieldSelector(tuple(requirements))


def _split_terms(text: str) -> list[str]:
    """The terms between unescaped commas, escapes left in place."""
    terms: list[str] = []
    start = 0
    escaping = False
    for position, character in enumerate(text):
        if escaping:
            escaping = False
        elif character == "\\":
            escaping = True
        elif character == ",":
            terms.append(text[start:position])
            start = position + 1
    terms.append(text[start:])
    return terms


def _split_term(term: str) -> tuple[str, FieldOperator, str] | None:
    """Split at the first operator; `==` is tried before `=` so it leaves no `=` in the value."""
    for position in range(len(term)):
        for spelling, operator in _TERM_OPERATORS:
            if term.startswith(spelling, position):
                return term[:position], operator, term[position + len(spelling) :]
    return None


def _unescape(raw: str) -> str:
    if not _ESCAPED.intersection(raw):
        return raw
    characters: list[str] = []
    escaping = False
    for character in raw:
        if escaping:
            if character not in _ESCAPED:
                raise SelectorError(f"invalid field selector: invalid escape sequence: \\{character}")
            characters.append(character)
            escaping = False
        elif character == "\\":
            escaping = True
        elif character in (",", "="):
            # kube prints the character as its code point (Go formats a rune with %v).
            raise SelectorError(f"invalid field selector: unescaped character in value: {ord(character)}")
        else:
            characters.append(character)
    if escaping:
        raise SelectorError("invalid field selector: invalid escape sequence: \\")
    return "".join(characters)


def escape_field_value(value: str) -> str:
    """A literal value escaped for use in a field selector (kube's `fields.EscapeValue`)."""
    return value.replace("\\", "\\\\").replace(",", "\\,").replace("=", "\\=")


# --- which labels a kind accepts ----------------------------------------------------------------


def supported_field_labels(resource_fields: Iterable[str], namespaced: bool) -> frozenset[str]:
    """The labels a kind with its own field label conversion accepts: `metadata.name`, its namespace
    when it has one, and its extra fields (a pod's `spec.nodeName`, a CRD's `selectableFields`)."""
    labels = {"metadata.name", *resource_fields}
    if namespaced:
        labels.add("metadata.namespace")
    return frozenset(labels)


def check_field_selector(selector: FieldSelector, allowed: Iterable[str]) -> None:
    """Refuse labels outside `allowed` as kube's per-kind conversions and custom resources do."""
    accepted = frozenset(allowed)
    for requirement in selector.requirements:
        if requirement.field not in accepted:
            raise SelectorError(f"field label not supported: {requirement.field}")


def check_metadata_field_selector(selector: FieldSelector) -> None:
    """Refuse labels other than name and namespace, in the words of kube's default conversion.

    Built-in kinds that declare no field labels of their own (ConfigMap, Deployment, ClusterRole...)
    use that default: it accepts `metadata.namespace` even for cluster-scoped kinds, where it reads
    as empty, and words its refusal differently from the per-kind conversions.
    """
    for requirement in selector.requirements:
        if requirement.field not in METADATA_FIELDS:
            quoted = ", ".join(go_quoted(label) for label in METADATA_FIELDS)
            raise SelectorError(
                f"{go_quoted(requirement.field)} is not a known field selector: only {quoted}"
            )


# --- the values a kind exposes ------------------------------------------------------------------

FieldReader = Callable[[Mapping[str, Any]], str]


def field_values(
    obj: Mapping[str, Any],
    resource_fields: Iterable[str],
    namespaced: bool,
    *,
    custom_resource: bool = False,
) -> dict[str, str]:
    """The field labels of `obj` and their string values, as kube's `ToSelectableFields` derives them.

    `metadata.namespace` is present only for namespaced kinds. Built-in labels follow the rules of
    their kind (see `BUILTIN_FIELD_READERS`); any other label, and every label of a custom resource,
    is read at its dotted path and printed as Go's `fmt.Sprint` would, missing values as "".
    On a hot path, pass only the labels the selector reads (those in `FieldSelector.fields`).
    """
    metadata = obj.get("metadata") or {}
    values = {"metadata.name": _text(metadata.get("name"))}
    if namespaced:
        values["metadata.namespace"] = _text(metadata.get("namespace"))
    for label in resource_fields:
        reader = None if custom_resource else BUILTIN_FIELD_READERS.get(label)
        values[label] = reader(obj) if reader is not None else _text(_lookup(obj, label.split(".")))
    return values


def _lookup(obj: Mapping[str, Any], path: Iterable[str]) -> Any:
    current: Any = obj
    for name in path:
        if not isinstance(current, Mapping):
            return None
        current = current.get(name)
    return current


def _text(value: Any) -> str:
    """A scalar as Go's `fmt.Sprint` prints it; anything missing or structured reads as ""."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() and abs(value) < 1e21 else repr(value)
    return ""


def _flag(*path: str) -> FieldReader:
    """A boolean that kube always sets: unset reads "false"."""
    return lambda obj: "true" if _lookup(obj, path) is True else "false"


def _count(*path: str) -> FieldReader:
    """An integer that kube always sets: unset reads "0"."""
    return lambda obj: _text(_lookup(obj, path)) or "0"


def _pod_ip(obj: Mapping[str, Any]) -> str:
    """kube reads the first of `status.podIPs`; `status.podIP` mirrors it in the v1 shape."""
    pod_ips = _lookup(obj, ("status", "podIPs"))
    if isinstance(pod_ips, list) and pod_ips and isinstance(pod_ips[0], Mapping):
        return _text(pod_ips[0].get("ip"))
    return _text(_lookup(obj, ("status", "podIP")))


def _event_source(obj: Mapping[str, Any]) -> str:
    """An event's `source` is its source component, or else its reporting controller."""
    return _text(_lookup(obj, ("source", "component"))) or _text(obj.get("reportingComponent"))


BUILTIN_FIELD_READERS: Mapping[str, FieldReader] = {
    "spec.hostNetwork": _flag("spec", "hostNetwork"),
    "spec.unschedulable": _flag("spec", "unschedulable"),
    "status.replicas": _count("status", "replicas"),
    # Job: the label and the field differ.
    "status.successful": _count("status", "succeeded"),
    "status.podIP": _pod_ip,
    # Accepted by the pod field label conversion but never set by the pod strategy, so it always
    # reads "": `status.podIPs=` matches every pod and any other value matches none, as in kube.
    "status.podIPs": lambda _obj: "",
    "source": _event_source,
}
"""Built-in field labels whose value is not simply the string at the label's path (core/v1 shapes)."""
