"""Content negotiation: which representation a client accepts.

Responses are JSON (kube-apiserver's default); a `Table` or `PartialObjectMetadata` view is chosen by
the `as=…;g=meta.k8s.io;v=…` parameters of the Accept header, as kubectl and metadata informers ask.
How a request body is read is `encoding/bodies.py`.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from flotilla.apiserver import errors
from flotilla.apiserver.encoding.bodies import JSON, PROTOBUF, YAML


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
