"""What the defaults tests share: a manifest as it reads after kube-apiserver's defaulting."""

from __future__ import annotations

import copy
from typing import Any

from flotilla.api.scheme import GroupVersionKind
from flotilla.apiserver.registry.defaults import apply_defaults


def defaulted(gvk: GroupVersionKind, manifest: dict[str, Any]) -> dict[str, Any]:
    """A copy of `manifest` with the defaults every write gets (`apply_defaults`)."""
    result = copy.deepcopy(manifest)
    apply_defaults(gvk, result)
    return result
