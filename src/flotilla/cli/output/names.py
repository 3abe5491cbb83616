"""Resources and objects spelled as kubectl prints them: `deployment.apps/nginx`, `pod/web-0`.

kubectl's name printer: the lower-case kind, then `.group` for kinds outside the core group, then
`/name`. `get -o name` prints these, `get` prefixes its NAME column with them when several types
answer, and `apply` and `promote` name each object they write this way.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def qualified_kind(kind: str, group: str) -> str:
    """The lower-case `kind.group` kubectl prefixes names with: `deployment.apps`, bare `pod`."""
    return f"{kind.lower()}.{group}" if group else kind.lower()


def printed_name(kind: str, group: str, name: str) -> str:
    """`deployment.apps/nginx`, `configmap/settings`: kubectl's name printer for an object."""
    return f"{qualified_kind(kind, group)}/{name}"


def printed_object_name(obj: Mapping[str, Any]) -> str:
    """`printed_name` of a manifest, from its apiVersion, kind and name."""
    group = str(obj.get("apiVersion") or "").rpartition("/")[0]
    return printed_name(str(obj.get("kind") or ""), group, str((obj.get("metadata") or {}).get("name") or ""))
