"""How many replicas a workload wants, what each replica needs, and how to give it another count.

`get_replicas` is Karmada's InterpretReplica: the detector copies its answer into the
ResourceBinding (`spec.replicas`, `spec.replicaRequirements`) and the scheduler divides the
replicas among clusters using the per-replica requirements (resource requests for the capacity
estimate, node claims for the node fit). `revise_replica` is ReviseReplica: the binding controller
writes each cluster's share into that cluster's copy of the manifest.

Per kind, as Karmada's native interpreter reads them:

- Deployment, ReplicaSet, StatefulSet: `spec.replicas` (0 when absent);
- Job: `spec.parallelism`, capped by `spec.completions` because a Job never runs more pods at once
  than it has completions left; revising sets `spec.parallelism`;
- Pod: always one replica; it cannot be revised.

The requirements mirror `ReplicaRequirements` on the wire: `resourceRequest` (the effective pod
requests, see `flotilla.interpreter.requests`), `nodeClaim` (`nodeSelector`, `tolerations`, and
the required node affinity as `hardNodeAffinity`), `priorityClassName` and `namespace`. Empty parts
are omitted, and a template that asks for nothing yields no requirements at all.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from flotilla.api.objects import copy_object
from flotilla.interpreter import kinds
from flotilla.interpreter.kinds import GroupKind, InterpreterError
from flotilla.interpreter.requests import pod_requests, resource_list


@dataclass(frozen=True, slots=True)
class WorkloadReplicas:
    """A workload's desired replicas and the requirements of one replica (None: it needs nothing)."""

    replicas: int
    requirements: dict[str, Any] | None


def replica_requirements(spec: Mapping[str, Any], namespace: str = "") -> dict[str, Any] | None:
    """`ReplicaRequirements` of a pod spec: resource requests and node claim, None when both are empty."""
    node_claim = _node_claim(spec)
    resource_request = resource_list(pod_requests(spec))
    if node_claim is None and resource_request is None:
        return None
    requirements: dict[str, Any] = {}
    if node_claim is not None:
        requirements["nodeClaim"] = node_claim
    if resource_request is not None:
        requirements["resourceRequest"] = resource_request
    if namespace:
        requirements["namespace"] = namespace
    priority_class_name = spec.get("priorityClassName")
    if isinstance(priority_class_name, str) and priority_class_name:
        requirements["priorityClassName"] = priority_class_name
    return requirements


def _node_claim(spec: Mapping[str, Any]) -> dict[str, Any] | None:
    claim: dict[str, Any] = {}
    hard_affinity = kinds.nested(
        spec, "affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution"
    )
    if isinstance(hard_affinity, Mapping):
        claim["hardNodeAffinity"] = copy.deepcopy(dict(hard_affinity))
    node_selector = spec.get("nodeSelector")
    if isinstance(node_selector, Mapping) and node_selector:
        claim["nodeSelector"] = dict(node_selector)
    tolerations = spec.get("tolerations")
    if isinstance(tolerations, list) and tolerations:
        claim["tolerations"] = copy.deepcopy(tolerations)
    return claim or None


def _namespace(obj: Mapping[str, Any]) -> str:
    namespace = kinds.nested(obj, "metadata", "namespace")
    return namespace if isinstance(namespace, str) else ""


def _template_replicas(obj: Mapping[str, Any]) -> WorkloadReplicas:
    spec = kinds.nested_mapping(obj, "spec", "template", "spec")
    return WorkloadReplicas(
        kinds.nested_int(obj, "spec", "replicas"), replica_requirements(spec, _namespace(obj))
    )


def _job_replicas(obj: Mapping[str, Any]) -> WorkloadReplicas:
    parallelism = kinds.nested_int(obj, "spec", "parallelism")
    completions = kinds.nested_int(obj, "spec", "completions", default=parallelism)
    spec = kinds.nested_mapping(obj, "spec", "template", "spec")
    return WorkloadReplicas(min(parallelism, completions), replica_requirements(spec, _namespace(obj)))


def _pod_replicas(obj: Mapping[str, Any]) -> WorkloadReplicas:
    return WorkloadReplicas(1, replica_requirements(kinds.nested_mapping(obj, "spec"), _namespace(obj)))


_READERS: Mapping[GroupKind, Callable[[Mapping[str, Any]], WorkloadReplicas]] = {
    kinds.DEPLOYMENT: _template_replicas,
    kinds.REPLICA_SET: _template_replicas,
    kinds.STATEFUL_SET: _template_replicas,
    kinds.JOB: _job_replicas,
    kinds.POD: _pod_replicas,
}

_REPLICA_FIELDS: Mapping[GroupKind, str] = {
    kinds.DEPLOYMENT: "replicas",
    kinds.REPLICA_SET: "replicas",
    kinds.STATEFUL_SET: "replicas",
    kinds.JOB: "parallelism",
}

REPLICA_KINDS = frozenset(_READERS)
"""Kinds whose replicas the interpreter reads; every other kind is not a workload."""

REVISE_REPLICA_KINDS = frozenset(_REPLICA_FIELDS)
"""Kinds whose replica count the interpreter can rewrite per cluster."""


def get_replicas(obj: Mapping[str, Any]) -> WorkloadReplicas | None:
    """The desired replicas and per-replica requirements of a workload; None for kinds without replicas."""
    reader = _READERS.get(kinds.group_kind(obj))
    return None if reader is None else reader(obj)


def revise_replica(obj: Mapping[str, Any], replicas: int) -> dict[str, Any]:
    """A copy of the workload that asks for `replicas` (a Job gets it as its parallelism)."""
    group_kind = kinds.group_kind(obj)
    field = _REPLICA_FIELDS.get(group_kind)
    if field is None:
        raise InterpreterError(f"the replicas of a {group_kind} cannot be revised")
    if replicas < 0:
        raise InterpreterError(f"replicas must not be negative, got {replicas}")
    revised = copy_object(dict(obj))
    spec = revised.get("spec")
    if not isinstance(spec, dict):
        spec = revised["spec"] = {}
    spec[field] = replicas
    return revised
