"""A local hub with simulated members, as `flotilla up` runs it: start, join, wait, supervise, stop.

Three child processes make the local hub: the API server (`DIR/hub`), one `flotilla sim` serving
every member (`DIR/sim`), and the controller manager. With `--ha` (`--etcd-members 3 --apiservers
2`) the store moves to an etcd cluster whose members are children too (`etcdcluster.py`), started
and serving before anything else; the API server keeps its store there, a second one (`DIR/hub-2`,
sharing the first's certificates and keys, `replicas.py`) starts once the first serves, and the
controller manager runs with leader election. The API server and the sim start together,
since neither needs the other; the controller manager starts as soon as the hub serves (it needs the
hub's kubeconfig), and the members are joined as soon as both the hub and the sim serve, while the
controller manager is still starting. Each step is reported with the time since `up` began, and
readiness is polled (logs, `/readyz`, the Cluster list) rather than slept for.

Once every member is Ready, `up` stays in the foreground as a supervisor. Everything it waits for
runs in one task group: one watcher per child, the start-up sequence, and the stop request (SIGINT,
SIGTERM, SIGHUP). A child that exits during start-up ends the run (a component that cannot start
is reported, not retried). Once the hub is Ready, a child that exits is reported — which one, its
exit status and the end of its log — and started again with backoff (`restarts.py`), while
the others keep running: the API server on the same data dir and port (it resumes from its store),
the sim on its remembered ports (the members are joined again if an endpoint moved), the controller
manager against the same hub, an etcd member on its data dir and ports (it catches up from the
others). The stop request, or a failure of `up` itself, ends the run; the
children are then stopped — controller manager first, then the sim and the API servers, then the
etcd members — and the
state file is updated, so nothing is left running and the next `up` knows what there is to reuse.
"""

from __future__ import annotations

import asyncio
import os
import re
import signal
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

from flotilla.cli.localhub.clusters import join_members, wait_until_ready
from flotilla.cli.localhub.etcdcluster import ETCD_PROGRAM, EtcdCluster
from flotilla.cli.localhub.etcdcluster import SERVING as ETCD_SERVING
from flotilla.cli.localhub.failover import install_failover_policies
from flotilla.cli.localhub.guide import shown
from flotilla.cli.localhub.members import MemberPlacement
from flotilla.cli.localhub.processes import (
    ChildProcess,
    ComponentExited,
    describe_exit,
    flotilla_command,
    free_port,
    port_in_use,
    spawn,
)
from flotilla.cli.localhub.replicas import SHARED, replica_data_dir, share_hub_files
from flotilla.cli.localhub.restarts import RestartHistory, RestartPolicy, describe_window
from flotilla.cli.localhub.state import (
    APISERVER,
    CONTROLLER_MANAGER,
    DASHBOARD,
    SIM,
    UpState,
    apiserver_name,
    is_etcd,
    stop_order,
    write_state,
)
from flotilla.client import Client, ClientError, load_kubeconfig

SERVING = re.compile(r"flotilla apiserver: serving on (https://\S+)")
SIM_SERVING = re.compile(r"flotilla sim: serving .*\(admin: (http://\S+)\)")
MANAGER_RUNNING = re.compile(r"flotilla controller-manager: running \(health: (\S+)\)")
DASHBOARD_PORT = 8001
DASHBOARD_SERVING = re.compile(r"flotilla dashboard: serving on (https://\S+) ")
DASHBOARD_SIGN_IN = re.compile(r"flotilla dashboard: sign in at (https://\S+)")


