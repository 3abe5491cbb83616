"""CPU cost of managedFields bookkeeping per write, in µs, as the write pipeline pays it.

Each operation runs exactly the calls `pipeline._track_fields` (or the apply handler) makes, on
objects shaped as the server stores them, and nothing else:

- `lease renewal`: a kubelet renews its node Lease (`renewTime` changes, ten seconds later), a
  read-modify-write whose body carries the live managedFields; `…, 1000 leases` renews a thousand
  of them in turn, as a hundred simulated clusters of ten nodes do;
- `deployment create`: `kubectl create` of a defaulted Deployment;
- `deployment image update`: another manager changes the container image of that Deployment;
- `deployment apply (create)` and `deployment apply (again)`: server-side apply of a Deployment,
  then the same configuration again (a no-op that must keep the timestamps);
- the scheduler's writes to a ResourceBinding (work.karmada.io/v1alpha2, the hub's own CRD schema)
  whose large spec.placement and spec.resource a creator owns (`Update`) and whose aggregated status
  and FullyApplied condition a controller applies: `binding spec apply (first)` applies
  spec.clusters and the applied-placement annotation as `flotilla-scheduler` (force) to each of
  3,000 such bindings in turn, `binding spec apply (replicas)` applies them again with other replica
  counts; `binding status apply` re-applies the scheduler's status (the Scheduled condition, keyed
  by `type`, and three scalars) through the status subresource with a new lastTransitionTime and
  observed generation. Re-applies start from what the previous one stored, a second later, so each
  reads managedFields no write has read before, as on a busy hub;
- `event create`: the scheduler creates a core/v1 Event about a binding.

Every figure is CPU time (the process's, not the wall clock's, which other work on a shared machine
stretches), the median over `--rounds` rounds of the mean over `--iterations` calls, so a noisy
machine shows up as spread between runs rather than in one number. The collector is paced as the
API server paces it (`runtime.garbage`): CPython's default young threshold would add collections
of the many short-lived objects (about a tenth of the binding applies) that the server avoids. To
measure another checkout, put its `src` first on PYTHONPATH (the script uses only the package's
public functions).
Run: `.venv/bin/python bench/managedfields.py [--rounds 15] [--iterations 200] [--profile NAME]`.
"""

from __future__ import annotations

import argparse
import cProfile
import functools
import gc
import pstats
import statistics
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import orjson

from flotilla.api.karmada import constants
from flotilla.api.objects import copy_object
from flotilla.api.scheme import GroupVersionKind
from flotilla.api.times import format_micro_time
from flotilla.apiserver.registry import apply as ssa
from flotilla.apiserver.registry.customresources import served_for_crd
from flotilla.apiserver.registry.defaults import apply_defaults
from flotilla.apiserver.registry.karmada import karmada_crds
from flotilla.apiserver.registry.schema.builtin import builtin_schemas
from flotilla.apiserver.registry.schema.model import Schema
from flotilla.runtime import garbage

START = datetime(2026, 1, 1, tzinfo=UTC)
LEASE_GVK = GroupVersionKind("coordination.k8s.io", "v1", "Lease")
DEPLOYMENT_GVK = GroupVersionKind("apps", "v1", "Deployment")
EVENT_GVK = GroupVersionKind("", "v1", "Event")
BINDING_GVK = constants.RESOURCE_BINDING


@functools.cache
def schema_of(gvk: GroupVersionKind) -> Schema:
    """The kind's schema, built once as the server builds it once per served kind (its facts are
    remembered per schema node)."""
    for crd in karmada_crds():
        for served in served_for_crd(crd):
            if served.type.gvk == gvk:
                return served.schema
    schema = builtin_schemas().for_kind(gvk)
    assert schema is not None, gvk
    return schema


def track_fields(
    old: dict[str, Any] | None,
    new: dict[str, Any],
    *,
    manager: str,
    schema: Schema,
    api_version: str,
    now: datetime,
) -> dict[str, Any]:
    """What the write pipeline does for a non-apply write."""
    starting = ssa.managed_fields_for_write(old, new)
    managed = ssa.record_update(
        old, new, manager=manager, schema=schema, managed_fields=starting, api_version=api_version, now=now
    )
    if managed:
        new["metadata"]["managedFields"] = managed
    else:
        new["metadata"].pop("managedFields", None)
    return ssa.strip_time_only_changes(old, new)


