"""Selector predicates for lists and watches, built once per request from its query."""

from __future__ import annotations

from flotilla.api.fieldselectors import (
    check_field_selector,
    check_metadata_field_selector,
    field_values,
    parse_field_selector,
    supported_field_labels,
)
from flotilla.api.selectors import SelectorError, parse_label_selector
from flotilla.apiserver import errors
from flotilla.apiserver.registry.resources import ServedResource
from flotilla.apiserver.store.watchcache import CachedObject, Predicate


def extra_fields(served: ServedResource) -> tuple[str, ...]:
    """The field labels of a kind beyond metadata.name and metadata.namespace."""
    if served.custom is not None:
        return served.custom.selectable_fields
    return served.type.field_selectors


def predicate(served: ServedResource, label_selector: str, field_selector: str) -> Predicate | None:
    """A function telling whether an object matches both selectors; None when nothing is selected."""
    try:
        labels = parse_label_selector(label_selector) if label_selector else None
        fields = parse_field_selector(field_selector) if field_selector else None
        if fields is not None:
            extra = extra_fields(served)
            if extra or served.custom is not None:
                check_field_selector(fields, supported_field_labels(extra, served.namespaced))
            else:
                check_metadata_field_selector(fields)
    except SelectorError as exc:
        raise errors.BadRequest(str(exc)) from exc
    if labels is not None and labels.empty:
        labels = None
    if fields is not None and fields.empty:
        fields = None
    if labels is None and fields is None:
        return None
    wanted = tuple(fields.fields) if fields is not None else ()
    namespaced = served.namespaced
    custom = served.custom is not None

    def matches(item: CachedObject) -> bool:
        if labels is not None and not labels.matches(item.labels):
            return False
        if fields is None:
            return True
        return fields.matches(field_values(item.obj, wanted, namespaced, custom_resource=custom))

    return matches
