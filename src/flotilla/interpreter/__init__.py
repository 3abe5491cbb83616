"""The resource interpreter: what Flotilla needs to know about a kind to propagate it.

Karmada does not hard-code workloads into its controllers; it asks a resource interpreter a few
questions about any object, and these are the answers for the built-in kinds (Karmada's "native"
interpreter), as pure functions over the plain JSON manifests:

- `get_replicas` / `revise_replica` (`replicas`): how many replicas a workload wants and what one
  replica needs; a copy with another replica count for one cluster;
- `retain` (`retain`): the desired manifest with the fields the member cluster owns kept;
- `reflect_status` / `aggregate_status` (`status`): a member's status as its Work reports it, and
  the template's status folded from all members;
- `interpret_health` (`health`): Healthy, Unhealthy or Unknown for a member object;
- `get_dependencies` (`dependencies`): the ConfigMaps, Secrets, ServiceAccounts, PVCs and Services
  an object needs beside it.

Each operation dispatches on the object's API group and kind (`kinds.GroupKind`); the `*_KINDS`
sets say which kinds an operation knows, so callers can tell "not a workload" from "no replicas".
Lua customizations (`lua`) and interpreter webhooks (`webhook`) answer before these defaults, in
Karmada's order (`customized.ResourceInterpreter`).
"""

from flotilla.interpreter.dependencies import DEPENDENCY_KINDS, get_dependencies
from flotilla.interpreter.health import HEALTH_KINDS, ResourceHealth, interpret_health
from flotilla.interpreter.kinds import GroupKind, InterpreterError, group_kind
from flotilla.interpreter.replicas import (
    REPLICA_KINDS,
    REVISE_REPLICA_KINDS,
    WorkloadReplicas,
    get_replicas,
    revise_replica,
)
from flotilla.interpreter.retain import RETAIN_KINDS, retain
from flotilla.interpreter.status import (
    AGGREGATE_STATUS_KINDS,
    REFLECT_STATUS_KINDS,
    aggregate_status,
    reflect_status,
)

__all__ = [
    "AGGREGATE_STATUS_KINDS",
    "DEPENDENCY_KINDS",
    "HEALTH_KINDS",
    "REFLECT_STATUS_KINDS",
    "REPLICA_KINDS",
    "RETAIN_KINDS",
    "REVISE_REPLICA_KINDS",
    "GroupKind",
    "InterpreterError",
    "ResourceHealth",
    "WorkloadReplicas",
    "aggregate_status",
    "get_dependencies",
    "get_replicas",
    "group_kind",
    "interpret_health",
    "reflect_status",
    "retain",
    "revise_replica",
]
