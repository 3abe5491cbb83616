"""The resource registry: every resource the server serves right now, built-in or custom.

A `ServedResource` joins a `ResourceType` (what discovery says) with what the server needs to
handle requests for it: the object schema, the table printer, where objects are stored, and for
custom resources the CRD facts (subresources, scale paths, printer columns). Built-ins are
registered at start; the CRD controller adds and removes custom resources while the server runs,
and every change bumps `generation` so discovery and OpenAPI caches know to rebuild.
"""

from __future__ import annotations

import base64
import hashlib
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from flotilla.api.builtin import BUILTIN_RESOURCES, VIRTUAL_RESOURCES
from flotilla.api.scheme import GroupResource, GroupVersion, GroupVersionKind, ResourceType
from flotilla.apiserver.registry.schema.builtin import builtin_schemas
from flotilla.apiserver.registry.schema.model import ANY, Schema
from flotilla.apiserver.registry.tables import TableConvertor, builtin_convertor, default_convertor

if TYPE_CHECKING:
    from flotilla.apiserver.registry.cel.rules import RuleNode
    from flotilla.apiserver.registry.conversion.converters import Conversion

# Group order of kube-apiserver's discovery (its group priorities), so `kubectl api-resources`
# and short-name resolution prefer what kubectl users expect.
GROUP_PRIORITY = (
    "",
    "apiregistration.k8s.io",
    "apps",
    "events.k8s.io",
    "authentication.k8s.io",
    "authorization.k8s.io",
    "autoscaling",
    "batch",
    "certificates.k8s.io",
    "networking.k8s.io",
    "policy",
    "rbac.authorization.k8s.io",
    "storage.k8s.io",
    "admissionregistration.k8s.io",
    "apiextensions.k8s.io",
    "scheduling.k8s.io",
    "coordination.k8s.io",
    "node.k8s.io",
    "discovery.k8s.io",
    "flowcontrol.apiserver.k8s.io",
)

# Built-in kinds whose objects carry metadata.generation (kube's strategies set it for these).
GENERATION_TRACKED = frozenset(
    {
        GroupResource("apps", "deployments"),
        GroupResource("apps", "replicasets"),
        GroupResource("apps", "statefulsets"),
        GroupResource("apps", "daemonsets"),
        GroupResource("batch", "jobs"),
        GroupResource("batch", "cronjobs"),
        GroupResource("", "replicationcontrollers"),
        GroupResource("autoscaling", "horizontalpodautoscalers"),
        GroupResource("policy", "poddisruptionbudgets"),
        GroupResource("networking.k8s.io", "ingresses"),
        GroupResource("networking.k8s.io", "networkpolicies"),
        GroupResource("apiextensions.k8s.io", "customresourcedefinitions"),
    }
)
# Kinds whose status may be set on create (a kubelet registers its Node with status).
STATUS_ON_CREATE = frozenset({GroupResource("", "nodes"), GroupResource("", "events")})

RETURNS_DELETED_OBJECT = frozenset({GroupResource("", "pods")})
"""Built-in resources whose DELETE answers with the object rather than a Status (kube's registries
with ReturnDeletedObject); every custom resource's does too."""


def delete_returns_object(resource: GroupResource, *, builtin: bool) -> bool:
    """Whether a DELETE that removed the object answers with it (else with a Status), which the
    `/openapi/v3` documents declare as the delete's response."""
    return not builtin or resource in RETURNS_DELETED_OBJECT


@dataclass(frozen=True, slots=True)
class ScalePaths:
    """Where a custom resource keeps what its `scale` subresource shows."""

    spec_replicas: str
    status_replicas: str
    label_selector: str | None


@dataclass(frozen=True, slots=True)
class CustomResourceFacts:
    """What a CRD version says beyond discovery."""

    crd_name: str
    status_subresource: bool
    scale: ScalePaths | None
    printer_columns: tuple[dict[str, Any], ...]
    selectable_fields: tuple[str, ...]
    raw_schema: dict[str, Any] | None
    storage_version: str
    sole_schema_since: int | None = None
    """The CRD's revision when it serves only this version: objects created after it were written
    under this schema alone (so a write may skip every value equal to the stored one); else None."""
    rules: RuleNode | None = None
    """The version's `x-kubernetes-validations`, compiled once (None when it has none)."""
    conversion: Conversion | None = None
    """How objects stored at another version reach this one (None: every object is at this one)."""