def stored(obj: dict[str, Any], revision: int) -> dict[str, Any]:
    """`obj` as the store hands it back: with system metadata."""
    result = copy_object(obj)
    meta = result["metadata"]
    meta.setdefault("uid", "6b1f7c9e-0d2a-4c55-9a43-2f3f7c2d9e10")
    meta.setdefault("creationTimestamp", "2026-01-01T00:00:00Z")
    meta["resourceVersion"] = str(revision)
    return result


# ---- the operations -----------------------------------------------------------------------------


def node_lease(node: int) -> dict[str, Any]:
    name = f"member-1-node-{node}"
    return {
        "apiVersion": "coordination.k8s.io/v1",
        "kind": "Lease",
        "metadata": {
            "name": name,
            "namespace": "kube-node-lease",
            "ownerReferences": [{"apiVersion": "v1", "kind": "Node", "name": name, "uid": f"{node:036d}"}],
        },
        "spec": {"holderIdentity": name, "leaseDurationSeconds": 40, "renewTime": format_micro_time(START)},
    }


def lease_renewals(nodes: int = 1) -> Callable[[], float]:
    """Renewals of `nodes` Leases in turn (each owned by its own Node, so each has its own FieldsV1)."""
    schema = schema_of(LEASE_GVK)
    leases = [stored(renewed(None, node_lease(node), schema, START), 1) for node in range(nodes)]
    now = START
    turn = 0

    def renew() -> float:
        nonlocal now, turn
        turn = (turn + 1) % nodes
        if turn == 0:
            now += timedelta(seconds=10)
        live = leases[turn]
        new = copy_object(live)
        new["spec"]["renewTime"] = format_micro_time(now)
        started = time.process_time()
        result = renewed(live, new, schema, now)
        elapsed = time.process_time() - started
        leases[turn] = stored(result, int(live["metadata"]["resourceVersion"]) + 1)
        return elapsed

    return renew


def renewed(
    live: dict[str, Any] | None, new: dict[str, Any], schema: Schema, now: datetime
) -> dict[str, Any]:
    return track_fields(
        live, new, manager="kubelet", schema=schema, api_version="coordination.k8s.io/v1", now=now
    )


def web_deployment(image: str = "nginx:1.25") -> dict[str, Any]:
    deployment: dict[str, Any] = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "default", "labels": {"app": "web"}},
        "spec": {
            "replicas": 3,
            "selector": {"matchLabels": {"app": "web"}},
            "template": {
                "metadata": {"labels": {"app": "web"}},
                "spec": {
                    "containers": [
                        {
                            "name": "nginx",
                            "image": image,
                            "ports": [{"containerPort": 80}],
                            "env": [{"name": "MODE", "value": "production"}],
                            "resources": {"requests": {"cpu": "100m", "memory": "64Mi"}},
                        }
                    ]
                },
            },
        },
    }
    return deployment


def defaulted_deployment() -> dict[str, Any]:
    deployment = web_deployment()
    deployment["metadata"].update(uid="6b1f7c9e-0d2a-4c55-9a43-2f3f7c2d9e10", generation=1)
    deployment["metadata"]["creationTimestamp"] = "2026-01-01T00:00:00Z"
    apply_defaults(DEPLOYMENT_GVK, deployment)
    return deployment


def deployment_creates() -> Callable[[], float]:
    schema = schema_of(DEPLOYMENT_GVK)
    template = defaulted_deployment()

    def create() -> float:
        new = copy_object(template)
        started = time.process_time()
        track_fields(None, new, manager="kubectl-create", schema=schema, api_version="apps/v1", now=START)
        return time.process_time() - started

    return create


def deployment_image_updates() -> Callable[[], float]:
    schema = schema_of(DEPLOYMENT_GVK)
    created = track_fields(
        None,
        defaulted_deployment(),
        manager="kubectl-create",
        schema=schema,
        api_version="apps/v1",
        now=START,
    )
    live = stored(created, 1)
    images = ("nginx:1.26", "nginx:1.27")
    turn = 0

    def update() -> float:
        nonlocal turn
        turn += 1
        new = copy_object(live)
        new["spec"]["template"]["spec"]["containers"][0]["image"] = images[turn % 2]
        new["metadata"]["generation"] = 2
        started = time.process_time()
        track_fields(
            live, new, manager="kubectl-set", schema=schema, api_version="apps/v1", now=START + timedelta(1)
        )
        return time.process_time() - started

    return update