@dataclass(frozen=True, slots=True)
class UpSettings:
    """One `flotilla up` run; paths are absolute (children are told them and `down` looks for them)."""

    data_dir: Path
    members: tuple[MemberPlacement, ...]
    secure_port: int = 6443
    """0 lets the API server pick a free port."""
    bind_address: str = "127.0.0.1"
    start_timeout: float = 60.0
    """Seconds each component may take to serve after it is started."""
    ready_timeout: float = 120.0
    """Seconds the members may take to be Ready once joined."""
    grace: float = 10.0
    """Seconds a component gets to exit after SIGTERM before SIGKILL."""
    restarts: RestartPolicy = field(default_factory=RestartPolicy)
    """When a component that died once the hub was Ready is started again."""
    etcd: EtcdCluster | None = None
    """`--ha`: the etcd cluster the API servers keep the store in (None: SQLite in `DIR/hub`)."""
    etcd_program: str = ETCD_PROGRAM
    apiservers: int = 1
    """How many API server processes serve the hub (more than one needs `etcd`)."""
    replica_ports: tuple[int, ...] = ()
    """The ports of the API servers after the first (0 or missing: any free port)."""

    def replica_port(self, index: int) -> int:
        """The port API server `index` (2, 3, …) asks for."""
        ports = self.replica_ports
        return ports[index - 2] if index - 2 < len(ports) else 0

    def apiserver_data_dir(self, index: int) -> Path:
        return replica_data_dir(self.data_dir / "hub", index)

    def apiserver_kubeconfig(self, index: int) -> Path:
        """The admin kubeconfig API server `index` writes for itself (naming its own port)."""
        return self.apiserver_data_dir(index) / "admin.kubeconfig"

    @property
    def sim_config(self) -> Path:
        return self.data_dir / "sim.yaml"

    @property
    def hub_kubeconfig(self) -> Path:
        return self.data_dir / "hub.kubeconfig"

    def member_kubeconfig(self, name: str) -> Path:
        return self.data_dir / "members" / f"{name}.kubeconfig"

    def log_path(self, component: str) -> Path:
        return self.data_dir / "logs" / f"{component}.log"


class StopRequested(Exception):
    """A signal asked `up` to stop: the normal way for it to end."""


@dataclass
class Progress:
    """Prints one line per step with the time since `up` started."""

    echo: Callable[[str], None]
    mark: str = "✓"
    started: float = field(default_factory=time.monotonic)

    @property
    def elapsed(self) -> float:
        return time.monotonic() - self.started

    def step(self, message: str) -> None:
        self.echo(f"{self.mark} {message} ({self.elapsed:.1f}s)")

    def note(self, message: str) -> None:
        self.echo(f"  {message}")


