"""Tables for `apps/v1`: Deployment, ReplicaSet, StatefulSet, DaemonSet and ControllerRevision.

Replica counts print as Kubernetes does: `READY` as `ready/desired` for Deployments and
StatefulSets, separate integer columns for ReplicaSets and DaemonSets. `spec.replicas` defaults to 1
when absent, as Kubernetes' defaulting sets it on every stored object.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from flotilla.api.duration import since
from flotilla.api.selectors import SelectorError
from flotilla.apiserver.registry.tables.descriptions import swagger_doc
from flotilla.apiserver.registry.tables.labels import (
    NONE,
    format_label_selector,
    format_labels,
    selector_string,
)
from flotilla.apiserver.registry.tables.model import (
    AGE,
    CONTAINERS,
    IMAGES,
    NAME,
    Cell,
    Column,
    Printer,
    wide,
)
from flotilla.apiserver.registry.tables.objects import (
    child,
    container_cells,
    created,
    integer,
    mapping,
    name,
    objects,
    string_map,
    text,
)

READY_PODS = "Number of the pod with ready state"


def _deployment_row(deployment: dict[str, Any], now: datetime) -> list[Cell]:
    names, images = container_cells(mapping(deployment, "spec", "template", "spec"))
    try:
        selector = selector_string(child(deployment, "spec", "selector"))
    except SelectorError:
        selector = "<invalid>"
    ready = integer(deployment, "status", "readyReplicas")
    desired = integer(deployment, "spec", "replicas", default=1)
    return [
        name(deployment),
        f"{ready}/{desired}",
        integer(deployment, "status", "updatedReplicas"),
        integer(deployment, "status", "availableReplicas"),
        since(created(deployment), now),
        names,
        images,
        selector,
    ]


DEPLOYMENT = Printer(
    (
        NAME,
        Column("Ready", "string", description=READY_PODS),
        Column("Up-to-date", "string", description=swagger_doc("DeploymentStatus.updatedReplicas")),
        Column("Available", "string", description=swagger_doc("DeploymentStatus.availableReplicas")),
        AGE,
        CONTAINERS,
        IMAGES,
        wide("Selector", swagger_doc("DeploymentSpec.selector")),
    ),
    _deployment_row,
)


def _replica_set_row(replica_set: dict[str, Any], now: datetime) -> list[Cell]:
    names, images = container_cells(mapping(replica_set, "spec", "template", "spec"))
    return [
        name(replica_set),
        integer(replica_set, "spec", "replicas", default=1),
        integer(replica_set, "status", "replicas"),
        integer(replica_set, "status", "readyReplicas"),
        since(created(replica_set), now),
        names,
        images,
        format_label_selector(child(replica_set, "spec", "selector")),
    ]


REPLICA_SET = Printer(
    (
        NAME,
        Column("Desired", "integer", description=swagger_doc("ReplicaSetSpec.replicas")),
        Column("Current", "integer", description=swagger_doc("ReplicaSetStatus.replicas")),
        Column("Ready", "integer", description=swagger_doc("ReplicaSetStatus.readyReplicas")),
        AGE,
        CONTAINERS,
        IMAGES,
        wide("Selector", swagger_doc("ReplicaSetSpec.selector")),
    ),
    _replica_set_row,
)


def _stateful_set_row(stateful_set: dict[str, Any], now: datetime) -> list[Cell]:
    names, images = container_cells(mapping(stateful_set, "spec", "template", "spec"))
    ready = integer(stateful_set, "status", "readyReplicas")
    desired = integer(stateful_set, "spec", "replicas", default=1)
    return [name(stateful_set), f"{ready}/{desired}", since(created(stateful_set), now), names, images]


STATEFUL_SET = Printer(
    (NAME, Column("Ready", "string", description=READY_PODS), AGE, CONTAINERS, IMAGES),
    _stateful_set_row,
)


def _daemon_set_row(daemon_set: dict[str, Any], now: datetime) -> list[Cell]:
    names, images = container_cells(mapping(daemon_set, "spec", "template", "spec"))
    return [
        name(daemon_set),
        integer(daemon_set, "status", "desiredNumberScheduled"),
        integer(daemon_set, "status", "currentNumberScheduled"),
        integer(daemon_set, "status", "numberReady"),
        integer(daemon_set, "status", "updatedNumberScheduled"),
        integer(daemon_set, "status", "numberAvailable"),
        format_labels(string_map(daemon_set, "spec", "template", "spec", "nodeSelector")),
        since(created(daemon_set), now),
        names,
        images,
        format_label_selector(child(daemon_set, "spec", "selector")),
    ]


DAEMON_SET = Printer(
    (
        NAME,
        Column("Desired", "integer", description=swagger_doc("DaemonSetStatus.desiredNumberScheduled")),
        Column("Current", "integer", description=swagger_doc("DaemonSetStatus.currentNumberScheduled")),
        Column("Ready", "integer", description=swagger_doc("DaemonSetStatus.numberReady")),
        Column("Up-to-date", "integer", description=swagger_doc("DaemonSetStatus.updatedNumberScheduled")),
        Column("Available", "integer", description=swagger_doc("DaemonSetStatus.numberAvailable")),
        Column("Node Selector", "string", description=swagger_doc("PodSpec.nodeSelector")),
        AGE,
        CONTAINERS,
        IMAGES,
        wide("Selector", swagger_doc("DaemonSetSpec.selector")),
    ),
    _daemon_set_row,
)


def controller_name(obj: dict[str, Any]) -> str:
    """`kind.group/name` of the controlling owner (`statefulset.apps/web`), or `<none>`."""
    for owner in objects(obj, "metadata", "ownerReferences"):
        if owner.get("controller") is True:
            api_version = text(owner, "apiVersion")
            group = api_version.split("/", 1)[0] if "/" in api_version else ""
            kind = text(owner, "kind")
            if not group and not kind:
                return text(owner, "name")
            qualified = f"{kind}.{group}" if group else kind
            return f"{qualified.lower()}/{text(owner, 'name')}"
    return NONE


def _controller_revision_row(revision: dict[str, Any], now: datetime) -> list[Cell]:
    return [
        name(revision),
        controller_name(revision),
        integer(revision, "revision"),
        since(created(revision), now),
    ]


CONTROLLER_REVISION = Printer(
    (
        NAME,
        Column("Controller", "string", description="Controller of the object"),
        Column("Revision", "string", description=swagger_doc("ControllerRevision.revision")),
        AGE,
    ),
    _controller_revision_row,
)
