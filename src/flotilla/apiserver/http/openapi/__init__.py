"""The `/openapi/v3` documents kubectl reads for validation, `apply` patch types and `explain`.

Pure builders: the API server serves `root_document` at `/openapi/v3` and each group version's
`OpenAPIBuilder.group_version_document` at `/openapi/v3/<key>?hash=<document_hash>`.
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
