"""The paths of the OpenAPI documents: one path item per URL a resource is served at, as a model.

Both documents describe the same operations, so they are built once here, as data (`PathItem`,
`Operation`, `Parameter`, `Body`, `Response`), and written out by `openapi3.py` (`/openapi/v3`)
and `swagger2.py` (`/openapi/v2`). kubectl reads three things from these operations, so they
follow kube-apiserver exactly:

- `x-kubernetes-group-version-kind` on each operation: `explain` maps a resource to its kind
  through it, and the field-validation check looks for the PATCH operation of an object's kind;
- the `fieldValidation` query parameter on POST/PUT/PATCH: present ⇒ kubectl sends
  `fieldValidation=Strict` and leaves validation to the server (kubectl 1.27 and 1.28 look for
  it in v2, on the PATCH operation of the kind's path);
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

from flotilla.api.scheme import GroupVersion, GroupVersionKind, ResourceType

from .parameters import ACTION_PARAMETERS, QUERY_PARAMETERS, Parameter

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


@dataclass(frozen=True, slots=True)
class Body:
    """An operation's request body: the schema it holds and the media types it may come in."""

    schema: str
    media_types: tuple[str, ...]
    required: bool = True


@dataclass(frozen=True, slots=True)
class Response:
    """One status code's answer; `schema` None for a bare description (401)."""

    code: str
    description: str
    schema: str | None = None
    media_types: tuple[str, ...] = RESPONSE_MEDIA_TYPES


@dataclass(frozen=True, slots=True)
class Operation:
    """One HTTP method on one path; `action` and `gvk` are kube's extensions (absent on discovery)."""

    method: str
    operation_id: str
    description: str
    tag: str
    parameters: tuple[Parameter, ...]
    body: Body | None
    responses: tuple[Response, ...]
    action: str | None = None
    gvk: GroupVersionKind | None = None

    def extensions(self) -> dict[str, object]:
        """kube's `x-kubernetes-action` and `x-kubernetes-group-version-kind`, written alike by v2 and v3."""
        written: dict[str, object] = {}
        if self.action is not None:
            written["x-kubernetes-action"] = self.action
        if self.gvk is not None:
            written["x-kubernetes-group-version-kind"] = {
                "group": self.gvk.group,
                "kind": self.gvk.kind,
                "version": self.gvk.version,
            }
        return written


@dataclass(frozen=True, slots=True)
class PathItem:
    """One URL, its operations and the parameters they share (path parameters and `pretty`)."""

    path: str
    operations: tuple[Operation, ...]
    parameters: tuple[Parameter, ...] = ()


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


def resource_paths(resource: ResourceType, schemas: ResourceSchemas) -> list[PathItem]:
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
    return [_path_item(naming, resource, schemas, endpoint) for endpoint in endpoints if endpoint.actions]


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
) -> PathItem:
    """The path item of one endpoint: its operations, and its path parameters."""
    subject = (
        resource.kind if endpoint.all_namespaces or not endpoint.namespaced else f"Namespaced{resource.kind}"
    )
    operations = []
    for action in endpoint.actions:
        if endpoint.subresource:
            schema = schemas.subresources[endpoint.subresource][1]
        else:
            schema = schemas.list_kind if action == "list" else schemas.kind
        deleted = schema if schemas.delete_returns_object and not endpoint.subresource else STATUS
        operation_id = naming.operation_id(
            action,
            subject,
            suffix="ForAllNamespaces" if endpoint.all_namespaces else endpoint.subresource.title(),
        )
        operations.append(
            Operation(
                method=_HTTP_METHODS[action],
                operation_id=operation_id,
                description=_describe(action, resource.kind, endpoint.subresource),
                tag=naming.tag,
                parameters=tuple(QUERY_PARAMETERS[name] for name in sorted(ACTION_PARAMETERS[action])),
                body=_request_body(action, schema, schemas.patch_types),
                responses=_responses(action, schema, deleted),
                action=action,
                gvk=endpoint.gvk,
            )
        )
    parameters = _path_parameters(resource.kind, item=endpoint.item, namespaced=endpoint.namespaced)
    return PathItem(endpoint.path, tuple(operations), parameters)


def group_version_root_path(group_version: GroupVersion) -> PathItem:
    """The group version's discovery path (`/apis/apps/v1/`), answering an APIResourceList."""
    naming = _Naming(group_version)
    operation = Operation(
        method="get",
        operation_id=f"get{naming.prefix}APIResources",
        description="get available resources",
        tag=naming.tag,
        parameters=(),
        body=None,
        responses=(Response("200", "OK", API_RESOURCE_LIST), _UNAUTHORIZED),
    )
    return PathItem(f"{group_version.path}/", (operation,))


_UNAUTHORIZED = Response("401", "Unauthorized")


def _request_body(action: str, schema: str, patch_types: tuple[str, ...]) -> Body | None:
    if action in ("post", "put"):
        return Body(schema, REQUEST_MEDIA_TYPES)
    if action == "patch":
        return Body(PATCH, patch_types)
    if action in ("delete", "deletecollection"):
        return Body(DELETE_OPTIONS, REQUEST_MEDIA_TYPES, required=False)
    return None


def _responses(action: str, schema: str, deleted: str = STATUS) -> tuple[Response, ...]:
    """The responses of an action; `deleted`: what a DELETE of one object answers (kube declares the
    object for the registries that return it, and a Status for the others and for deletecollection)."""
    if action == "deletecollection":
        responses = [Response("200", "OK", STATUS)]
    elif action == "delete":
        responses = [Response("200", "OK", deleted), Response("202", "Accepted", deleted)]
    elif action == "list":
        responses = [Response("200", "OK", schema, (*RESPONSE_MEDIA_TYPES, *WATCH_MEDIA_TYPES))]
    else:
        responses = [Response("200", "OK", schema)]
        if action in ("post", "put", "patch"):
            responses.append(Response("201", "Created", schema))
        if action == "post":
            responses.append(Response("202", "Accepted", schema))
    responses.append(_UNAUTHORIZED)
    return tuple(responses)


def _path_parameters(kind: str, *, item: bool, namespaced: bool) -> tuple[Parameter, ...]:
    parameters = []
    if item:
        parameters.append(Parameter("name", "path", "string", f"name of the {kind}", required=True))
    if namespaced:
        parameters.append(
            Parameter(
                "namespace",
                "path",
                "string",
                "object name and auth scope, such as for teams and projects",
                required=True,
            )
        )
    parameters.append(QUERY_PARAMETERS["pretty"])
    return tuple(parameters)


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
