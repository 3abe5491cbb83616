"""Labels and label selectors written as Kubernetes writes them in tables (`app=web,tier in (a,b)`).

Two Go helpers are mirrored: `labels.FormatLabels` (a plain map, keys sorted, `<none>` when empty) and
`LabelSelectorAsSelector(...).String()` (a `metav1.LabelSelector`: one requirement per `matchLabels`
entry and per `matchExpressions` entry, sorted by key, set values sorted). `metav1.FormatLabelSelector`
adds `<none>` for an empty result and `<error>` for a selector that cannot be converted.
"""

from __future__ import annotations

from typing import Any

from flotilla.apiserver.registry.tables.objects import objects, string_map, text

NONE = "<none>"


class InvalidSelectorError(ValueError):
    """A label selector Kubernetes refuses to convert (unknown operator, wrong number of values)."""


def format_labels(labels: dict[str, str]) -> str:
    """`k1=v1,k2=v2` with keys sorted; `<none>` for no labels."""
    if not labels:
        return NONE
    return ",".join(f"{key}={labels[key]}" for key in sorted(labels))


def _requirement(expression: dict[str, Any]) -> tuple[str, str]:
    key = text(expression, "key")
    operator = text(expression, "operator")
    raw_values = expression.get("values")
    values = [value for value in raw_values if isinstance(value, str)] if isinstance(raw_values, list) else []
    if operator in ("In", "NotIn"):
        if not values:
            raise InvalidSelectorError(f"values: must be specified for operator {operator}")
        word = "in" if operator == "In" else "notin"
        return key, f"{key} {word} ({','.join(sorted(values))})"
    if operator in ("Exists", "DoesNotExist"):
        if values:
            raise InvalidSelectorError(f"values: must not be specified for operator {operator}")
        return key, key if operator == "Exists" else f"!{key}"
    raise InvalidSelectorError(f"{operator!r} is not a valid label selector operator")


def selector_string(selector: Any) -> str:
    """What `LabelSelectorAsSelector(selector).String()` gives: `""` for a nil or empty selector."""
    if not isinstance(selector, dict):
        return ""
    requirements = [(key, f"{key}={value}") for key, value in string_map(selector, "matchLabels").items()]
    requirements += [_requirement(expression) for expression in objects(selector, "matchExpressions")]
    # Go sorts requirements by key only; a stable sort keeps matchLabels before expressions on ties.
    requirements.sort(key=lambda requirement: requirement[0])
    return ",".join(rendered for _, rendered in requirements)


def format_label_selector(selector: Any) -> str:
    """`metav1.FormatLabelSelector`: the selector string, `<none>` if empty, `<error>` if invalid."""
    try:
        rendered = selector_string(selector)
    except InvalidSelectorError:
        return "<error>"
    return rendered or NONE
