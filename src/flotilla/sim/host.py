"""The `flotilla sim` process: many simulated clusters in one event loop, plus a small admin endpoint.

Clusters start concurrently. The admin endpoint (plain HTTP on loopback, address written to
`<data-dir>/sim.json` with a random token) lets `flotilla sim fault` inject and clear faults in the
running process: an unreachable cluster closes its port, a slow one delays every request, and a
NotReady one stops its nodes' heartbeats; and lets `flotilla sim load` set a workload's load.
"""

from __future__ import annotations

import asyncio
import json
import os
import secrets
from pathlib import Path
from typing import Any

import structlog
from aiohttp import web

from flotilla.runtime.clock import Clock, SystemClock
from flotilla.runtime.privatefiles import private_directory
from flotilla.sim.cluster import SimulatedCluster
from flotilla.sim.metrics.loads import Load, LoadError, workload_kind
from flotilla.sim.spec import ClusterSpec

log = structlog.get_logger("flotilla.sim")

STATE_FILE = "sim.json"


class SimHost:
    def __init__(
        self,
        specs: list[ClusterSpec],
        data_dir: Path,
        *,
        clock: Clock | None = None,
        bind_address: str = "127.0.0.1",
        start_concurrency: int = 8,
    ) -> None:
        self.data_dir = data_dir
        self.clock = clock or SystemClock()
        self.clusters = {
            spec.name: SimulatedCluster(spec, data_dir, clock=self.clock, bind_address=bind_address)
            for spec in specs
        }
        self._token = secrets.token_urlsafe(24)
        self._runner: web.AppRunner | None = None
        self._concurrency = start_concurrency
        self.admin_url = ""

    # -- lifecycle ------------------------------------------------------------------------------

    async def start(self) -> None:
        private_directory(self.data_dir)  # each member's store, keys and kubeconfig
        limit = asyncio.Semaphore(self._concurrency)

        async def start_one(cluster: SimulatedCluster) -> None:
            async with limit:
                await cluster.start()

        await asyncio.gather(*(start_one(c) for c in self.clusters.values()))
        await self._start_admin()
        self._write_state()

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None
        await asyncio.gather(*(c.stop() for c in self.clusters.values()), return_exceptions=True)
        (self.data_dir / STATE_FILE).unlink(missing_ok=True)

    def _write_state(self) -> None:
        state = {
            "pid": os.getpid(),
            "admin": self.admin_url,
            "token": self._token,
            "clusters": {
                name: {"url": c.url, "kubeconfig": str(c.kubeconfig_path), "dns": c.dns.address}
                for name, c in self.clusters.items()
            },
        }
        path = self.data_dir / STATE_FILE
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(state, indent=2))
        tmp.chmod(0o600)
        tmp.replace(path)

    # -- admin endpoint -------------------------------------------------------------------------

    async def _start_admin(self) -> None:
        app = web.Application(middlewares=[self._authorize])
        app.router.add_get("/clusters", self._list)
        app.router.add_post("/clusters/{name}/faults", self._fault)
        app.router.add_post("/clusters/{name}/loads", self._load)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        sockets = getattr(site._server, "sockets", None) or []
        port = sockets[0].getsockname()[1] if sockets else 0
        self.admin_url = f"http://127.0.0.1:{port}"

    @web.middleware
    async def _authorize(self, request: web.Request, handler: Any) -> web.StreamResponse:
        if not secrets.compare_digest(request.headers.get("Authorization", ""), f"Bearer {self._token}"):
            return web.json_response({"error": "a valid token from sim.json is required"}, status=401)
        response: web.StreamResponse = await handler(request)
        return response

    async def _list(self, request: web.Request) -> web.Response:
        return web.json_response(
            {name: {"url": c.url, "faults": c.faults()} for name, c in self.clusters.items()}
        )

    async def _fault(self, request: web.Request) -> web.Response:
        cluster = self.clusters.get(request.match_info["name"])
        if cluster is None:
            known = ", ".join(sorted(self.clusters))
            return web.json_response(
                {"error": f"no cluster {request.match_info['name']!r}; known: {known}"}, status=404
            )
        try:
            body = await request.json()
        except ValueError:
            return web.json_response({"error": "send a JSON object of faults"}, status=400)
        if not isinstance(body, dict):
            return web.json_response({"error": "send a JSON object of faults"}, status=400)
        if "unreachable" in body:
            await cluster.set_unreachable(bool(body["unreachable"]))
        if "latencyMs" in body:
            cluster.set_latency(int(body["latencyMs"]))
        if "nodesNotReady" in body:
            await cluster.set_nodes_not_ready(bool(body["nodesNotReady"]))
        return web.json_response({"cluster": cluster.name, "faults": cluster.faults()})

    async def _load(self, request: web.Request) -> web.Response:
        """Set or clear a workload's load: `{"kind", "namespace", "name", "cpu"?, "memory"?}`."""
        cluster = self.clusters.get(request.match_info["name"])
        if cluster is None:
            known = ", ".join(sorted(self.clusters))
            return web.json_response(
                {"error": f"no cluster {request.match_info['name']!r}; known: {known}"}, status=404
            )
        try:
            body = await request.json()
        except ValueError:
            body = None
        if not isinstance(body, dict) or not body.get("name") or not isinstance(body.get("name"), str):
            error = "send a JSON object with kind, namespace and name"
            return web.json_response({"error": error}, status=400)
        try:
            kind = workload_kind(str(body.get("kind", "")))
            load = Load.from_json(body)
        except LoadError as exc:
            return web.json_response({"error": str(exc)}, status=400)
        namespace = str(body.get("namespace") or "default")
        found = await cluster.set_load((kind.kind, namespace, body["name"]), load)
        return web.json_response(
            {
                "cluster": cluster.name,
                "workload": f"{kind.kind.lower()}/{body['name']}",
                "namespace": namespace,
                "load": load.to_json(),
                "found": found,
            }
        )


def read_state(data_dir: Path) -> dict[str, Any]:
    """The running sim's state file, or a clear error when none runs there."""
    path = data_dir / STATE_FILE
    try:
        state: dict[str, Any] = json.loads(path.read_text())
    except FileNotFoundError as exc:
        raise RuntimeError(f"no running `flotilla sim` found: {path} does not exist") from exc
    return state