class LocalHub:
    """The children of one `flotilla up` and the sequence that brings them to Ready."""

    def __init__(
        self,
        settings: UpSettings,
        previous: UpState | None,
        progress: Progress,
        on_ready: Callable[[UpState], None],
    ) -> None:
        self.settings = settings
        self.progress = progress
        self.on_ready = on_ready
        self.children: dict[str, ChildProcess] = {}
        self.state = replace(
            previous or UpState(),
            up_pid=os.getpid(),
            components={},
            secure_port=settings.secure_port,
            members=tuple(m.name for m in settings.members),
            replica_ports=tuple(settings.replica_port(i) for i in range(2, settings.apiservers + 1)),
            etcd_ports={}
            if settings.etcd is None
            else {m.name: (m.client_port, m.peer_port) for m in settings.etcd.members},
        )
        self.first_up = previous is None or not previous.members
        """No earlier `up` joined members in this data dir: the hub is new (defaults are installed)."""
        self.stopped: list[str] = []
        """The components stopped when the run ended, in the order they were stopped."""
        self._group: asyncio.TaskGroup | None = None
        self._stop = asyncio.Event()
        self._hurry = asyncio.Event()
        self._commands: dict[str, tuple[str, ...]] = {}
        """Each component's command line, for restarts."""
        self._restarts: dict[str, RestartHistory] = {}
        self._supervising = False
        """Whether a child that exits is started again (once the hub is Ready) or ends the run."""

    async def run(self) -> list[BaseException]:
        """Run until stopped; the failures that ended the run (empty when a signal stopped it)."""
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            loop.add_signal_handler(sig, self._signalled)
        failures: list[BaseException] = []
        try:
            async with asyncio.TaskGroup() as group:
                self._group = group
                group.create_task(self._wait_for_stop())
                group.create_task(self._start())
        except* StopRequested:
            pass
        except* Exception as errors:
            failures.extend(_flatten(errors))
        finally:
            await self._stop_children()
            for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
                loop.remove_signal_handler(sig)
        return failures

    def _signalled(self) -> None:
        if self._stop.is_set():
            self._hurry.set()  # a second Ctrl-C: no more grace
        self._stop.set()

    async def _wait_for_stop(self) -> None:
        await self._stop.wait()
        raise StopRequested

    # -- start-up --------------------------------------------------------------------------------

    async def _start(self) -> None:
        settings = self.settings
        if settings.etcd is not None:
            await self._start_etcd(settings.etcd)
        hub = await self._spawn(APISERVER, *self._apiserver_arguments(1, settings.secure_port))
        # The others share the first's certificates and keys: on a resumed hub they are there
        # already (and so is everything in etcd), on a new one they start once the first made them.
        prepared = all((settings.apiserver_data_dir(1) / name).exists() for name in SHARED)
        replicas = await self._start_replicas() if prepared and not self.first_up else []
        sim = await self._spawn(
            SIM, "sim", "--data-dir", str(settings.data_dir / "sim"), "--config", str(settings.sim_config)
        )
        url = (await hub.wait_for_line(SERVING, settings.start_timeout)).group(1)
        _copy_private(settings.apiserver_kubeconfig(1), settings.hub_kubeconfig)
        await self._hub_ready(settings.hub_kubeconfig)
        self.state = replace(self.state, hub_url=url, secure_port=int(url.rsplit(":", 1)[1]))
        # A restart listens where the kubeconfigs handed out point, also when port 0 picked it.
        self._commands[APISERVER] = flotilla_command(
            *self._apiserver_arguments(1, self.state.secure_port or 0)
        )
        self.progress.step(f"API server ready on {url}")
        replicas = replicas or await self._start_replicas()
        if self.first_up:
            created = await install_failover_policies(settings.hub_kubeconfig)
            if created:
                self.progress.step(f"cluster failover on: ClusterTaintPolicies {', '.join(created)}")
        manager = await self._spawn(CONTROLLER_MANAGER, *self._manager_arguments())
        admin = (await sim.wait_for_line(SIM_SERVING, settings.start_timeout)).group(1)
        names = [member.name for member in settings.members]
        for name in names:
            _copy_private(settings.data_dir / "sim" / f"{name}.kubeconfig", settings.member_kubeconfig(name))
        self.progress.step(f"{len(names)} simulated member cluster(s) serving: {', '.join(names)}")
        await self._join()
        health = (await manager.wait_for_line(MANAGER_RUNNING, settings.start_timeout)).group(1)
        self.state = replace(
            self.state,
            endpoints={**self.state.endpoints, "controllerManagerHealth": health, "simAdmin": admin},
        )
        self._record()
        self.progress.step("controller manager running")
        await wait_until_ready(
            settings.hub_kubeconfig,
            names,
            settings.ready_timeout,
            on_ready=lambda name: self.progress.step(f"cluster {name} Ready"),
            on_waiting=lambda waiting: self.progress.note(
                "waiting for " + "; ".join(f"{name} ({why})" for name, why in waiting.items())
            ),
        )
        for replica in replicas:
            await self._replica_ready(replica)
        await self._start_dashboard()
        self._supervising = True
        self.on_ready(self.state)

    async def _start_dashboard(self) -> None:
        """The web dashboard on loopback, with a sign-in link for the local admin. Optional: one that
        cannot start is a note, and the hub is up without it."""
        settings = self.settings
        port = free_port() if port_in_use("127.0.0.1", DASHBOARD_PORT) else DASHBOARD_PORT
        address = f"127.0.0.1:{port}"
        kubeconfig = str(settings.hub_kubeconfig)
        self._commands[DASHBOARD] = flotilla_command(
            "dashboard", "--kubeconfig", kubeconfig, "--address", address, "--auto-sign-in"
        )
        child = await self._start_process(DASHBOARD)
        try:
            url = (await child.wait_for_line(DASHBOARD_SERVING, settings.start_timeout)).group(1)
            link = (await child.wait_for_line(DASHBOARD_SIGN_IN, settings.start_timeout)).group(1)
        except (ComponentExited, TimeoutError) as exc:
            await child.stop(2.0)
            del self.children[DASHBOARD]
            self._record()
            self.progress.note(f"the dashboard did not start: {exc}")
            return
        self.state = replace(
            self.state, endpoints={**self.state.endpoints, DASHBOARD: url, "dashboardSignIn": link}
        )
        self._record()
        assert self._group is not None
        self._group.create_task(self._watch(DASHBOARD))
        self.progress.step(f"dashboard serving on {url}")

    async def _start_etcd(self, cluster: EtcdCluster) -> None:
        """Start every member at once (each waits for the others to form the quorum) until all serve."""
        members = [
            await self._spawn_command(member.name, cluster.command(member, self.settings.etcd_program))
            for member in cluster.members
        ]
        await asyncio.gather(*(m.wait_for_line(ETCD_SERVING, self.settings.start_timeout) for m in members))
        environment = cluster.directory / "etcdctl.env"
        environment.write_text(cluster.etcdctl_environment())
        self.state = replace(self.state, endpoints={**self.state.endpoints, "etcd": cluster.client_urls})
        self._record()
        self.progress.step(f"etcd cluster of {len(members)} members serving on {cluster.client_urls}")

    async def _start_replicas(self) -> list[ChildProcess]:
        """Start API servers 2…N (their readiness is awaited later, with `_replica_ready`)."""
        settings = self.settings
        return [
            await self._spawn(apiserver_name(i), *self._apiserver_arguments(i, settings.replica_port(i)))
            for i in range(2, settings.apiservers + 1)
        ]

    def _apiserver_arguments(self, index: int, port: int) -> tuple[str, ...]:
        settings = self.settings
        arguments: tuple[str, ...] = (
            "apiserver",
            "--data-dir",
            str(settings.apiserver_data_dir(index)),
            "--secure-port",
            str(port),
            "--bind-address",
            settings.bind_address,
        )
        if settings.etcd is not None:
            arguments += settings.etcd.apiserver_arguments()
        return arguments

    def _manager_arguments(self) -> tuple[str, ...]:
        arguments: tuple[str, ...] = (
            "controller-manager",
            "--kubeconfig",
            str(self.settings.hub_kubeconfig),
            "--health-address",
            "127.0.0.1:0",
        )
        if self.settings.apiservers == 1:
            # `up` supervises the only manager of its hub (leftovers of a killed `up` are stopped
            # first), so there is nobody to elect against, and an election would make the manager
            # after a crash wait out the dead one's Lease before acting. With --ha the manager
            # runs as it would in production: a standby started beside it takes over.
            arguments += ("--leader-elect=false",)
        else:
            # The kubeconfig names the first API server; the manager moves to the others when it fails.
            arguments += ("--hub-endpoints", ",".join(self._replica_urls()))
        return arguments

    def _replica_urls(self) -> list[str]:
        """Where API servers 2…N serve (their ports are settled before they start)."""
        host = self.settings.bind_address
        return [
            f"https://{host}:{self.settings.replica_port(i)}" for i in range(2, self.settings.apiservers + 1)
        ]

    async def _spawn(self, name: str, *arguments: str) -> ChildProcess:
        """Start `flotilla <arguments>` as component `name`, watched until the run ends."""
        return await self._spawn_command(name, flotilla_command(*arguments))

    async def _spawn_command(self, name: str, command: tuple[str, ...]) -> ChildProcess:
        self._commands[name] = command
        child = await self._start_process(name)
        assert self._group is not None
        self._group.create_task(self._watch(name))
        return child

    async def _start_process(self, name: str) -> ChildProcess:
        index = self._replica_index(name)
        if index > 1:
            # Copied before every start, so a certificate renewed in DIR/hub reaches the others.
            first, replica = self.settings.apiserver_data_dir(1), self.settings.apiserver_data_dir(index)
            await asyncio.to_thread(share_hub_files, first, replica)
        child = await spawn(name, self._commands[name], self.settings.log_path(name))
        self.children[name] = child
        self._record()
        return child

    def _replica_index(self, name: str) -> int:
        """Which API server component `name` is (1 for `apiserver`), 0 for other components."""
        for index in range(1, self.settings.apiservers + 1):
            if name == apiserver_name(index):
                return index
        return 0

    async def _replica_ready(self, child: ChildProcess) -> None:
        """Wait until an API server after the first serves and is ready; remember its URL and port."""
        index = self._replica_index(child.name)
        url = (await child.wait_for_line(SERVING, self.settings.start_timeout)).group(1)
        await self._hub_ready(self.settings.apiserver_kubeconfig(index))
        port = int(url.rsplit(":", 1)[1])
        ports = list(self.state.replica_ports)
        ports[index - 2] = port
        self.state = replace(
            self.state, replica_ports=tuple(ports), endpoints={**self.state.endpoints, child.name: url}
        )
        self._commands[child.name] = flotilla_command(*self._apiserver_arguments(index, port))
        self._record()
        self.progress.step(f"API server {index} ready on {url}")

    async def _watch(self, name: str) -> None:
        """Wait for the component to exit: before Ready that ends the run, after it it is restarted."""
        while True:
            child = self.children[name]
            await child.process.wait()
            if not self._supervising:
                raise child.exited()
            await self._restart(child)

    # -- supervision ----------------------------------------------------------------------------

    async def _restart(self, child: ChildProcess) -> None:
        """Say that `child` exited and how, wait out its backoff, and start it again."""
        name = child.name
        exited = child.exited()
        history = self._restarts.setdefault(name, RestartHistory(self.settings.restarts))
        decision = history.crashed(started_at=child.started_at, now=time.monotonic())
        log_path = shown(exited.log_path, Path.cwd())
        echo = self.progress.echo
        echo(
            f"{name} exited with {describe_exit(exited.code)} (pid {child.pid}); restarting it in "
            f"{decision.delay:g}s. Last lines of {log_path}:"
        )
        echo("\n".join(f"  {line}" for line in exited.tail.splitlines()) or "  (empty)")
        if decision.crash_loop_began:
            policy = self.settings.restarts
            window = describe_window(policy.loop_window)
            echo(
                f"{name} crashed {decision.crashes_in_window} times in {window}; see {log_path} "
                f"(still restarting it, at most every {policy.max_delay:g}s)"
            )
        await asyncio.sleep(decision.delay)
        restarted = await self._start_process(name)
        try:
            await self._restarted(restarted)
        except ComponentExited:
            return  # it died again: the watcher reports it and backs off further
        except (TimeoutError, RuntimeError, OSError) as exc:
            # It runs; what depends on it could not be refreshed. Say so, and keep supervising.
            self.progress.note(f"{name} was started again (pid {restarted.pid}), but: {exc}")
            return
        echo(f"{self.progress.mark} {name} restarted (pid {restarted.pid})")

    async def _restarted(self, child: ChildProcess) -> None:
        """Wait until a restarted component serves again, and refresh what depends on where it serves."""
        settings = self.settings
        if child.name == APISERVER:
            await child.wait_for_line(SERVING, settings.start_timeout)
            _copy_private(settings.apiserver_kubeconfig(1), settings.hub_kubeconfig)
            await self._hub_ready(settings.hub_kubeconfig)
        elif self._replica_index(child.name) > 1:
            await self._replica_ready(child)
        elif is_etcd(child.name):
            await child.wait_for_line(ETCD_SERVING, settings.start_timeout)
        elif child.name == SIM:
            admin = (await child.wait_for_line(SIM_SERVING, settings.start_timeout)).group(1)
            for member in settings.members:
                _copy_private(
                    settings.data_dir / "sim" / f"{member.name}.kubeconfig",
                    settings.member_kubeconfig(member.name),
                )
            self.state = replace(self.state, endpoints={**self.state.endpoints, "simAdmin": admin})
            await self._join(announce=False)
        elif child.name == CONTROLLER_MANAGER:
            health = (await child.wait_for_line(MANAGER_RUNNING, settings.start_timeout)).group(1)
            self.state = replace(
                self.state, endpoints={**self.state.endpoints, "controllerManagerHealth": health}
            )
        self._record()

    async def _hub_ready(self, kubeconfig: Path) -> None:
        """Wait for the hub's /readyz (it serves before it is ready only for a moment, if at all)."""
        async with Client(load_kubeconfig(kubeconfig), timeout=5) as client:
            deadline = time.monotonic() + self.settings.start_timeout
            while True:
                try:
                    status, _ = await client.text("/readyz")
                except ClientError:
                    status = 0
                if status == 200:
                    return
                if time.monotonic() > deadline:
                    raise TimeoutError(
                        f"the hub's /readyz did not answer ok within {self.settings.start_timeout:.0f}s"
                    )
                await asyncio.sleep(0.05)

    async def _join(self, *, announce: bool = True) -> None:
        """Join the members (those already joined are kept; a moved endpoint is updated)."""
        settings = self.settings
        try:
            outcomes = await join_members(
                settings.hub_kubeconfig,
                list(settings.members),
                {m.name: settings.member_kubeconfig(m.name) for m in settings.members},
            )
        except (ClientError, RuntimeError, OSError, ValueError) as exc:
            raise RuntimeError(f"joining the members to the hub failed: {exc}") from exc
        joined = [o.name for o in outcomes if o.joined]
        kept = [o.name for o in outcomes if not o.joined]
        placements = {m.name: m for m in settings.members}
        if joined:
            described = ", ".join(f"{name} ({_where(placements[name])})" for name in joined)
            self.progress.step(f"joined {described}")
        if kept and announce:
            self.progress.step(f"already joined: {', '.join(kept)}")
        for outcome in outcomes:
            if outcome.endpoint_moved:
                self.progress.note(f"{outcome.name}: its API endpoint moved; the Cluster was updated")

    # -- stopping -------------------------------------------------------------------------------

    async def _stop_children(self) -> None:
        """Stop every child, clients before servers, and record that nothing runs any more."""
        grace = self.settings.grace
        for batch in stop_order(self.children):
            await asyncio.gather(*(self._stop_one(self.children[name], grace) for name in batch))
            self.stopped += batch
        self.children = {}
        self.state = replace(self.state, up_pid=None, components={})
        self._record()

    async def _stop_one(self, child: ChildProcess, grace: float) -> None:
        stopping = asyncio.create_task(child.stop(grace))
        hurry = asyncio.create_task(self._hurry.wait())
        await asyncio.wait({stopping, hurry}, return_when=asyncio.FIRST_COMPLETED)
        if not stopping.done():
            await child.stop(0)  # asked twice: SIGKILL now
            await stopping
        hurry.cancel()

    def _record(self) -> None:
        self.state = replace(self.state, components={name: c.pid for name, c in self.children.items()})
        write_state(self.settings.data_dir, self.state)


def _where(member: MemberPlacement) -> str:
    zones = ",".join(member.zones)
    return f"{member.region}/{zones}" if zones else member.region or "no region"


def _copy_private(source: Path, target: Path) -> None:
    """Copy a kubeconfig readable only by its owner (it holds a client key), replacing atomically."""
    target.parent.mkdir(parents=True, exist_ok=True)
    temporary = target.with_name(f".{target.name}.tmp")
    temporary.write_bytes(source.read_bytes())
    temporary.chmod(0o600)
    temporary.replace(target)


def _flatten(group: BaseExceptionGroup[BaseException]) -> list[BaseException]:
    found: list[BaseException] = []
    for exc in group.exceptions:
        found.extend(_flatten(exc) if isinstance(exc, BaseExceptionGroup) else [exc])
    return found


__all__ = ["ComponentExited", "LocalHub", "Progress", "StopRequested", "UpSettings"]
