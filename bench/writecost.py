"""Hub CPU per request for the writes a scheduled binding costs, against a bare request in the same run.

Starts a `flotilla apiserver`, creates 10 Clusters and `--bindings` ResourceBindings (the shapes of
`bench/scheduler_e2e.py`), then sends each request kind once per binding, `--rounds` times, 32 at
a time through Flotilla's own client, and reads the server process's CPU time from /proc:

- `ssa spec`: server-side apply of `spec.clusters` and the applied-placement annotation, as the
  scheduler writes its result (field manager `flotilla-scheduler`, force);
- `ssa status`: server-side apply of the `Scheduled` condition and the scheduler's status fields on
  the status subresource;
- `merge spec` / `merge status`: the same changes as JSON merge patches (Karmada's scheduler patches);
- `event`: an Event create about the binding, as the scheduler records one per round;
- `get`: a GET of the binding.

The floor is the CPU a bare aiohttp handler behind the same TLS setup spends on one GET of a
ConfigMap-sized object (`bench/floors.py`), measured in the same run with the same client: every
figure is also printed as a multiple of it. Values are the median of the rounds (the machine is
shared and noisy). Run: `.venv/bin/python bench/writecost.py [--bindings 1000] [--rounds 3]`.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import aiohttp

from apiserver import start_apiserver, start_floor, stop
from flotilla.api.karmada import constants
from flotilla.client import Client, load_kubeconfig
from flotilla.scheduler import scheduler
from flotilla.scheduler.core.errors import scheduled_condition
from loadgen import client_ssl
from scheduler_e2e import CONCURRENCY, cpu_seconds, gather_limited, hub_binding, hub_cluster

FIELD_MANAGER = scheduler.FIELD_MANAGER
Request = Callable[[dict[str, Any], int], Awaitable[Any]]


def spec_result(binding: dict[str, Any], round_: int) -> dict[str, Any]:
    return {
        "metadata": {
            "annotations": {constants.APPLIED_PLACEMENT_ANNOTATION: scheduler.applied_placement(binding)}
        },
        "spec": {"clusters": [{"name": f"member-{i}", "replicas": round_ + 1} for i in range(3)]},
    }


def status_result(binding: dict[str, Any], round_: int) -> dict[str, Any]:
    now = f"2026-11-29T00:00:{round_ % 60:02d}Z"
    status = scheduler.scheduled_status(
        binding, scheduled_condition(None), now, result=None, refresh_time=True
    )
    status["conditions"][0]["lastTransitionTime"] = now
    status["schedulerObservedGeneration"] = round_
    return {"status": status}


def requests(hub: Client) -> dict[str, Request]:
    """Each measured request kind: a coroutine per (binding, round)."""
    kind = constants.RESOURCE_BINDING

    def identity(binding: dict[str, Any]) -> dict[str, Any]:
        metadata = binding["metadata"]
        return {
            "apiVersion": binding["apiVersion"],
            "kind": binding["kind"],
            "metadata": {"name": metadata["name"], "namespace": metadata["namespace"]},
        }

    def applied(binding: dict[str, Any], part: dict[str, Any]) -> dict[str, Any]:
        body = identity(binding)
        body["metadata"].update(part.get("metadata") or {})
        return {**body, **{key: value for key, value in part.items() if key != "metadata"}}

    def name(binding: dict[str, Any]) -> str:
        return str(binding["metadata"]["name"])

    def event(binding: dict[str, Any], round_: int) -> dict[str, Any]:
        return scheduler.binding_event(
            binding, "Normal", scheduler.EVENT_SUCCEEDED, f"round {round_}", "2026-11-29T00:00:00Z"
        )

    return {
        "ssa spec": lambda b, r: hub.apply(
            applied(b, spec_result(b, r)), field_manager=FIELD_MANAGER, force=True
        ),
        "ssa status": lambda b, r: hub.apply(
            applied(b, status_result(b, r)), field_manager=FIELD_MANAGER, force=True, subresource="status"
        ),
        "merge spec": lambda b, r: hub.patch(
            kind, name(b), spec_result(b, r + 100), namespace="default", field_manager=FIELD_MANAGER
        ),
        "merge status": lambda b, r: hub.patch(
            kind,
            name(b),
            status_result(b, r + 100),
            namespace="default",
            field_manager=FIELD_MANAGER,
            subresource="status",
        ),
        "event": lambda b, r: hub.create(event(b, r), field_manager=FIELD_MANAGER),
        "get": lambda b, _: hub.get(kind, name(b), namespace="default"),
    }


async def floor_cpu_per_get(floor: Any, url: str, tls: dict[str, str], count: int) -> float:
    """Milliseconds of the floor server's CPU per GET, same concurrency as the measured requests."""
    context = client_ssl(tls["ca"], tls["cert"], tls["key"])
    async with aiohttp.ClientSession(
        connector=aiohttp.TCPConnector(ssl=context, limit=CONCURRENCY)
    ) as session:

        async def one() -> None:
            async with session.get(url + "/obj") as response:
                await response.read()

        await gather_limited([one() for _ in range(200)])
        before = cpu_seconds(floor)
        await gather_limited([one() for _ in range(count)])
        return 1000 * (cpu_seconds(floor) - before) / count


async def measure(options: argparse.Namespace, workdir: Path, server: Any) -> dict[str, float]:
    kubeconfig = workdir / "hub" / "admin.kubeconfig"
    async with Client(load_kubeconfig(kubeconfig, None), field_manager="bench") as hub:
        await gather_limited([hub.create(spec) for spec, _ in (hub_cluster(i) for i in range(10))])
        bindings = await asyncio.gather(*(hub.create(hub_binding(i, 10)) for i in range(options.bindings)))
        figures: dict[str, float] = {}
        for label, send in requests(hub).items():
            rounds = []
            for round_ in range(options.rounds):
                before = cpu_seconds(server)
                await gather_limited([send(binding, round_) for binding in bindings])
                rounds.append(1000 * (cpu_seconds(server) - before) / len(bindings))
            figures[label] = statistics.median(rounds)
        return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bindings", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=3)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="flotilla-bench-") as tmp:
        workdir = Path(tmp)
        server, _ = start_apiserver(workdir / "hub")
        pki = workdir / "hub" / "pki"
        tls = {"ca": str(pki / "ca.crt"), "cert": str(pki / "admin.crt"), "key": str(pki / "admin.key")}
        floor, floor_url = start_floor(pki, workdir)
        try:
            figures = asyncio.run(measure(options, workdir, server))
            bare = asyncio.run(floor_cpu_per_get(floor, floor_url, tls, options.bindings * options.rounds))
        finally:
            stop(floor)
            stop(server)
    print(f"hub CPU per request, {options.bindings} ResourceBindings, median of {options.rounds} rounds")
    print(f"{'request':<14} {'ms CPU':>8} {'x bare GET':>11}")
    for label, value in figures.items():
        print(f"{label:<14} {value:>8.3f} {value / bare:>11.1f}")
    print(f"{'bare GET':<14} {bare:>8.3f} {1:>11.1f}   (floor: aiohttp handler, same TLS)")
    per_binding = figures["ssa spec"] + figures["ssa status"] + figures["event"]
    print(f"a scheduled binding's three writes: {per_binding:.3f} ms of hub CPU", file=sys.stdout)


if __name__ == "__main__":
    main()