def apply_deployment(live: dict[str, Any] | None, schema: Schema, now: datetime) -> dict[str, Any]:
    """What the apply handler and the write pipeline do for an apply patch."""
    result = ssa.apply(
        live,
        web_deployment(),
        manager="kubectl",
        schema=schema,
        managed_fields=(live or {}).get("metadata", {}).get("managedFields"),
        force=False,
        api_version="apps/v1",
        now=now,
    )
    return ssa.strip_time_only_changes(live, result.obj)


def deployment_first_applies() -> Callable[[], float]:
    schema = schema_of(DEPLOYMENT_GVK)

    def first_apply() -> float:
        started = time.process_time()
        apply_deployment(None, schema, START)
        return time.process_time() - started

    return first_apply


def deployment_reapplies() -> Callable[[], float]:
    schema = schema_of(DEPLOYMENT_GVK)
    first = apply_deployment(None, schema, START)
    apply_defaults(DEPLOYMENT_GVK, first)
    live = stored(first, 1)

    def reapply() -> float:
        started = time.process_time()
        result = apply_deployment(live, schema, START + timedelta(1))
        elapsed = time.process_time() - started
        assert result["metadata"]["managedFields"] == live["metadata"]["managedFields"]
        return elapsed

    return reapply


# ---- the scheduler's writes to a ResourceBinding --------------------------------------------------

SCHEDULER = "flotilla-scheduler"
MEMBERS = [f"member-{n}" for n in range(10)]


def binding_placement() -> dict[str, Any]:
    """A placement as large as the scheduler benchmark's: affinity, weights and spread over ten members."""
    return {
        "clusterAffinity": {"clusterNames": MEMBERS},
        "clusterTolerations": [
            {"key": "cluster.karmada.io/not-ready", "operator": "Exists", "effect": "NoExecute"}
        ],
        "spreadConstraints": [
            {"spreadByField": "region", "minGroups": 2, "maxGroups": 2},
            {"spreadByField": "cluster", "minGroups": 2, "maxGroups": 4},
        ],
        "replicaScheduling": {
            "replicaSchedulingType": "Divided",
            "replicaDivisionPreference": "Weighted",
            "weightPreference": {
                "staticWeightList": [
                    {"targetCluster": {"clusterNames": [name]}, "weight": 1 + n % 3}
                    for n, name in enumerate(MEMBERS)
                ]
            },
        },
    }


def created_binding(index: int = 0) -> dict[str, Any]:
    """A ResourceBinding as its creator wrote it, with the status a controller applied since.

    Bindings of other `index`es belong to other Deployments, so their FieldsV1 differ (owner uids).
    """
    owner_uid = f"{index:08x}-4b5a-4968-8776-a5b4c3d2e1f0"
    binding: dict[str, Any] = {
        "apiVersion": BINDING_GVK.api_version,
        "kind": BINDING_GVK.kind,
        "metadata": {
            "name": "web-deployment",
            "namespace": "default",
            "generation": 1,
            "labels": {
                constants.PROPAGATION_POLICY_PERMANENT_ID_LABEL: "5b0a3c1e-7d64-4a8f-9d3e-0c1f2e3d4a5b",
                constants.RESOURCE_BINDING_PERMANENT_ID_LABEL: "9e8d7c6b-5a49-4382-a1b0-c9d8e7f6a5b4",
            },
            "ownerReferences": [
                {
                    "apiVersion": "apps/v1",
                    "kind": "Deployment",
                    "name": "web",
                    "uid": owner_uid,
                    "controller": True,
                    "blockOwnerDeletion": True,
                }
            ],
        },
        "spec": {
            "resource": {
                "apiVersion": "apps/v1",
                "kind": "Deployment",
                "namespace": "default",
                "name": "web",
                "uid": owner_uid,
                "resourceVersion": "1041",
            },
            "replicas": 6,
            "replicaRequirements": {"resourceRequest": {"cpu": "250m", "memory": "256Mi"}},
            "placement": binding_placement(),
            "conflictResolution": "Abort",
            "schedulerName": "default-scheduler",
        },
    }
    schema = schema_of(BINDING_GVK)
    api_version = BINDING_GVK.api_version
    live = stored(
        track_fields(
            None, binding, manager="flotilla-detector", schema=schema, api_version=api_version, now=START
        ),
        1,
    )
    status = {
        "apiVersion": api_version,
        "kind": BINDING_GVK.kind,
        "metadata": {"name": "web-deployment", "namespace": "default"},
        "status": {
            "conditions": [condition("FullyApplied", "FullyAppliedSuccess", START)],
            "aggregatedStatus": [
                {"clusterName": name, "applied": True, "health": "Healthy", "status": {"readyReplicas": 2}}
                for name in MEMBERS[:3]
            ],
        },
    }
    return stored(apply_binding(live, status, "flotilla-binding-status", START, subresource="status"), 2)


