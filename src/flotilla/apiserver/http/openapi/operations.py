"""The `paths` of an `/openapi/v3` document: one path item per URL a resource is served at.

kubectl reads three things from these operations, so they follow kube-apiserver exactly:

- `x-kubernetes-group-version-kind` on each operation: `explain` maps a resource to its kind
  through it, and the field-validation check looks for the PATCH operation of an object's kind;
- the `fieldValidation` query parameter on POST/PUT/PATCH: present ⇒ kubectl sends
  `fieldValidation=Strict` and leaves validation to the server instead of failing to validate
  locally (it has no `/openapi/v2`);
- the PATCH request body's media types: `application/strategic-merge-patch+json` makes
  `kubectl apply` send a strategic merge patch, its absence (custom resources) a JSON merge patch.

Everything else (operation ids, tags, descriptions, responses) mirrors kube's naming so generated
clients and humans reading the document see the familiar shapes. Parameters are written inline on
each operation, sorted by name, as kube does; descriptions are our own and shorter.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from flotilla.api.scheme import GroupVersion, GroupVersionKind, ResourceType

from .components import schema_ref

STATUS = "io.k8s.apimachinery.pkg.apis.meta.v1.Status"
DELETE_OPTIONS = "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions"
PATCH = "io.k8s.apimachinery.pkg.apis.meta.v1.Patch"
API_RESOURCE_LIST = "io.k8s.apimachinery.pkg.apis.meta.v1.APIResourceList"

RESPONSE_MEDIA_TYPES = ("application/json",)
"""What the server answers with (every response is JSON, whatever the request body was)."""
WATCH_MEDIA_TYPES = ("application/json;stream=watch",)
"""Added to list operations, which also stream watch events."""
REQUEST_MEDIA_TYPES = ("*/*",)
"""Create/replace/delete bodies: JSON, YAML or protobuf, as kube accepts them."""

JSON_PATCH = "application/json-patch+json"
MERGE_PATCH = "application/merge-patch+json"
STRATEGIC_MERGE_PATCH = "application/strategic-merge-patch+json"
APPLY_PATCH = "application/apply-patch+yaml"
BUILTIN_PATCH_TYPES = (APPLY_PATCH, JSON_PATCH, MERGE_PATCH, STRATEGIC_MERGE_PATCH)
CUSTOM_PATCH_TYPES = (APPLY_PATCH, JSON_PATCH, MERGE_PATCH)
"""Custom resources have no Go struct tags to merge by, so no strategic merge patch."""


def _query(name: str, schema_type: str, description: str) -> dict[str, Any]:
    return {
        "description": description,
        "in": "query",
        "name": name,
        "schema": {"type": schema_type, "uniqueItems": True},
    }


QUERY_PARAMETERS: Mapping[str, Mapping[str, Any]] = {
    parameter["name"]: parameter
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
"""Every query parameter an operation may declare, in kube's wire shape."""

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

_ITEM_ACTIONS = (("get", "get"), ("update", "put"), ("patch", "patch"), ("delete", "delete"))
_COLLECTION_ACTIONS = (("list", "list"), ("create", "post"), ("deletecollection", "deletecollection"))
_SUBRESOURCE_ACTIONS = (("get", "get"), ("create", "post"), ("update", "put"), ("patch", "patch"))
_HTTP_METHODS = {
    "get": "get",
    "list": "get",
    "post": "post",
    "put": "put",
    "patch": "patch",
    "delete": "delete",
    "deletecollection": "delete",
}
_OPERATION_VERBS = {
    "get": "read",
    "list": "list",
    "post": "create",
    "put": "replace",
    "patch": "patch",
    "delete": "delete",
    "deletecollection": "delete",
}


@dataclass(frozen=True, slots=True)
class ResourceSchemas:
    """The component names one resource's operations refer to."""

    kind: str
    list_kind: str
    subresources: Mapping[str, tuple[GroupVersionKind, str]]
    """Subresource name → the kind it speaks and that kind's component name."""
    patch_types: tuple[str, ...]
    """The media types the resource's PATCH operations accept."""
    delete_returns_object: bool = False
    """Whether a DELETE answers with the object (pods, custom resources) rather than a Status."""


