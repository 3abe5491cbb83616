"""Patches for the API server's PATCH verb: JSON merge patch, strategic merge patch, JSON Patch.

The merges are pure functions over decoded JSON that never mutate their inputs and return a new
object. JSON Patch (RFC 6902, `json_patch`) applies operations in place to a private copy, within
kube's bounds on their number and on what they copy. Server-side apply lives elsewhere.
"""

from flotilla.apiserver.registry.patch.errors import PatchError
from flotilla.apiserver.registry.patch.merge import apply_merge_patch, deep_copy_json
from flotilla.apiserver.registry.patch.strategic import apply_strategic_merge_patch

__all__ = ["PatchError", "apply_merge_patch", "apply_strategic_merge_patch", "deep_copy_json"]
