"""JSON merge patch (RFC 7386), the `application/merge-patch+json` PATCH body.

The patch is a partial document: an object merges key by key into the target (recursively), a
`null` value removes the key, and anything else — a scalar, a list, or an object sent where the
target is not an object — replaces the target outright. Lists are never merged.

The result shares nothing with either input: untouched parts of the target are copied, because
the caller goes on to default, validate and stamp the result while the original object may still
be held by the watch cache.
"""

from __future__ import annotations

from typing import Any

from flotilla.apiserver.registry.patch.errors import PatchError


def apply_merge_patch(target: Any, patch: Any) -> Any:
    """`target` with the RFC 7386 merge `patch` applied; neither input is changed."""
    try:
        return _merge(target, patch)
    except RecursionError as error:
        raise PatchError("the patch is nested too deeply to apply") from error


def deep_copy_json(value: Any) -> Any:
    """A copy of decoded JSON (dicts, lists, scalars) that shares no container with `value`."""
    if isinstance(value, dict):
        return {key: deep_copy_json(item) for key, item in value.items()}
    if isinstance(value, list):
        return [deep_copy_json(item) for item in value]
    return value


def _merge(target: Any, patch: Any) -> Any:
    if not isinstance(patch, dict):
        return deep_copy_json(patch)
    base: dict[str, Any] = target if isinstance(target, dict) else {}
    result: dict[str, Any] = {}
    for key, value in base.items():
        if key not in patch:
            result[key] = deep_copy_json(value)
        elif patch[key] is not None:
            result[key] = _merge(value, patch[key])
    for key, change in patch.items():
        if key not in base and change is not None:
            # Merging onto nothing keeps the patch's shape but drops its nulls (RFC 7386 §2).
            result[key] = _merge(None, change)
    return result
