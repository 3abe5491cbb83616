"""CPU cost of managedFields bookkeeping per write, in µs, as the write pipeline pays it.

Each operation runs exactly the calls `pipeline._track_fields` (or the apply handler) makes, on
objects shaped as the server stores them, and nothing else:

- `lease renewal`: a kubelet renews its node Lease (`renewTime` changes, ten seconds later), a
  read-modify-write whose body carries the live managedFields; `…, 1000 leases` renews a thousand
  of them in turn, as a hundred simulated clusters of ten nodes do;
- `deployment create`: `kubectl create` of a defaulted Deployment;
- `deployment image update`: another manager changes the container image of that Deployment;
- `deployment apply (create)` and `deployment apply (again)`: server-side apply of a Deployment,
  then the same configuration again (a no-op that must keep the timestamps).

Every figure is the median over `--rounds` rounds of the mean over `--iterations` calls, so a noisy
machine shows up as spread between runs rather than in one number. To measure another checkout,
put its `src` first on PYTHONPATH (the script uses only the package's public functions).
Run: `.venv/bin/python bench/managedfields.py [--rounds 15] [--iterations 200] [--profile NAME]`.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import statistics
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import orjson

from flotilla.api.scheme import GroupVersionKind
from flotilla.apiserver import apply as ssa
from flotilla.apiserver.defaults import apply_defaults
from flotilla.apiserver.schema.builtin import builtin_schemas
from flotilla.apiserver.schema.model import Schema

START = datetime(2026, 1, 1, tzinfo=UTC)
LEASE_GVK = GroupVersionKind("coordination.k8s.io", "v1", "Lease")
DEPLOYMENT_GVK = GroupVersionKind("apps", "v1", "Deployment")


def schema_of(gvk: GroupVersionKind) -> Schema:
    schema = builtin_schemas().for_kind(gvk)
    assert schema is not None, gvk
    return schema


def copy_json(obj: dict[str, Any]) -> dict[str, Any]:
    copied: dict[str, Any] = orjson.loads(orjson.dumps(obj))
    return copied


def micro_time(now: datetime) -> str:
    return now.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


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
    result = copy_json(obj)
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
        "spec": {"holderIdentity": name, "leaseDurationSeconds": 40, "renewTime": micro_time(START)},
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
        new = copy_json(live)
        new["spec"]["renewTime"] = micro_time(now)
        started = time.perf_counter()
        result = renewed(live, new, schema, now)
        elapsed = time.perf_counter() - started
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
        new = copy_json(template)
        started = time.perf_counter()
        track_fields(None, new, manager="kubectl-create", schema=schema, api_version="apps/v1", now=START)
        return time.perf_counter() - started

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
        new = copy_json(live)
        new["spec"]["template"]["spec"]["containers"][0]["image"] = images[turn % 2]
        new["metadata"]["generation"] = 2
        started = time.perf_counter()
        track_fields(
            live, new, manager="kubectl-set", schema=schema, api_version="apps/v1", now=START + timedelta(1)
        )
        return time.perf_counter() - started

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
        started = time.perf_counter()
        apply_deployment(None, schema, START)
        return time.perf_counter() - started

    return first_apply


def deployment_reapplies() -> Callable[[], float]:
    schema = schema_of(DEPLOYMENT_GVK)
    first = apply_deployment(None, schema, START)
    apply_defaults(DEPLOYMENT_GVK, first)
    live = stored(first, 1)

    def reapply() -> float:
        started = time.perf_counter()
        result = apply_deployment(live, schema, START + timedelta(1))
        elapsed = time.perf_counter() - started
        assert result["metadata"]["managedFields"] == live["metadata"]["managedFields"]
        return elapsed

    return reapply


OPERATIONS: dict[str, Callable[[], Callable[[], float]]] = {
    "lease renewal": lease_renewals,
    "lease renewal, 1000 leases": lambda: lease_renewals(1000),
    "deployment create": deployment_creates,
    "deployment image update": deployment_image_updates,
    "deployment apply (create)": deployment_first_applies,
    "deployment apply (again)": deployment_reapplies,
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
    if args.profile:
        operation = OPERATIONS[args.profile]()
        profiler = cProfile.Profile()
        profiler.runcall(lambda: [operation() for _ in range(args.iterations * 5)])
        pstats.Stats(profiler).sort_stats("tottime").print_stats(25)
        return
    print(f"{'operation':<28} {'µs/op':>8} {'min':>8} {'max':>8}")
    for name, build in OPERATIONS.items():
        median, low, high = measure(build(), args.rounds, args.iterations)
        print(f"{name:<28} {median:>8.1f} {low:>8.1f} {high:>8.1f}")


if __name__ == "__main__":
    main()
