"""Which other objects a workload needs in the same cluster: Karmada's InterpretDependency.

With `propagateDeps: true` a workload takes what it references along to every cluster it lands on,
so a Deployment never starts where its ConfigMap is missing. The references come from the pod
template, read the way kube's own visitors read a pod (`VisitPodSecretNames`,
`VisitPodConfigmapNames`), over app, init and ephemeral containers:

- ConfigMaps: `configMap` volumes and projected `configMap` sources, `configMapKeyRef` env values
  and `configMapRef` env sources;
- Secrets: `imagePullSecrets`, `secret` volumes and projected `secret` sources, the secret
  references of the volume plugins that take credentials (azureFile, cephfs, cinder, flexVolume,
  iscsi, rbd, scaleIO, storageos, csi), `secretKeyRef` env values and `secretRef` env sources;
- ServiceAccounts: `serviceAccountName`, unless it is `default`, which every namespace has;
- PersistentVolumeClaims: `persistentVolumeClaim` volumes.

An Ingress needs the Secrets of its TLS entries and the Services of its backends; a ServiceImport
needs its derived Service and that Service's EndpointSlices. Each reference is `{apiVersion, kind,
namespace, name}` (EndpointSlices by `labelSelector`), listed by kind and then by name, each once.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

from flotilla.interpreter import kinds
from flotilla.interpreter.kinds import GroupKind

DependentObjectReference = dict[str, Any]

_CONTAINER_FIELDS = ("initContainers", "containers", "ephemeralContainers")
_VOLUME_SECRET_REFERENCES = (
    ("azureFile", "secretName"),
    ("cephfs", "secretRef", "name"),
    ("cinder", "secretRef", "name"),
    ("flexVolume", "secretRef", "name"),
    ("iscsi", "secretRef", "name"),
    ("rbd", "secretRef", "name"),
    ("scaleIO", "secretRef", "name"),
    ("storageos", "secretRef", "name"),
    ("csi", "nodePublishSecretRef", "name"),
    ("secret", "secretName"),
)
DERIVED_SERVICE_PREFIX = "derived-"
ENDPOINT_SLICE_SERVICE_LABEL = "kubernetes.io/service-name"


def _names(values: Iterable[Any]) -> set[str]:
    return {value for value in values if isinstance(value, str) and value}


def _mappings(items: Any) -> Iterator[Mapping[str, Any]]:
    if isinstance(items, list):
        yield from (item for item in items if isinstance(item, Mapping))


def _containers(spec: Mapping[str, Any]) -> Iterator[Mapping[str, Any]]:
    for field in _CONTAINER_FIELDS:
        yield from _mappings(spec.get(field))


def _env_references(spec: Mapping[str, Any], key_ref: str, source_ref: str) -> Iterator[Any]:
    for container in _containers(spec):
        for env in _mappings(container.get("env")):
            yield kinds.nested(env, "valueFrom", key_ref, "name")
        for source in _mappings(container.get("envFrom")):
            yield kinds.nested(source, source_ref, "name")


def _projected_sources(spec: Mapping[str, Any], source: str, field: str) -> Iterator[Any]:
    for volume in _mappings(spec.get("volumes")):
        for projection in _mappings(kinds.nested(volume, "projected", "sources")):
            yield kinds.nested(projection, source, field)


def config_map_names(spec: Mapping[str, Any]) -> set[str]:
    """ConfigMaps a pod spec mounts or reads environment from."""
    return _names(
        [
            *(kinds.nested(volume, "configMap", "name") for volume in _mappings(spec.get("volumes"))),
            *_projected_sources(spec, "configMap", "name"),
            *_env_references(spec, "configMapKeyRef", "configMapRef"),
        ]
    )


def secret_names(spec: Mapping[str, Any]) -> set[str]:
    """Secrets a pod spec pulls images with, mounts, hands to volume plugins or reads environment from."""
    found = [reference.get("name") for reference in _mappings(spec.get("imagePullSecrets"))]
    for volume in _mappings(spec.get("volumes")):
        found.extend(kinds.nested(volume, *path) for path in _VOLUME_SECRET_REFERENCES)
    found.extend(_projected_sources(spec, "secret", "name"))
    found.extend(_env_references(spec, "secretKeyRef", "secretRef"))
    return _names(found)


def service_account_names(spec: Mapping[str, Any]) -> set[str]:
    """The pod's service account, unless it is the namespace's `default` one."""
    name = spec.get("serviceAccountName") or spec.get("serviceAccount")
    return {name} if isinstance(name, str) and name and name != "default" else set()


def persistent_volume_claim_names(spec: Mapping[str, Any]) -> set[str]:
    """PersistentVolumeClaims a pod spec mounts."""
    return _names(
        kinds.nested(volume, "persistentVolumeClaim", "claimName")
        for volume in _mappings(spec.get("volumes"))
    )


def _references(kind: str, namespace: str, names: set[str]) -> list[DependentObjectReference]:
    return [
        {"apiVersion": "v1", "kind": kind, "namespace": namespace, "name": name} for name in sorted(names)
    ]


def _namespace(obj: Mapping[str, Any]) -> str:
    namespace = kinds.nested(obj, "metadata", "namespace")
    return namespace if isinstance(namespace, str) else ""


def pod_template_dependencies(spec: Mapping[str, Any], namespace: str) -> list[DependentObjectReference]:
    """Everything a pod spec references, as dependency references in `namespace`."""
    return [
        *_references("ConfigMap", namespace, config_map_names(spec)),
        *_references("Secret", namespace, secret_names(spec)),
        *_references("ServiceAccount", namespace, service_account_names(spec)),
        *_references("PersistentVolumeClaim", namespace, persistent_volume_claim_names(spec)),
    ]


def _workload_dependencies(obj: Mapping[str, Any]) -> list[DependentObjectReference]:
    spec = kinds.pod_spec(obj)
    return [] if spec is None else pod_template_dependencies(spec, _namespace(obj))


def _ingress_dependencies(obj: Mapping[str, Any]) -> list[DependentObjectReference]:
    namespace = _namespace(obj)
    secrets = _names(tls.get("secretName") for tls in _mappings(kinds.nested(obj, "spec", "tls")))
    backends = [kinds.nested(obj, "spec", "defaultBackend")]
    for rule in _mappings(kinds.nested(obj, "spec", "rules")):
        backends.extend(path.get("backend") for path in _mappings(kinds.nested(rule, "http", "paths")))
    services = _names(
        kinds.nested(backend, "service", "name") for backend in backends if isinstance(backend, Mapping)
    )
    return [*_references("Secret", namespace, secrets), *_references("Service", namespace, services)]


def _service_import_dependencies(obj: Mapping[str, Any]) -> list[DependentObjectReference]:
    namespace = _namespace(obj)
    derived = DERIVED_SERVICE_PREFIX + str(kinds.nested(obj, "metadata", "name") or "")
    return [
        {"apiVersion": "v1", "kind": "Service", "namespace": namespace, "name": derived},
        {
            "apiVersion": "discovery.k8s.io/v1",
            "kind": "EndpointSlice",
            "namespace": namespace,
            "labelSelector": {"matchLabels": {ENDPOINT_SLICE_SERVICE_LABEL: derived}},
        },
    ]


_INTERPRETERS: Mapping[GroupKind, Callable[[Mapping[str, Any]], list[DependentObjectReference]]] = {
    **dict.fromkeys(kinds.POD_TEMPLATE_PATHS, _workload_dependencies),
    kinds.INGRESS: _ingress_dependencies,
    kinds.SERVICE_IMPORT: _service_import_dependencies,
}

DEPENDENCY_KINDS = frozenset(_INTERPRETERS)
"""Kinds whose dependencies the interpreter knows; every other kind depends on nothing."""


def get_dependencies(obj: Mapping[str, Any]) -> list[DependentObjectReference]:
    """The objects `obj` needs beside it in every cluster it is propagated to."""
    interpreter = _INTERPRETERS.get(kinds.group_kind(obj))
    return [] if interpreter is None else interpreter(obj)
