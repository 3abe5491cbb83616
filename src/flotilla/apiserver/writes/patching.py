"""Applying a PATCH body of any of Kubernetes' patch types to the current object.

A patch is decoded once (`read_patch`), before the write starts, and applied to the current object
each time the write is tried (`patch_stored_object`). Reading a YAML body, and applying a big patch
or one of many operations, run in a worker thread, so the event loop keeps serving other requests
meanwhile: their cost is bounded (see `objectbounds` and `patch.json_patch`), but not small.

kube-apiserver applies a patch to the whole stored object as it would serve it — resourceVersion,
uid, creationTimestamp, generation and managedFields included — so a JSON patch may `test` the
resourceVersion, `replace` it, or replace managedFields (kubectl's migration from client-side to
server-side apply sends exactly that). The resourceVersion the patched object carries is then the
write's precondition (`pinned_resource_version`): the current one when the patch left it alone, so
the write retries on a concurrent change, another one when the patch set it, which is 409 unless it
is still current, and none when the patch removed it.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

import orjson

from flotilla.apiserver import errors
from flotilla.apiserver.encoding.bodies import (
    APPLY_PATCH,
    JSON_PATCH,
    MERGE_PATCH,
    STRATEGIC_MERGE_PATCH,
    decode_json_or_yaml,
    media_type_of,
    read_json_or_yaml,
)
from flotilla.apiserver.registry.objectbounds import MAX_DEPTH, check_body_size
from flotilla.apiserver.registry.patch import PatchError, apply_merge_patch, apply_strategic_merge_patch
from flotilla.apiserver.registry.patch.json_patch import (
    MalformedPatch,
    Operation,
    TooManyOperations,
    apply_operations,
    decode_operations,
)
from flotilla.apiserver.registry.resources import ServedResource
from flotilla.apiserver.store.watchcache import CachedObject

IN_LOOP_BODY_BYTES = 64 * 1024
"""A patch body up to this size is applied on the event loop; a bigger one in a worker thread."""

IN_LOOP_OPERATIONS = 16
"""A JSON patch of more operations than this is applied in a thread (a move in a list of a million
items shifts 8 MB: 16 of them take ~15 ms)."""

IN_LOOP_OBJECT_BYTES = 256 * 1024
"""A patch of an object bigger than this (as JSON) is applied in a thread: every patch type copies
the object it patches, ~10-40 ms per MiB."""


def patch_type_of(content_type: str | None, served: ServedResource | None) -> str:
    """The patch type of a request, 415 for anything a PATCH cannot carry (SMP on custom resources)."""
    media = media_type_of(content_type)
    accepted = [JSON_PATCH, MERGE_PATCH, APPLY_PATCH]
    if served is None or served.builtin:
        accepted.insert(2, STRATEGIC_MERGE_PATCH)
    if media not in accepted:
        raise errors.UnsupportedMediaType(
            "the body of the request was in an unknown format - accepted media types include: "
            + ", ".join(accepted)
        )
    return media


@dataclass(frozen=True, slots=True)
class DecodedPatch:
    """A PATCH body decoded for its type: JSON patch operations, or the merge patch object."""

    kind: str
    operations: list[Operation] | None = None
    merge: dict[str, Any] | None = None
    size: int = 0

    @property
    def costly(self) -> bool:
        """Whether applying it belongs in a worker thread rather than on the event loop."""
        return self.size > IN_LOOP_BODY_BYTES or len(self.operations or ()) > IN_LOOP_OPERATIONS


def decode_patch(kind: str, body: bytes) -> DecodedPatch:
    """A patch body checked for its type: malformed is 400, too many operations 413."""
    _check_not_empty(body)
    try:
        value = decode_json_or_yaml(body, _body_depth(kind))
    except errors.BadRequest as exc:
        raise errors.BadRequest(f"error decoding patch: {exc.message}") from exc
    return _patch_of(kind, value, len(body))


async def read_patch(kind: str, body: bytes) -> DecodedPatch:
    """`decode_patch`, with a YAML body read in a worker thread, and a big one decoded and parsed
    there whole (10,000 JSON patch operations take ~150 ms to parse into pointers)."""
    if len(body) > IN_LOOP_BODY_BYTES:
        return await asyncio.to_thread(decode_patch, kind, body)
    _check_not_empty(body)
    try:
        value = await read_json_or_yaml(body, _body_depth(kind))
    except errors.BadRequest as exc:
        raise errors.BadRequest(f"error decoding patch: {exc.message}") from exc
    return _patch_of(kind, value, len(body))


def _body_depth(kind: str) -> int:
    """A JSON patch wraps each value in an operation in a list, two levels more than the object
    (what the operations build is checked as they apply); a merge patch is as deep as the object."""
    return MAX_DEPTH + 2 if kind == JSON_PATCH else MAX_DEPTH


def _check_not_empty(body: bytes) -> None:
    check_body_size(body)
    if not body.strip():
        raise errors.BadRequest("the patch is empty; send the changes as a JSON or YAML document")


def _patch_of(kind: str, value: Any, size: int) -> DecodedPatch:
    if kind == JSON_PATCH:
        try:
            return DecodedPatch(kind, operations=decode_operations(value), size=size)
        except TooManyOperations as exc:
            raise errors.RequestEntityTooLarge(exc.message) from exc
        except MalformedPatch as exc:
            raise errors.BadRequest(exc.message) from exc
        except PatchError as exc:
            raise errors.Invalid(exc.message) from exc
    if not isinstance(value, dict):
        raise errors.BadRequest("a merge patch must be a JSON object")
    return DecodedPatch(kind, merge=value, size=size)


def apply_decoded_patch(
    current: dict[str, Any], patch: DecodedPatch, served: ServedResource | None
) -> dict[str, Any]:
    """The patched object (a new dict; neither input changes); a patch that cannot apply is 422
    (JSON patch) or 400 (merge patches), as in kube-apiserver."""
    if patch.operations is not None:
        try:
            # On a private copy made by orjson: the operations change the document in place.
            result = apply_operations(orjson.loads(orjson.dumps(current)), patch.operations)
        except PatchError as exc:
            raise errors.Invalid(exc.message) from exc
        if not isinstance(result, dict):
            raise errors.Invalid("the JSON patch must leave an object")
        return result
    assert patch.merge is not None
    try:
        if patch.kind == MERGE_PATCH:
            merged = apply_merge_patch(current, patch.merge)
        else:
            merged = apply_strategic_merge_patch(current, patch.merge, served.schema if served else None)
    except PatchError as exc:
        raise errors.BadRequest(str(exc)) from exc
    if not isinstance(merged, dict):
        raise errors.BadRequest("the patch must leave an object")
    return merged


async def patch_stored_object(
    current: CachedObject, patch: DecodedPatch, served: ServedResource | None
) -> dict[str, Any]:
    """The stored object with the patch applied, as kube-apiserver applies one: to the object as it is
    served, resourceVersion and every other system field included (a new dict; `current` is untouched)."""
    return await apply_decoded_patch_async(current.obj, patch, served, len(current.raw))


def pinned_resource_version(patched: dict[str, Any]) -> str:
    """The resourceVersion a patched object must still have in store ("" for none: unconditional)."""
    metadata = patched.get("metadata")
    value = metadata.get("resourceVersion") if isinstance(metadata, dict) else None
    return "" if value is None else str(value)


async def apply_decoded_patch_async(
    current: dict[str, Any], patch: DecodedPatch, served: ServedResource | None, current_bytes: int = 0
) -> dict[str, Any]:
    """`apply_decoded_patch`, in a worker thread when the patch is costly to apply (`current_bytes`:
    the size of the current object's JSON, when known)."""
    if patch.costly or current_bytes > IN_LOOP_OBJECT_BYTES:
        return await asyncio.to_thread(apply_decoded_patch, current, patch, served)
    return apply_decoded_patch(current, patch, served)


def apply_patch(
    kind: str, current: dict[str, Any], body: bytes, served: ServedResource | None
) -> dict[str, Any]:
    """Decode and apply a patch body in one step (for callers that patch once, on the event loop)."""
    return apply_decoded_patch(current, decode_patch(kind, body), served)


def decode_apply_body(body: bytes) -> Any:
    """The object of a server-side apply: YAML (of which JSON is a subset)."""
    check_body_size(body)
    if not body.strip():
        raise errors.BadRequest("the apply patch is empty; send the object to apply as YAML or JSON")
    try:
        return decode_json_or_yaml(body)
    except errors.BadRequest as exc:
        raise errors.BadRequest(f"error decoding YAML: {exc.message}") from exc


async def read_apply_body(body: bytes) -> Any:
    """`decode_apply_body`, with a YAML body read in a worker thread."""
    check_body_size(body)
    if not body.strip():
        raise errors.BadRequest("the apply patch is empty; send the object to apply as YAML or JSON")
    try:
        return await read_json_or_yaml(body)
    except errors.BadRequest as exc:
        raise errors.BadRequest(f"error decoding YAML: {exc.message}") from exc