def condition(kind: str, reason: str, at: datetime) -> dict[str, Any]:
    return {
        "type": kind,
        "status": "True",
        "reason": reason,
        "message": f"{kind} {reason}",
        "lastTransitionTime": at.strftime("%Y-%m-%dT%H:%M:%SZ"),
    }


def apply_binding(
    live: dict[str, Any], body: dict[str, Any], manager: str, now: datetime, *, subresource: str = ""
) -> dict[str, Any]:
    """What the apply handler and the write pipeline do for the scheduler's apply patches."""
    result = ssa.apply(
        live,
        body,
        manager=manager,
        schema=schema_of(BINDING_GVK),
        managed_fields=live["metadata"].get("managedFields"),
        force=True,
        api_version=BINDING_GVK.api_version,
        now=now,
        subresource=subresource,
    )
    return ssa.strip_time_only_changes(live, result.obj)


def scheduling_result(replicas: int) -> dict[str, Any]:
    """The scheduler's spec apply: its clusters and the placement they were computed for."""
    placement = orjson.dumps(binding_placement(), option=orjson.OPT_SORT_KEYS).decode()
    return {
        "apiVersion": BINDING_GVK.api_version,
        "kind": BINDING_GVK.kind,
        "metadata": {
            "name": "web-deployment",
            "namespace": "default",
            "annotations": {constants.APPLIED_PLACEMENT_ANNOTATION: placement},
        },
        "spec": {"clusters": [{"name": name, "replicas": replicas} for name in MEMBERS[:3]]},
    }


def scheduled_status(round_: int) -> dict[str, Any]:
    """The scheduler's status apply in round `round_`: a new transition time and observed generation."""
    at = START + timedelta(seconds=round_)
    return {
        "apiVersion": BINDING_GVK.api_version,
        "kind": BINDING_GVK.kind,
        "metadata": {"name": "web-deployment", "namespace": "default"},
        "status": {
            "conditions": [condition(constants.CONDITION_SCHEDULED, "Success", at)],
            "schedulerObservedGeneration": round_,
            "lastScheduledTime": at.strftime("%Y-%m-%dT%H:%M:%SZ"),
            "schedulerObservingAffinityName": "primary",
        },
    }


def binding_first_spec_applies(bindings: int = 3000) -> Callable[[], float]:
    """The scheduler's first result for each of `bindings` created bindings, in turn."""
    created = [created_binding(index) for index in range(bindings)]
    body = scheduling_result(2)
    turn = 0

    def first_apply() -> float:
        nonlocal turn
        turn = (turn + 1) % bindings
        started = time.process_time()
        apply_binding(created[turn], body, SCHEDULER, START + timedelta(1))
        return time.process_time() - started

    return first_apply


def binding_spec_reapplies() -> Callable[[], float]:
    """New results for one binding, a second apart; each apply starts from what the last one stored."""
    live = stored(apply_binding(created_binding(), scheduling_result(2), SCHEDULER, START), 3)
    turn = 0

    def reapply() -> float:
        nonlocal live, turn
        turn += 1
        started = time.process_time()
        result = apply_binding(
            live, scheduling_result(3 + turn % 2), SCHEDULER, START + timedelta(seconds=turn)
        )
        elapsed = time.process_time() - started
        live = stored(result, 3 + turn)
        return elapsed

    return reapply


