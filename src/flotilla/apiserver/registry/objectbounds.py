"""How big and how deep a request body and the object it decodes to may be, and the checks of both.

kube-apiserver reads at most 3 MiB of a write's body (`MaxRequestBodyBytes`), lets a JSON patch copy
at most 3 MiB (`JSONPatchMaxCopyBytes`) and stops decoding JSON nested deeper than 10,000 levels.
Flotilla keeps the two byte limits and applies the first to objects as well: an object decoded
from a body (a YAML body's aliases can multiply it), patched or stored is never larger, as compact
JSON, than a body that could have created it. kube stores protobuf, which is why its body limit is
twice etcd's 1.5 MiB request limit; Flotilla stores the JSON itself.

The depth limit is far lower than kube's, for two reasons of this implementation: orjson refuses to
encode more than 254 levels (so a deeper object could be accepted but never stored or served), and
the schema walk, merges and server-side apply recurse per level under Python's recursion limit of
1,000 frames. 128 levels keeps a stored object under both with room for what wraps it — a Work that
embeds it, managedFields that mirror its fields, list, watch, Table and AdmissionReview envelopes —
while allowing about 60 levels of nested schema in a CRD, deeper than any CRD in common use. Every
body is checked when decoded and every JSON patch result when applied (only a patch's `copy` and
`add` can build an object deeper than both of its inputs), so nothing deeper reaches the walkers.
"""

from __future__ import annotations

from typing import Any

import orjson

from flotilla.apiserver import errors

MAX_BODY_BYTES = 3 * 1024 * 1024
"""The largest request body read (kube-apiserver's MaxRequestBodyBytes)."""

MAX_OBJECT_BYTES = MAX_BODY_BYTES
"""The largest object, as compact JSON, that a body may decode to or a write may store."""

MAX_DEPTH = 128
"""The deepest nesting of objects and lists in a body or an object (the root object is level 1)."""

INT64_MIN = -(2**63)
UINT64_MAX = 2**64 - 1
"""JSON integers in [INT64_MIN, UINT64_MAX] stay integers; larger ones become floats, as in kube."""


def check_body_size(body: bytes) -> None:
    """413 for a body over the limit, with kube's wording and the size."""
    if len(body) > MAX_BODY_BYTES:
        raise errors.RequestEntityTooLarge(
            f"Request entity too large: limit is {MAX_BODY_BYTES} bytes (3 MiB), the request body is "
            f"{len(body)} bytes"
        )


def too_large(size: int, what: str = "the object") -> errors.RequestEntityTooLarge:
    """413 for an object whose compact JSON is `size` bytes, over MAX_OBJECT_BYTES."""
    return errors.RequestEntityTooLarge(
        f"Request entity too large: {what} is {size} bytes as JSON; the limit is {MAX_OBJECT_BYTES} "
        "bytes (3 MiB)"
    )


def too_deep(what: str = "the request body", limit: int = MAX_DEPTH) -> errors.BadRequest:
    """400 for nesting past `limit` (MAX_DEPTH, or a little more for a body that wraps objects)."""
    return errors.BadRequest(
        f"{what} is nested too deeply: objects and lists may be nested at most {limit} levels deep"
    )


def may_exceed_depth(body: bytes, limit: int = MAX_DEPTH) -> bool:
    """Whether JSON text `body` could nest deeper than `limit`: not unless it opens that many
    objects and lists in all (a count at C speed that spares most bodies the walk of `nesting_depth`)."""
    return body.count(b"{") + body.count(b"[") > limit


def nesting_depth(value: Any, limit: int = MAX_DEPTH) -> int:
    """How deeply objects and lists nest in `value` (a scalar is 0), counting no further than past
    `limit`: the result is `limit + 1` as soon as a level past it is found.

    Iterative, so any depth is safe to measure, and it visits only containers' items."""
    if not isinstance(value, dict | list):
        return 0
    deepest = 1
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > deepest:
            deepest = depth
            if deepest > limit:
                return deepest
        items = node.values() if isinstance(node, dict) else node
        stack.extend((item, depth + 1) for item in items if isinstance(item, dict | list))
    return deepest


def check_depth(value: Any, what: str = "the request body", limit: int = MAX_DEPTH) -> None:
    """400 when `value` nests deeper than `limit`."""
    if nesting_depth(value, limit) > limit:
        raise too_deep(what, limit)


def encode_for_storage(obj: dict[str, Any]) -> bytes:
    """The compact JSON an object is stored as: 413 past MAX_OBJECT_BYTES, whatever the write (a
    patch or an apply can grow an object its body does not show); 400 for a value JSON cannot
    hold, should one have slipped past the decoders' bounds."""
    try:
        raw = orjson.dumps(obj)
    except orjson.JSONEncodeError as exc:
        raise errors.BadRequest(f"the object cannot be stored as JSON: {exc}") from exc
    if len(raw) > MAX_OBJECT_BYTES:
        raise too_large(len(raw))
    return raw
