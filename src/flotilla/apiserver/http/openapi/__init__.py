"""The OpenAPI documents kubectl reads for validation, `apply` patch types, `diff` and `explain`.

Pure builders: the API server serves `root_document` at `/openapi/v3`, each group version's
`OpenAPIBuilder.group_version_document` at `/openapi/v3/<key>?hash=<document_hash>`, and
`OpenAPIBuilder.swagger_document` (every group version, Swagger 2.0) at `/openapi/v2` — the last
as JSON or as gnostic protobuf. `cache` builds them off the event loop, `endpoints` serves them.
"""

from .documents import (
    OpenAPIBuilder,
    ResourceTypeSpec,
    document_hash,
    group_version_key,
    root_document,
    serialize_document,
)

__all__ = [
    "OpenAPIBuilder",
    "ResourceTypeSpec",
    "document_hash",
    "group_version_key",
    "root_document",
    "serialize_document",
]
