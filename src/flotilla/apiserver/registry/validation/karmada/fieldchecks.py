"""Field checks that several Karmada kinds share: enumerated values, and resource selectors.

`one_of` refuses a value outside one of Karmada's enumerations (`flotilla.api.karmada.constants`)
with kube's "Unsupported value" wording; absent and empty values pass, as the schema's defaults or
its required checks deal with them. `resource_selectors` checks the `spec.resourceSelectors` that
propagation and override policies share: apiVersion and kind given, label selectors well formed,
and a namespaced PropagationPolicy selecting only its own namespace.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from flotilla.api import fielderrors
from flotilla.api.fielderrors import FieldError, child, index
from flotilla.api.selectors import validate_label_selector
from flotilla.apiserver.registry.validation import fields

Object = dict[str, Any]


def one_of(obj: Object, key: str, path: str, allowed: Iterable[str]) -> list[FieldError]:
    """An Unsupported value error unless `obj[key]` is absent, empty or one of `allowed`."""
    value = obj.get(key)
    choices = [str(choice) for choice in allowed]
    if value in (None, "") or value in choices:
        return []
    return [fielderrors.not_supported(child(path, key), value, choices)]


def resource_selectors(
    spec: Object, path: str, *, required: bool, namespace: str | None = None
) -> list[FieldError]:
    """A policy's resource selectors; `namespace` is a PropagationPolicy's own, None otherwise."""
    errors: list[FieldError] = []
    selectors = spec.get("resourceSelectors")
    if required and selectors is None:
        return [fielderrors.required(path, "at least one resource selector is required")]
    if required and selectors == []:
        return [fielderrors.invalid(path, 0, "should have at least 1 items")]
    for position, selector in enumerate(fields.objects(spec, "resourceSelectors")):
        selector_path = index(path, position)
        for key in ("apiVersion", "kind"):
            if not fields.text(selector, key):
                errors.append(fielderrors.required(child(selector_path, key)))
        errors += validate_label_selector(
            selector.get("labelSelector"), child(selector_path, "labelSelector")
        )
        selected = fields.text(selector, "namespace")
        if namespace and selected and selected != namespace:
            errors.append(
                fielderrors.invalid(
                    child(selector_path, "namespace"),
                    selected,
                    f'a PropagationPolicy selects resources of its own namespace only ("{namespace}")',
                )
            )
    return errors