def resource_paths(resource: ResourceType, schemas: ResourceSchemas) -> dict[str, dict[str, Any]]:
    """Every path item serving `resource`: collections, the item, its subresources."""
    base = resource.group_version.path
    if resource.namespaced:
        collection = f"{base}/namespaces/{{namespace}}/{resource.plural}"
    else:
        collection = f"{base}/{resource.plural}"
    item = f"{collection}/{{name}}"
    verbs = set(resource.verbs)
    endpoints: list[_Endpoint] = []
    if resource.namespaced and "list" in verbs:
        endpoints.append(
            _Endpoint(
                f"{base}/{resource.plural}", ("list",), resource.gvk, namespaced=False, all_namespaces=True
            )
        )
    collection_actions = tuple(action for verb, action in _COLLECTION_ACTIONS if verb in verbs)
    item_actions = tuple(action for verb, action in _ITEM_ACTIONS if verb in verbs)
    endpoints.append(_Endpoint(collection, collection_actions, resource.gvk, namespaced=resource.namespaced))
    endpoints.append(_Endpoint(item, item_actions, resource.gvk, namespaced=resource.namespaced, item=True))
    for subresource in resource.subresources:
        sub_gvk, _ = schemas.subresources[subresource.name]
        sub_actions = tuple(action for verb, action in _SUBRESOURCE_ACTIONS if verb in subresource.verbs)
        endpoints.append(
            _Endpoint(
                f"{item}/{subresource.name}",
                sub_actions,
                sub_gvk,
                namespaced=resource.namespaced,
                item=True,
                subresource=subresource.name,
            )
        )
    naming = _Naming(resource.group_version)
    return {
        endpoint.path: _path_item(naming, resource, schemas, endpoint)
        for endpoint in endpoints
        if endpoint.actions
    }


@dataclass(frozen=True, slots=True)
class _Endpoint:
    """One URL of a resource and the actions served there."""

    path: str
    actions: tuple[str, ...]
    gvk: GroupVersionKind
    namespaced: bool
    item: bool = False
    subresource: str = ""
    all_namespaces: bool = False


def _path_item(
    naming: _Naming, resource: ResourceType, schemas: ResourceSchemas, endpoint: _Endpoint
) -> dict[str, Any]:
    """The path item of one endpoint: its operations by HTTP method, and its path parameters."""
    path_item: dict[str, Any] = {}
    subject = (
        resource.kind if endpoint.all_namespaces or not endpoint.namespaced else f"Namespaced{resource.kind}"
    )
    for action in endpoint.actions:
        if endpoint.subresource:
            schema = schemas.subresources[endpoint.subresource][1]
        else:
            schema = schemas.list_kind if action == "list" else schemas.kind
        operation: dict[str, Any] = {
            "description": _describe(action, resource.kind, endpoint.subresource),
            "operationId": naming.operation_id(
                action,
                subject,
                suffix="ForAllNamespaces" if endpoint.all_namespaces else endpoint.subresource.title(),
            ),
        }
        parameters = [dict(QUERY_PARAMETERS[name]) for name in sorted(ACTION_PARAMETERS[action])]
        if parameters:
            operation["parameters"] = parameters
        body = _request_body(action, schema, schemas.patch_types)
        if body is not None:
            operation["requestBody"] = body
        deleted = schema if schemas.delete_returns_object and not endpoint.subresource else STATUS
        operation["responses"] = _responses(action, schema, deleted)
        operation["tags"] = [naming.tag]
        operation["x-kubernetes-action"] = action
        operation["x-kubernetes-group-version-kind"] = {
            "group": endpoint.gvk.group,
            "kind": endpoint.gvk.kind,
            "version": endpoint.gvk.version,
        }
        path_item[_HTTP_METHODS[action]] = operation
    path_item["parameters"] = _path_parameters(
        resource.kind, item=endpoint.item, namespaced=endpoint.namespaced
    )
    return path_item


def group_version_root_path(group_version: GroupVersion) -> dict[str, dict[str, Any]]:
    """The group version's discovery path (`/apis/apps/v1/`), answering an APIResourceList."""
    naming = _Naming(group_version)
    return {
        f"{group_version.path}/": {
            "get": {
                "description": "get available resources",
                "operationId": f"get{naming.prefix}APIResources",
                "responses": {"200": _response("OK", API_RESOURCE_LIST), "401": dict(_UNAUTHORIZED)},
                "tags": [naming.tag],
            }
        }
    }


