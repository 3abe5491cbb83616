"""The OpenAPI documents as served: built off the event loop once per change of what is served.

Documents are built from what the registry serves when a client first asks after a change (a
CRD came, went or changed), never per request: the `/openapi/v2` document holds every kind and
runs to megabytes, and building it, encoding it as JSON and as protobuf and compressing both is
CPU work that would stall every other request if it ran on the event loop. So the registry is
read on the loop (a snapshot of resource types, cheap), and everything else happens in a worker
thread; concurrent requests wait for the one build. Each representation keeps its bytes, their
gzip and its ETag.
"""

from __future__ import annotations

import asyncio
import gzip
import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

from flotilla.api.scheme import GroupVersion
from flotilla.apiserver.context import APIContext
from flotilla.apiserver.encoding.protobuf.openapiv2 import OPENAPI_V2_PROTOBUF, encode_document
from flotilla.apiserver.registry.schema.builtin import builtin_schemas

from .documents import (
    OpenAPIBuilder,
    ResourceTypeSpec,
    document_hash,
    group_version_key,
    root_document,
    serialize_document,
)

JSON = "application/json"
_GZIP_LEVEL = 6

Snapshot = Sequence[tuple[GroupVersion, Sequence[ResourceTypeSpec]]]
"""What is served, by group version in discovery order: what a build reads."""


@dataclass(frozen=True, slots=True)
class Encoded:
    """One representation of a document: its bytes, their gzip, its media type and ETag."""

    body: bytes
    gzipped: bytes
    content_type: str
    etag: str


def encoded(body: bytes, content_type: str, etag: str) -> Encoded:
    return Encoded(body, gzip.compress(body, compresslevel=_GZIP_LEVEL, mtime=0), content_type, etag)


@dataclass(frozen=True, slots=True)
class V3Documents:
    """`/openapi/v3`: the root index and each group version's document, by key (`apis/apps/v1`)."""

    root: Encoded
    documents: dict[str, Encoded]


@dataclass(frozen=True, slots=True)
class V2Document:
    """`/openapi/v2` in its two forms; both carry the JSON's ETag, as kube's do."""

    json: Encoded
    protobuf: Encoded


class OpenAPICache:
    """The current documents of one API server, rebuilt (off the loop) when the registry changes."""

    def __init__(self, kubernetes_version: str) -> None:
        self._builder = OpenAPIBuilder(builtin_schemas().definitions, info_version=kubernetes_version)
        self._lock = asyncio.Lock()
        self._v3: tuple[int, V3Documents] | None = None
        self._v2: tuple[int, V2Document] | None = None

    async def v3(self, ctx: APIContext) -> V3Documents:
        async with self._lock:
            generation = ctx.registry.generation
            if self._v3 is None or self._v3[0] != generation:
                documents = await asyncio.to_thread(build_v3, self._builder, snapshot(ctx))
                self._v3 = (generation, documents)
            return self._v3[1]

    async def v2(self, ctx: APIContext) -> V2Document:
        async with self._lock:
            generation = ctx.registry.generation
            if self._v2 is None or self._v2[0] != generation:
                document = await asyncio.to_thread(build_v2, self._builder, snapshot(ctx))
                self._v2 = (generation, document)
            return self._v2[1]


def snapshot(ctx: APIContext) -> Snapshot:
    """What the registry serves now, as the builders take it (read on the event loop)."""
    served: list[tuple[GroupVersion, list[ResourceTypeSpec]]] = []
    for group, versions in ctx.registry.group_versions():
        for version in versions:
            gv = GroupVersion(group, version)
            specs = [
                ResourceTypeSpec(s.type, s.custom.raw_schema if s.custom else None)
                for s in ctx.registry.in_group_version(gv)
            ]
            served.append((gv, specs))
    return served


def build_v3(builder: OpenAPIBuilder, served: Snapshot) -> V3Documents:
    """Every group version's v3 document and the root that points at them (run in a thread)."""
    documents: dict[str, Encoded] = {}
    for gv, specs in served:
        document = builder.group_version_document(gv, specs)
        documents[group_version_key(gv)] = encoded(
            serialize_document(document), JSON, document_hash(document)
        )
    root = root_document({key: document.etag for key, document in documents.items()})
    return V3Documents(encoded(serialize_document(root), JSON, document_hash(root)), documents)


def build_v2(builder: OpenAPIBuilder, served: Snapshot) -> V2Document:
    """The v2 document as JSON and as gnostic protobuf (run in a thread)."""
    document = builder.swagger_document(served)
    body = serialize_document(document)
    etag = hashlib.sha512(body).hexdigest().upper()
    return V2Document(
        json=encoded(body, JSON, etag),
        protobuf=encoded(encode_document(document), OPENAPI_V2_PROTOBUF, etag),
    )
