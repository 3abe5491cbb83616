"""Minimal manifests of the built-in kinds, as users write them, and helpers to validate them.

Each builder returns a fresh dict so tests can break one field at a time. `defaulted` runs the
server's create-time defaulting on a copy, because kube validates objects after defaulting.
"""

from __future__ import annotations

import copy
from typing import Any

from flotilla.api.fielderrors import FieldError
from flotilla.api.scheme import GroupVersionKind
from flotilla.apiserver.registry.defaults import apply_defaults, prepare_for_create
from flotilla.apiserver.registry.validation import validate_create, validate_update

Manifest = dict[str, Any]

DEPLOYMENT = GroupVersionKind("apps", "v1", "Deployment")
REPLICA_SET = GroupVersionKind("apps", "v1", "ReplicaSet")
STATEFUL_SET = GroupVersionKind("apps", "v1", "StatefulSet")
DAEMON_SET = GroupVersionKind("apps", "v1", "DaemonSet")
POD = GroupVersionKind("", "v1", "Pod")
SERVICE = GroupVersionKind("", "v1", "Service")
CONFIG_MAP = GroupVersionKind("", "v1", "ConfigMap")
SECRET = GroupVersionKind("", "v1", "Secret")
NAMESPACE = GroupVersionKind("", "v1", "Namespace")
JOB = GroupVersionKind("batch", "v1", "Job")
CRON_JOB = GroupVersionKind("batch", "v1", "CronJob")
UID = "6b5c3a0e-8f0f-4b7e-9a3c-2d1e0f9a8b7c"


def meta(name: str = "web", namespace: str | None = "default", **extra: Any) -> Manifest:
    result: Manifest = {"name": name, **extra}
    if namespace is not None:
        result["namespace"] = namespace
    return result


def container(name: str = "web", image: str = "nginx:1.27", **extra: Any) -> Manifest:
    return {"name": name, "image": image, **extra}


def pod_template(labels: dict[str, str] | None = None, **spec: Any) -> Manifest:
    pod_spec: Manifest = {"containers": [container()], **spec}
    return {"metadata": {"labels": {"app": "web"} if labels is None else labels}, "spec": pod_spec}


def deployment(**spec: Any) -> Manifest:
    body: Manifest = {"selector": {"matchLabels": {"app": "web"}}, "template": pod_template(), **spec}
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": meta(), "spec": body}


def replica_set(**spec: Any) -> Manifest:
    return {**deployment(**spec), "kind": "ReplicaSet"}


def stateful_set(**spec: Any) -> Manifest:
    manifest = deployment(serviceName="web", **spec)
    return {**manifest, "kind": "StatefulSet"}


def daemon_set(**spec: Any) -> Manifest:
    return {**deployment(**spec), "kind": "DaemonSet"}


def pod(**spec: Any) -> Manifest:
    body: Manifest = {"containers": [container()], **spec}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta(), "spec": body}


def service(**spec: Any) -> Manifest:
    body: Manifest = {"selector": {"app": "web"}, "ports": [{"port": 80, "targetPort": 8080}], **spec}
    return {"apiVersion": "v1", "kind": "Service", "metadata": meta(), "spec": body}


def job(**spec: Any) -> Manifest:
    template = pod_template(labels={}, restartPolicy="Never")
    body: Manifest = {"template": template, **spec}
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": meta("pi", uid=UID), "spec": body}


def cron_job(**spec: Any) -> Manifest:
    template = pod_template(labels={}, restartPolicy="OnFailure")
    body: Manifest = {"schedule": "*/5 * * * *", "jobTemplate": {"spec": {"template": template}}, **spec}
    return {"apiVersion": "batch/v1", "kind": "CronJob", "metadata": meta("backup"), "spec": body}


def defaulted(gvk: GroupVersionKind, manifest: Manifest) -> Manifest:
    """A copy of `manifest` with the server's create-time defaults applied."""
    result = copy.deepcopy(manifest)
    prepare_for_create(gvk, result)
    return result


def create_errors(gvk: GroupVersionKind, manifest: Manifest, *, default: bool = True) -> list[str]:
    """The errors creating `manifest` gives, as `field: message` strings."""
    obj = defaulted(gvk, manifest) if default else manifest
    return [str(error) for error in validate_create(gvk, obj)]


def create_field_errors(gvk: GroupVersionKind, manifest: Manifest) -> list[FieldError]:
    return validate_create(gvk, defaulted(gvk, manifest))


def stored(gvk: GroupVersionKind, manifest: Manifest, resource_version: str = "1") -> Manifest:
    """`manifest` as the server would have stored it: defaulted, with system metadata."""
    result = defaulted(gvk, manifest)
    result["metadata"].setdefault("uid", UID)
    result["metadata"]["resourceVersion"] = resource_version
    result["metadata"]["creationTimestamp"] = "2024-01-01T00:00:00Z"
    return result


def update_errors(gvk: GroupVersionKind, new: Manifest, old: Manifest) -> list[str]:
    """The errors replacing `old` (already stored) by `new` (defaulted here) gives."""
    candidate = copy.deepcopy(new)
    apply_defaults(gvk, candidate)
    return [str(error) for error in validate_update(gvk, candidate, old)]
