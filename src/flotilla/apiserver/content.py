"""Content negotiation: which representation a client accepts, and how to read what it sent.

Responses are JSON (kube-apiserver's default); a `Table` or `PartialObjectMetadata` view is chosen by
the `as=…;g=meta.k8s.io;v=…` parameters of the Accept header, as kubectl and metadata informers ask.
Request bodies arrive as JSON, YAML or Kubernetes protobuf (kubectl's typed commands send protobuf);
anything else is 415, anything unreadable 400.
"""

from __future__ import annotations

import enum
import json
from dataclasses import dataclass
from typing import Any

import orjson
import yaml

from flotilla.apiserver import errors
from flotilla.apiserver.protobuf import ProtobufError, UnsupportedKindError, decode_object

JSON = "application/json"
YAML = "application/yaml"
PROTOBUF = "application/vnd.kubernetes.protobuf"
JSON_PATCH = "application/json-patch+json"
MERGE_PATCH = "application/merge-patch+json"
STRATEGIC_MERGE_PATCH = "application/strategic-merge-patch+json"
APPLY_PATCH = "application/apply-patch+yaml"
PATCH_TYPES = (JSON_PATCH, MERGE_PATCH, STRATEGIC_MERGE_PATCH, APPLY_PATCH)
OBJECT_TYPES = (JSON, YAML, PROTOBUF)

MAX_BODY_BYTES = 3 * 1024 * 1024


class View(enum.Enum):
    """What shape the client wants the answer in."""

    OBJECT = "object"
    TABLE = "Table"
    METADATA = "PartialObjectMetadata"
    METADATA_LIST = "PartialObjectMetadataList"


@dataclass(frozen=True, slots=True)
class Negotiated:
    view: View
    media_type: str  # application/json or application/yaml
    meta_version: str = "v1"  # meta.k8s.io version of Table / PartialObjectMetadata

    @property
    def content_type(self) -> str:
        if self.view is View.OBJECT:
            return self.media_type
        return f"{self.media_type};as={self.view.value};v={self.meta_version};g=meta.k8s.io"


@dataclass(frozen=True, slots=True)
class MediaRange:
    type: str
    params: dict[str, str]


def parse_accept(header: str) -> list[MediaRange]:
    ranges = []
    for part in header.split(","):
        fields = [f.strip() for f in part.split(";")]
        if not fields[0]:
            continue
        params = {}
        for field in fields[1:]:
            key, _, value = field.partition("=")
            params[key.strip().lower()] = value.strip().strip('"')
        ranges.append(MediaRange(fields[0].lower(), params))
    return ranges


_JSON_DEFAULT = Negotiated(View.OBJECT, JSON)


def negotiate(accept: str | None, *, allow_views: bool = True) -> Negotiated:
    """Pick the first acceptable representation from an Accept header (406 if none is)."""
    if not accept:
        return _JSON_DEFAULT
    offered = []
    for media in parse_accept(accept):
        if media.type in ("application/json", "application/*", "*/*", "application/yaml"):
            media_type = YAML if media.type == YAML else JSON
            view_name = media.params.get("as")
            if view_name is None:
                return Negotiated(View.OBJECT, media_type)
            if not allow_views or media.params.get("g") != "meta.k8s.io":
                continue
            version = media.params.get("v", "v1")
            if version not in ("v1", "v1beta1"):
                continue
            for view in View:
                if view.value == view_name and view is not View.OBJECT:
                    return Negotiated(view, media_type, version)
        offered.append(media.type)
    if any(m == PROTOBUF for m in offered):
        # Protobuf responses are never required: every Go client also accepts JSON,
        # but one that asked for protobuf alone gets JSON rather than an error.
        return _JSON_DEFAULT
    raise errors.NotAcceptable(f"only the following media types are accepted: {JSON}, {YAML}")


def media_type_of(content_type: str | None) -> str:
    return (content_type or "").split(";", 1)[0].strip().lower()


def check_size(body: bytes) -> None:
    if len(body) > MAX_BODY_BYTES:
        raise errors.RequestEntityTooLarge(
            f"the request body is {len(body)} bytes; the limit is {MAX_BODY_BYTES} bytes (3 MiB)"
        )


@dataclass(slots=True)
class DecodedBody:
    obj: Any
    duplicate_fields: list[str]


def decode_body(body: bytes, content_type: str | None, *, find_duplicates: bool = False) -> DecodedBody:
    """Read a request body sent as JSON, YAML or protobuf into plain data."""
    check_size(body)
    media = media_type_of(content_type) or JSON
    if media == JSON:
        return _decode_json(body, find_duplicates)
    if media == YAML:
        return DecodedBody(decode_yaml(body), [])
    if media == PROTOBUF:
        try:
            return DecodedBody(decode_object(body), [])
        except UnsupportedKindError as exc:
            raise errors.UnsupportedMediaType(f"{exc}; send this kind as {JSON}") from exc
        except ProtobufError as exc:
            raise errors.BadRequest(
                f"the body of the request could not be decoded as protobuf: {exc}"
            ) from exc
    raise errors.UnsupportedMediaType(
        f"the body of the request was in an unknown format - accepted media types include: "
        f"{JSON}, {YAML}, {PROTOBUF}"
    )


def _decode_json(body: bytes, find_duplicates: bool) -> DecodedBody:
    if not body.strip():
        raise errors.BadRequest("the request body is empty; send the object as JSON or YAML")
    if not find_duplicates:
        try:
            return DecodedBody(orjson.loads(body), [])
        except orjson.JSONDecodeError as exc:
            raise errors.BadRequest(f"the body of the request is not valid JSON: {exc}") from exc
    duplicates: list[str] = []
    try:
        obj = json.loads(body, object_pairs_hook=_DuplicateFinder(duplicates))
    except (ValueError, UnicodeDecodeError) as exc:
        raise errors.BadRequest(f"the body of the request is not valid JSON: {exc}") from exc
    return DecodedBody(obj, duplicates)


class _DuplicateFinder:
    """A json `object_pairs_hook` that notes keys given twice in one object (strict field validation)."""

    def __init__(self, sink: list[str]) -> None:
        self._sink = sink

    def __call__(self, pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        result: dict[str, Any] = {}
        for key, value in pairs:
            if key in result:
                self._sink.append(key)
            result[key] = value
        return result


def decode_yaml(body: bytes) -> Any:
    try:
        return yaml.load(body, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))  # noqa: S506 - safe loader
    except yaml.YAMLError as exc:
        raise errors.BadRequest(f"the body of the request is not valid YAML: {exc}") from exc


def encode(data: Any, media_type: str = JSON) -> bytes:
    if media_type == YAML:
        return yaml.safe_dump(data, sort_keys=False).encode()
    return orjson.dumps(data)
