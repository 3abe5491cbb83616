"""The query and path parameters of the OpenAPI operations, and which action declares which.

kube-apiserver declares each option an operation takes as a parameter; kubectl 1.27 and 1.28 send
`fieldValidation=Strict` only where the PATCH operation declares `fieldValidation` (and validate
on the client otherwise), and generated clients build their signatures from these lists.
Descriptions are our own and shorter than kube's; names, places and types are kube's.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Parameter:
    """A query or path parameter; kube marks every one `uniqueItems`, so both documents do too."""

    name: str
    location: str
    """`query` or `path`."""
    type: str
    description: str
    required: bool = False


def _query(name: str, schema_type: str, description: str) -> Parameter:
    return Parameter(name, "query", schema_type, description)


QUERY_PARAMETERS: Mapping[str, Parameter] = {
    parameter.name: parameter
    for parameter in (
        _query(
            "allowWatchBookmarks",
            "boolean",
            "Ask for BOOKMARK watch events, which carry only a resourceVersion. Ignored unless watching.",
        ),
        _query("continue", "string", "The continue token of the previous page of a chunked list."),
        _query(
            "dryRun",
            "string",
            "When present (only `All` is valid), the request is processed but nothing is persisted.",
        ),
        _query(
            "fieldManager",
            "string",
            "The name of the actor making the change, recorded in managedFields. Required for apply patches.",
        ),
        _query("fieldSelector", "string", "Select objects by their fields. Defaults to everything."),
        _query(
            "fieldValidation",
            "string",
            "How to treat unknown or duplicate fields in the request body: Ignore, Warn (the "
            "default) or Strict (reject the request with a BadRequest error).",
        ),
        _query(
            "force",
            "boolean",
            "Apply patches only: take ownership of fields other managers own instead of failing "
            "with a conflict. Must be unset for other patch types.",
        ),
        _query(
            "gracePeriodSeconds",
            "integer",
            "Seconds before the object is deleted; zero deletes immediately, unset uses the kind's default.",
        ),
        _query("labelSelector", "string", "Select objects by their labels. Defaults to everything."),
        _query(
            "limit",
            "integer",
            "The largest number of objects to return; when more exist the list carries a continue token.",
        ),
        _query(
            "orphanDependents",
            "boolean",
            "Deprecated: use propagationPolicy. Whether dependents are orphaned rather than deleted.",
        ),
        _query("pretty", "string", "If 'true', then the output is pretty printed."),
        _query(
            "propagationPolicy",
            "string",
            "How dependents are garbage collected: Orphan, Background or Foreground.",
        ),
        _query(
            "resourceVersion",
            "string",
            "Constrains which resource versions the request may be served from.",
        ),
        _query(
            "resourceVersionMatch",
            "string",
            "How resourceVersion applies to a list: Exact or NotOlderThan.",
        ),
        _query(
            "sendInitialEvents",
            "boolean",
            "With watch=true, start the stream with the current objects as ADDED events, then a "
            "BOOKMARK marked `k8s.io/initial-events-end`.",
        ),
        _query(
            "timeoutSeconds",
            "integer",
            "Timeout for the list/watch call, regardless of activity.",
        ),
        _query(
            "watch",
            "boolean",
            "Stream add, update and delete events for the selected objects instead of listing them.",
        ),
    )
}
"""Every query parameter an operation may declare."""

_LIST_PARAMETERS = (
    "allowWatchBookmarks",
    "continue",
    "fieldSelector",
    "labelSelector",
    "limit",
    "resourceVersion",
    "resourceVersionMatch",
    "sendInitialEvents",
    "timeoutSeconds",
    "watch",
)
_DELETE_PARAMETERS = ("dryRun", "gracePeriodSeconds", "orphanDependents", "propagationPolicy")
_WRITE_PARAMETERS = ("dryRun", "fieldManager", "fieldValidation")

ACTION_PARAMETERS: Mapping[str, tuple[str, ...]] = {
    "get": (),
    "list": _LIST_PARAMETERS,
    "post": _WRITE_PARAMETERS,
    "put": _WRITE_PARAMETERS,
    "patch": (*_WRITE_PARAMETERS, "force"),
    "delete": _DELETE_PARAMETERS,
    "deletecollection": tuple(
        sorted({*_DELETE_PARAMETERS, *_LIST_PARAMETERS} - {"allowWatchBookmarks", "watch"})
    ),
}
"""The query parameters of each `x-kubernetes-action`, besides the path item's `pretty`."""
