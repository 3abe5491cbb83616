"""Labels and label selectors written as Kubernetes writes them in tables (`app=web,tier in (a,b)`).

Two Go helpers are mirrored: `labels.FormatLabels` (a plain map, keys sorted, `<none>` when empty) and
`LabelSelectorAsSelector(...).String()` (a `metav1.LabelSelector`: one requirement per `matchLabels`
entry and per `matchExpressions` entry, sorted by key, set values sorted — `flotilla.api.selectors`
converts and prints it). `metav1.FormatLabelSelector` adds `<none>` for an empty result and
`<error>` for a selector that cannot be converted (an unknown operator, values where none belong or
none where they must, a key or value that is not a label's).
"""

from __future__ import annotations

from typing import Any

from flotilla.api.selectors import SelectorError, label_selector_from_object

NONE = "<none>"


def format_labels(labels: dict[str, str]) -> str:
    """`k1=v1,k2=v2` with keys sorted; `<none>` for no labels."""
    if not labels:
        return NONE
    return ",".join(f"{key}={labels[key]}" for key in sorted(labels))


def selector_string(selector: Any) -> str:
    """What `LabelSelectorAsSelector(selector).String()` gives: `""` for a nil or empty selector.

    Raises `SelectorError` for a selector kube cannot convert (`flotilla.api.selectors` converts it)."""
    if not isinstance(selector, dict):
        return ""
    return str(label_selector_from_object(selector))


def format_label_selector(selector: Any) -> str:
    """`metav1.FormatLabelSelector`: the selector string, `<none>` if empty, `<error>` if invalid."""
    try:
        rendered = selector_string(selector)
    except SelectorError:
        return "<error>"
    return rendered or NONE