def binding_status_reapplies() -> Callable[[], float]:
    """The scheduler's status for one binding, a second apart, each apply onto what the last stored."""
    scheduled = stored(apply_binding(created_binding(), scheduling_result(2), SCHEDULER, START), 3)
    live = stored(apply_binding(scheduled, scheduled_status(1), SCHEDULER, START, subresource="status"), 4)
    turn = 0

    def reapply() -> float:
        nonlocal live, turn
        turn += 1
        body = scheduled_status(1 + turn)
        started = time.process_time()
        result = apply_binding(live, body, SCHEDULER, START + timedelta(seconds=turn), subresource="status")
        elapsed = time.process_time() - started
        live = stored(result, 4 + turn)
        return elapsed

    return reapply


def binding_event() -> dict[str, Any]:
    """The Event the scheduler records after placing a binding (as `scheduler.binding_event` builds it)."""
    return {
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {
            "name": "web-deployment.18f2a3b4c5d6e7f8",
            "namespace": "default",
            "uid": "3c2b1a09-8f7e-4d6c-b5a4-9382716f5e4d",
            "creationTimestamp": "2026-01-01T00:00:00Z",
        },
        "involvedObject": {
            "apiVersion": BINDING_GVK.api_version,
            "kind": BINDING_GVK.kind,
            "name": "web-deployment",
            "namespace": "default",
            "uid": "6b1f7c9e-0d2a-4c55-9a43-2f3f7c2d9e10",
            "resourceVersion": "3",
        },
        "type": "Normal",
        "reason": "ScheduleBindingSucceed",
        "message": "Binding has been scheduled successfully. Result: {member-0:2, member-1:2, member-2:2}",
        "source": {"component": "default-scheduler"},
        "reportingComponent": "default-scheduler",
        "reportingInstance": "",
        "firstTimestamp": "2026-01-01T00:00:00Z",
        "lastTimestamp": "2026-01-01T00:00:00Z",
        "count": 1,
    }


def event_creates() -> Callable[[], float]:
    schema = schema_of(EVENT_GVK)
    template = binding_event()

    def create() -> float:
        new = copy_object(template)
        started = time.process_time()
        track_fields(None, new, manager=SCHEDULER, schema=schema, api_version="v1", now=START)
        return time.process_time() - started

    return create


OPERATIONS: dict[str, Callable[[], Callable[[], float]]] = {
    "lease renewal": lease_renewals,
    "lease renewal, 1000 leases": lambda: lease_renewals(1000),
    "deployment create": deployment_creates,
    "deployment image update": deployment_image_updates,
    "deployment apply (create)": deployment_first_applies,
    "deployment apply (again)": deployment_reapplies,
    "binding spec apply (first)": binding_first_spec_applies,
    "binding spec apply (replicas)": binding_spec_reapplies,
    "binding status apply": binding_status_reapplies,
    "event create": event_creates,
}


def measure(operation: Callable[[], float], rounds: int, iterations: int) -> tuple[float, float, float]:
    """Median, lowest and highest of the per-round mean, in µs."""
    for _ in range(iterations):  # warm up caches, as a running server has them warm
        operation()
    means = [sum(operation() for _ in range(iterations)) / iterations * 1e6 for _ in range(rounds)]
    return statistics.median(means), min(means), max(means)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--iterations", type=int, default=200)
    parser.add_argument("--profile", choices=sorted(OPERATIONS), help="profile one operation instead")
    args = parser.parse_args()
    gc.set_threshold(garbage.YOUNG_THRESHOLD, garbage.MIDDLE_THRESHOLD, 2**31 - 1)  # no full collections
    if args.profile:
        operation = OPERATIONS[args.profile]()
        profiler = cProfile.Profile()
        profiler.runcall(lambda: [operation() for _ in range(args.iterations * 5)])
        pstats.Stats(profiler).sort_stats("tottime").print_stats(25)
        return
    print(f"{'operation':<30} {'µs/op':>8} {'min':>8} {'max':>8}")
    for name, build in OPERATIONS.items():
        median, low, high = measure(build(), args.rounds, args.iterations)
        print(f"{name:<30} {median:>8.1f} {low:>8.1f} {high:>8.1f}")


if __name__ == "__main__":
    main()