@dataclass(eq=False)
class ServedResource:
    type: ResourceType
    schema: Schema
    table: TableConvertor
    storage: GroupResource
    custom: CustomResourceFacts | None = None
    builtin: bool = True
    storage_prefix: str = field(init=False)

    def __post_init__(self) -> None:
        self.storage_prefix = f"/registry/{self.storage.group or 'core'}/{self.storage.resource}/"

    @property
    def namespaced(self) -> bool:
        return self.type.namespaced

    @property
    def has_status(self) -> bool:
        return self.type.has_subresource("status")

    @property
    def tracks_generation(self) -> bool:
        return not self.builtin or self.type.group_resource in GENERATION_TRACKED

    @property
    def delete_returns_object(self) -> bool:
        return delete_returns_object(self.type.group_resource, builtin=self.builtin)

    @property
    def keeps_status_on_create(self) -> bool:
        return self.type.group_resource in STATUS_ON_CREATE or not self.has_status

    def key(self, namespace: str, name: str) -> str:
        if self.type.namespaced:
            return f"{self.storage_prefix}{namespace}/{name}"
        return f"{self.storage_prefix}{name}"

    def storage_version_hash(self) -> str:
        digest = hashlib.sha256(f"{self.type.group}/{self.type.version}/{self.type.kind}".encode()).digest()
        return base64.b64encode(digest[:8]).decode()


def builtin_served(resource: ResourceType) -> ServedResource:
    schemas = builtin_schemas()
    schema = schemas.for_kind(resource.gvk) or ANY
    table = builtin_convertor(resource.group, resource.kind) or default_convertor()
    storage = resource.storage_resource or resource.group_resource
    return ServedResource(resource, schema, table, storage)


class ResourceRegistry:
    """What is served, by group/version/resource and by kind; changes bump `generation`."""

    def __init__(self, builtins: Iterable[ResourceType] = BUILTIN_RESOURCES + VIRTUAL_RESOURCES) -> None:
        self._by_path: dict[tuple[str, str, str], ServedResource] = {}
        self._by_gvk: dict[GroupVersionKind, ServedResource] = {}
        self._custom: dict[str, list[ServedResource]] = {}
        self.generation = 0
        self._listeners: list[Callable[[], None]] = []
        for resource in builtins:
            self._add(builtin_served(resource))

    def _add(self, served: ServedResource) -> None:
        t = served.type
        self._by_path[(t.group, t.version, t.plural)] = served
        self._by_gvk.setdefault(t.gvk, served)

    def lookup(self, group: str, version: str, plural: str) -> ServedResource | None:
        return self._by_path.get((group, version, plural))

    def by_kind(self, gvk: GroupVersionKind) -> ServedResource | None:
        return self._by_gvk.get(gvk)

    def all(self) -> list[ServedResource]:
        return list(self._by_path.values())

    def group_versions(self) -> list[tuple[str, list[str]]]:
        """Groups in discovery order, each with its versions, preferred first."""
        groups: dict[str, list[str]] = {}
        for group, version, _ in self._by_path:
            versions = groups.setdefault(group, [])
            if version not in versions:
                versions.append(version)
        ordered = sorted(groups, key=_group_rank)
        return [(g, sorted(groups[g], key=version_priority, reverse=True)) for g in ordered]

    def in_group_version(self, gv: GroupVersion) -> list[ServedResource]:
        return [s for (g, v, _), s in self._by_path.items() if g == gv.group and v == gv.version]

    # -- custom resources --------------------------------------------------------------------

    def set_custom(self, crd_name: str, served: list[ServedResource]) -> None:
        """Serve exactly `served` for a CRD (replacing what it served before); empty removes it."""
        for old in self._custom.pop(crd_name, []):
            t = old.type
            self._by_path.pop((t.group, t.version, t.plural), None)
            if self._by_gvk.get(t.gvk) is old:
                del self._by_gvk[t.gvk]
        if served:
            self._custom[crd_name] = served
            for item in served:
                self._add(item)
        self.generation += 1
        for listener in self._listeners:
            listener()

    def custom(self, crd_name: str) -> list[ServedResource]:
        return list(self._custom.get(crd_name, []))

    def on_change(self, listener: Callable[[], None]) -> None:
        self._listeners.append(listener)


def _group_rank(group: str) -> tuple[int, str]:
    try:
        return (GROUP_PRIORITY.index(group), group)
    except ValueError:
        return (len(GROUP_PRIORITY), group)


def version_priority(version: str) -> tuple[int, int, int]:
    """Kubernetes version ordering: GA > beta > alpha, higher numbers first (v2 > v1 > v1beta2)."""
    match = re.fullmatch(r"v(\d+)(?:(alpha|beta)(\d+))?", version)
    if not match:
        return (-1, 0, 0)
    major = int(match.group(1))
    stage = {"alpha": 0, "beta": 1, None: 2}[match.group(2)]
    minor = int(match.group(3) or 0)
    return (stage, major, minor)