_UNAUTHORIZED = {"description": "Unauthorized"}


def _request_body(action: str, schema: str, patch_types: tuple[str, ...]) -> dict[str, Any] | None:
    if action in ("post", "put"):
        return {"content": _content(REQUEST_MEDIA_TYPES, schema), "required": True}
    if action == "patch":
        return {"content": _content(patch_types, PATCH), "required": True}
    if action in ("delete", "deletecollection"):
        return {"content": _content(REQUEST_MEDIA_TYPES, DELETE_OPTIONS)}
    return None


def _responses(action: str, schema: str, deleted: str = STATUS) -> dict[str, Any]:
    """The responses of an action; `deleted`: what a DELETE of one object answers (kube declares the
    object for the registries that return it, and a Status for the others and for deletecollection)."""
    if action == "deletecollection":
        responses = {"200": _response("OK", STATUS)}
    elif action == "delete":
        responses = {"200": _response("OK", deleted), "202": _response("Accepted", deleted)}
    elif action == "list":
        responses = {"200": _response("OK", schema, (*RESPONSE_MEDIA_TYPES, *WATCH_MEDIA_TYPES))}
    else:
        responses = {"200": _response("OK", schema)}
        if action in ("post", "put", "patch"):
            responses["201"] = _response("Created", schema)
        if action == "post":
            responses["202"] = _response("Accepted", schema)
    responses["401"] = dict(_UNAUTHORIZED)
    return responses


def _response(
    description: str, schema: str, media_types: tuple[str, ...] = RESPONSE_MEDIA_TYPES
) -> dict[str, Any]:
    return {"content": _content(media_types, schema), "description": description}


def _content(media_types: tuple[str, ...], schema: str) -> dict[str, Any]:
    return {media_type: {"schema": schema_ref(schema)} for media_type in media_types}


def _path_parameters(kind: str, *, item: bool, namespaced: bool) -> list[dict[str, Any]]:
    parameters = []
    if item:
        parameters.append(_path_parameter("name", f"name of the {kind}"))
    if namespaced:
        parameters.append(
            _path_parameter("namespace", "object name and auth scope, such as for teams and projects")
        )
    parameters.append(dict(QUERY_PARAMETERS["pretty"]))
    return parameters


def _path_parameter(name: str, description: str) -> dict[str, Any]:
    return {
        "description": description,
        "in": "path",
        "name": name,
        "required": True,
        "schema": {"type": "string", "uniqueItems": True},
    }


def _describe(action: str, kind: str, subresource: str = "") -> str:
    """kube's operation descriptions: "read the specified Deployment", "create a Pod"…"""
    of = f" {subresource} of" if subresource else ""
    if action == "list":
        return f"list or watch objects of kind {kind}"
    if action == "deletecollection":
        return f"delete collection of {kind}"
    if action in ("post", "delete"):
        article = "an" if kind[:1] in "AEIOU" else "a"
        return f"{_OPERATION_VERBS[action]}{of} {article} {kind}"
    if action == "patch":
        return f"partially update{of} the specified {kind}"
    return f"{_OPERATION_VERBS[action]}{of} the specified {kind}"


class _Naming:
    """kube's operation ids and tags: `patchAppsV1NamespacedDeployment`, tag `apps_v1`."""

    def __init__(self, group_version: GroupVersion) -> None:
        group = group_version.group.removesuffix(".k8s.io") or "core"
        words = [word for word in re.split(r"[^A-Za-z0-9]+", group) if word]
        camel = "".join(word[:1].upper() + word[1:] for word in words)
        version = group_version.version[:1].upper() + group_version.version[1:]
        self.prefix = camel + version
        self.tag = f"{camel[:1].lower()}{camel[1:]}_{group_version.version}"

    def operation_id(self, action: str, subject: str, *, suffix: str = "") -> str:
        verb = _OPERATION_VERBS[action]
        collection = "Collection" if action == "deletecollection" else ""
        return f"{verb}{self.prefix}{collection}{subject}{suffix}"
