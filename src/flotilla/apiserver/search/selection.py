"""What a search asks of one kind: a namespace, a name, label and field selectors — and which objects match.

Selectors are parsed and checked as the API server checks them for the kind (`http/filters.py`): a
bad one is a `SelectorError` (400), a field label the kind does not accept is refused in kube's
words. Equality and set-membership label requirements (`app=web`, `tier in (a,b)`) pick candidates
from a cluster's label index; everything else is then tested on the candidates (or on every object
of the namespace when no requirement can use the index).
"""

from __future__ import annotations

from collections.abc import Iterable

from flotilla.api.fieldselectors import (
    FieldSelector,
    check_field_selector,
    check_metadata_field_selector,
    parse_field_selector,
    supported_field_labels,
)
from flotilla.api.selectors import LabelSelector, Operator, parse_label_selector
from flotilla.apiserver.search.compact import Entry
from flotilla.apiserver.search.kinds import CachedKind, split_key
from flotilla.apiserver.search.objects import ClusterObjects

_INDEXED_OPERATORS = frozenset({Operator.EQUALS, Operator.DOUBLE_EQUALS, Operator.IN})


class Query:
    """A list's or watch's selection of one kind's objects (raises `SelectorError` for a bad selector)."""

    def __init__(
        self,
        kind: CachedKind,
        *,
        namespace: str = "",
        name: str = "",
        label_selector: str = "",
        field_selector: str = "",
    ) -> None:
        self.kind = kind
        self.namespace = namespace if kind.namespaced else ""
        labels = parse_label_selector(label_selector) if label_selector else None
        fields = parse_field_selector(field_selector) if field_selector else None
        if fields is not None:
            if kind.field_labels or kind.custom:
                check_field_selector(fields, supported_field_labels(kind.field_labels, kind.namespaced))
            else:
                check_metadata_field_selector(fields)
        self.labels: LabelSelector | None = None if labels is None or labels.empty else labels
        self.fields: FieldSelector | None = None if fields is None or fields.empty else fields
        pinned = self.fields.requires_exact_match("metadata.name") if self.fields is not None else None
        self.name = name or pinned or ""
        self._indexed: list[tuple[str, tuple[str, ...]]] = []
        if self.labels is not None:
            for requirement in self.labels.requirements:
                if requirement.operator in _INDEXED_OPERATORS:
                    self._indexed.append((requirement.key, requirement.values))

    @property
    def selects_everything(self) -> bool:
        return not (self.namespace or self.name or self.labels is not None or self.fields is not None)

    def candidates(self, objects: ClusterObjects) -> list[str]:
        """The keys that may match, in key order (every one still to be tested with `matches`)."""
        if self.name and (self.namespace or not self.kind.namespaced):
            key = self.kind.key(self.namespace, self.name)
            return [key] if objects.get(key) is not None else []
        if self._indexed:
            smallest: set[str] | None = None
            for label, values in self._indexed:
                found: set[str] = set()
                for value in values:
                    found.update(objects.labelled(label, value))
                if smallest is None or len(found) < len(smallest):
                    smallest = found
                if not smallest:
                    return []
            keys: Iterable[str] = smallest or ()
            if self.namespace:
                prefix = self.namespace + "/"
                keys = (key for key in keys if key.startswith(prefix))
            return sorted(keys)
        return objects.keys_in(self.namespace)

    def matches(self, key: str, entry: Entry) -> bool:
        namespace, name = split_key(key)
        if self.namespace and namespace != self.namespace:
            return False
        if self.name and name != self.name:
            return False
        if self.labels is not None and not self.labels.matches(entry.label_map()):
            return False
        if self.fields is not None:
            values = dict(zip(self.kind.field_labels, entry.fields, strict=False))
            values["metadata.name"] = name
            if self.kind.namespaced:
                values["metadata.namespace"] = namespace
            return self.fields.matches(values)
        return True
