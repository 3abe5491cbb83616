"""Int-or-percent values (`maxSurge`, `maxUnavailable`) resolved against a count of pods or nodes.

Deployments scale them against their replicas, DaemonSets against the nodes that should run their
pod; either way a value is an integer or a string `N%`, and a percentage rounds up or down as the
caller says (kube's `intstr.GetScaledValueFromIntOrPercent`). The API server has validated the
values already; anything else raises `InvalidIntOrPercent`.
"""

from __future__ import annotations


class InvalidIntOrPercent(ValueError):
    """An int-or-string field that is neither an integer nor a percentage."""


def scaled_value(value: int | str | None, total: int, *, round_up: bool) -> int:
    """An int-or-percent resolved against `total` (kube's `GetScaledValueFromIntOrPercent`)."""
    if value is None:
        return 0
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    text = str(value)
    if not text.endswith("%"):
        raise InvalidIntOrPercent(
            f"invalid value for IntOrString: invalid type: string is not a percentage: {text!r}"
        )
    try:
        percent = int(text[:-1])
    except ValueError as exc:
        raise InvalidIntOrPercent(f"invalid value {text!r}: not a percentage") from exc
    product = percent * total
    return -(-product // 100) if round_up else product // 100
