"""Request bodies as data: the media types Kubernetes clients send, and reading them within bounds.

Request bodies arrive as JSON, YAML or Kubernetes protobuf (kubectl's typed commands send protobuf);
anything else is 415, anything unreadable 400, anything past the bounds of `objectbounds` (size,
nesting) 413 or 400. YAML means what its JSON would (`yamlbodies`). Below the HTTP edge because
writes read patches and apply configurations too, and admission reads webhook answers.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from typing import Any

import orjson
import yaml

from flotilla.apiserver import errors
from flotilla.apiserver.encoding.protobuf import ProtobufError, UnsupportedKindError, decode_object
from flotilla.apiserver.encoding.yamlbodies import decode_yaml_document
from flotilla.apiserver.registry.objectbounds import (
    MAX_BODY_BYTES,
    MAX_DEPTH,
    check_body_size,
    check_depth,
    may_exceed_depth,
    too_deep,
)
from flotilla.runtime.garbage import collection_paused

JSON = "application/json"
YAML = "application/yaml"
PROTOBUF = "application/vnd.kubernetes.protobuf"
JSON_PATCH = "application/json-patch+json"
MERGE_PATCH = "application/merge-patch+json"
STRATEGIC_MERGE_PATCH = "application/strategic-merge-patch+json"
APPLY_PATCH = "application/apply-patch+yaml"
PATCH_TYPES = (JSON_PATCH, MERGE_PATCH, STRATEGIC_MERGE_PATCH, APPLY_PATCH)
OBJECT_TYPES = (JSON, YAML, PROTOBUF)


def media_type_of(content_type: str | None) -> str:
    return (content_type or "").split(";", 1)[0].strip().lower()


def check_size(body: bytes) -> None:
    """413 for a body over 3 MiB (kept for callers of the old name; see `objectbounds`)."""
    check_body_size(body)


@dataclass(slots=True)
class DecodedBody:
    obj: Any
    duplicate_fields: list[str]


IN_LOOP_BODY_BYTES = 64 * 1024
"""Bodies up to this size are decoded on the event loop; bigger ones in a worker thread (orjson reads
a megabyte of many small fields in tens of milliseconds). YAML is always decoded in a thread:
aliases make even a small body's cost depend on what it expands to (bounded, but not small)."""


def decode_body(body: bytes, content_type: str | None, *, find_duplicates: bool = False) -> DecodedBody:
    """Read a request body sent as JSON, YAML or protobuf into plain data, within the bounds of
    `objectbounds` (3 MiB of body, 128 levels of nesting; 400 or 413 past them)."""
    check_body_size(body)
    media = media_type_of(content_type) or JSON
    if media == JSON:
        return _decode_json(body, find_duplicates)
    if media == YAML:
        document = decode_yaml_document(body)
        return DecodedBody(document.value, document.duplicate_fields if find_duplicates else [])
    if media == PROTOBUF:
        try:
            obj = decode_object(body)
        except UnsupportedKindError as exc:
            raise errors.UnsupportedMediaType(f"{exc}; send this kind as {JSON}") from exc
        except ProtobufError as exc:
            raise errors.BadRequest(
                f"the body of the request could not be decoded as protobuf: {exc}"
            ) from exc
        check_depth(obj)  # an embedded RawExtension is JSON of any depth
        return DecodedBody(obj, [])
    raise errors.UnsupportedMediaType(
        f"the body of the request was in an unknown format - accepted media types include: "
        f"{JSON}, {YAML}, {PROTOBUF}"
    )


async def read_body(body: bytes, content_type: str | None, *, find_duplicates: bool = False) -> DecodedBody:
    """`decode_body`, in a worker thread when the body is costly to decode (see IN_LOOP_BODY_BYTES)."""
    media = media_type_of(content_type) or JSON
    costly = media == YAML or len(body) > IN_LOOP_BODY_BYTES
    if costly and len(body) <= MAX_BODY_BYTES:
        return await asyncio.to_thread(_decode_paused, body, content_type, find_duplicates)
    return decode_body(body, content_type, find_duplicates=find_duplicates)


def _decode_paused(body: bytes, content_type: str | None, find_duplicates: bool) -> DecodedBody:
    """`decode_body` in a worker thread, with the collector paused (see `collection_paused`)."""
    with collection_paused():
        return decode_body(body, content_type, find_duplicates=find_duplicates)


def _decode_yaml_paused(body: bytes, max_depth: int) -> Any:
    with collection_paused():
        return decode_yaml_document(body, max_depth).value


def _decode_json(body: bytes, find_duplicates: bool) -> DecodedBody:
    if not body.strip():
        raise errors.BadRequest("the request body is empty; send the object as JSON or YAML")
    obj = _load_json(body)
    if not find_duplicates or b'"' not in body:
        return DecodedBody(obj, [])
    # orjson keeps the last of a key given twice without saying so; the standard library's parser
    # reports every object's pairs, on a body already known to be valid and within the depth bound.
    duplicates: list[str] = []
    json.loads(body, object_pairs_hook=_DuplicateFinder(duplicates))
    return DecodedBody(obj, duplicates)


def _load_json(body: bytes) -> Any:
    """orjson's reading of a JSON body (integers past 64 bits become floats, as in kube), 400 when
    invalid or nested past MAX_DEPTH."""
    try:
        obj = orjson.loads(body)
    except orjson.JSONDecodeError as exc:
        if "depth" in str(exc) or "recursion" in str(exc):
            raise too_deep() from exc
        raise errors.BadRequest(f"the body of the request is not valid JSON: {exc}") from exc
    if may_exceed_depth(body):
        check_depth(obj)
    return obj


class _DuplicateFinder:
    """A json `object_pairs_hook` that notes keys given twice in one object (strict field validation)."""

    def __init__(self, sink: list[str]) -> None:
        self._sink = sink

    def __call__(self, pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                self._sink.append(key)
            seen.add(key)
        return {}


def decode_yaml(body: bytes) -> Any:
    """The JSON value of a YAML body (see `yamlbodies`)."""
    return decode_yaml_document(body).value


def decode_json_or_yaml(body: bytes, max_depth: int = MAX_DEPTH) -> Any:
    """A body that may be JSON or YAML (patches, apply configurations): JSON first, it is faster.
    `max_depth` is more than MAX_DEPTH for a body that wraps objects (a JSON patch's operations)."""
    check_body_size(body)
    try:
        obj = orjson.loads(body)
    except orjson.JSONDecodeError:
        return decode_yaml_document(body, max_depth).value
    if may_exceed_depth(body, max_depth):
        check_depth(obj, limit=max_depth)
    return obj


async def read_json_or_yaml(body: bytes, max_depth: int = MAX_DEPTH) -> Any:
    """`decode_json_or_yaml`, with YAML — and JSON past IN_LOOP_BODY_BYTES, whose decoding and depth
    walk take tens of milliseconds — read in a worker thread."""
    check_body_size(body)
    if len(body) > IN_LOOP_BODY_BYTES:
        return await asyncio.to_thread(decode_json_or_yaml, body, max_depth)
    try:
        obj = orjson.loads(body)
    except orjson.JSONDecodeError:
        return await asyncio.to_thread(_decode_yaml_paused, body, max_depth)
    if may_exceed_depth(body, max_depth):
        check_depth(obj, limit=max_depth)
    return obj


def encode(data: Any, media_type: str = JSON) -> bytes:
    if media_type == YAML:
        return yaml.safe_dump(data, sort_keys=False).encode()
    return orjson.dumps(data)
