"""`flotilla up` / `flotilla down`: a local hub with simulated member clusters, in one command.

`up` prepares the data dir — takes its lock, stops what a killed predecessor left running, settles
the members (`DIR/sim.yaml`), the hub's port and, with `--ha`, the etcd cluster (its ports and its
certificates, `DIR/etcd/pki`) — then hands over to `LocalHub`, which starts etcd, the API servers,
the sim and the controller manager, joins the members and supervises them in the foreground
(restarting one that dies). `down` stops a running `up` from another terminal (or the
leftovers of one that was killed) through the pids in `DIR/up.json`. The pieces live in
`localhub/`; this module is the command line: options, messages, exit codes.
"""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:
    from flotilla.cli.localhub.etcdcluster import EtcdCluster
    from flotilla.cli.localhub.members import MemberPlacement
    from flotilla.cli.localhub.state import UpState

DEFAULT_DATA_DIR = Path(".flotilla")
DEFAULT_MEMBERS = 3
DEFAULT_SECURE_PORT = 6443
DEFAULT_GRACE = 10.0


@click.command()
@click.option(
    "--data-dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=DEFAULT_DATA_DIR,
    show_default=True,
    help="Where the hub, the members, their kubeconfigs, logs and up.json live.",
)
@click.option(
    "--members",
    type=click.IntRange(1, 100),
    default=None,
    help="Run member1…memberN over two regions "
    f"(default: the previous run's members, else {DEFAULT_MEMBERS}).",
)
@click.option(
    "--config",
    "config_file",
    type=click.Path(dir_okay=False, exists=True, path_type=Path),
    default=None,
    help="YAML listing the members: name, region, zone, provider, nodes, labels (see Examples).",
)
@click.option(
    "--secure-port",
    type=click.IntRange(0, 65535),
    default=None,
    help=f"The hub's HTTPS port (default: the previous run's, else {DEFAULT_SECURE_PORT}); "
    "0 picks a free one.",
)
@click.option(
    "--timeout",
    type=click.FloatRange(min=1),
    default=120.0,
    show_default=True,
    help="Seconds to wait for every member cluster to be Ready before giving up.",
)
@click.option(
    "--ha",
    is_flag=True,
    help="High availability on this machine: --etcd-members 3 --apiservers 2.",
)
@click.option(
    "--etcd-members",
    type=click.IntRange(1, 7),
    default=None,
    help="Keep the hub's store in an etcd cluster of N members on loopback (1, 3, 5 or 7; TLS for "
    "clients and peers) instead of SQLite (default: the previous run's, else none).",
)
@click.option(
    "--apiservers",
    type=click.IntRange(1, 5),
    default=None,
    help="API server processes serving the hub, each on its own port (more than one needs etcd; "
    "default: the previous run's, else 1).",
)
def up(
    data_dir: Path,
    members: int | None,
    config_file: Path | None,
    secure_port: int | None,
    timeout: float,
    ha: bool,
    etcd_members: int | None,
    apiservers: int | None,
) -> None:
    """Run a hub with simulated member clusters here, in the foreground, until Ctrl-C.

    Starts the API server, the controller manager and the simulated members as child processes
    (logs in DATA_DIR/logs), joins the members with region and zone labels, waits until every one
    is Ready, writes DATA_DIR/hub.kubeconfig and DATA_DIR/members/NAME.kubeconfig, and supervises:
    if a component dies, `up` says which, with the end of its log, and starts it again (after 1s,
    doubling to 30s while it keeps crashing) while the others keep running. Running `up` again
    reuses the data dir: same port, members already joined are kept.

    With --ha the store is an etcd cluster of three members (the `etcd` binary of Debian's
    etcd-server package; data in DATA_DIR/etcd, certificates in DATA_DIR/etcd/pki), served by two
    API servers (DATA_DIR/hub and DATA_DIR/hub-2, sharing certificates and encryption keys); the
    controller manager elects a leader. A later `up` on the same data dir resumes that cluster.

    \b
    Examples:
      flotilla up                                  # hub on https://127.0.0.1:6443, member1..member3
      flotilla up --members 5 --secure-port 0      # five members, any free port
      flotilla up --ha                             # 3 etcd members, 2 API servers, leader election
      flotilla up --config members.yaml            # members described in YAML:
        # members:
        # - {name: sz, region: cn-south, zone: cn-south-1a, nodes: 3, labels: {tier: gold}}
        # - {name: gz, region: cn-north, zone: cn-north-1a}
      export KUBECONFIG=$PWD/.flotilla/hub.kubeconfig; kubectl get clusters
    """
    from flotilla.cli.localhub.processes import port_in_use
    from flotilla.cli.localhub.state import StateError, UpLock, UpState, read_state, write_state
    from flotilla.cli.localhub.supervisor import LocalHub, Progress, UpSettings
    from flotilla.runtime.privatefiles import private_directory

    if members is not None and config_file is not None:
        raise click.UsageError("give either --members N or --config FILE, not both")
    data_dir = data_dir.resolve()
    private_directory(data_dir)  # the hub's store and keys, member stores, admin kubeconfigs
    lock = UpLock(data_dir)
    if not lock.acquire():
        raise click.ClickException(_already_running(data_dir))
    try:
        previous = read_state(data_dir)
    except StateError as exc:
        lock.release()
        raise click.ClickException(str(exc)) from exc
    if previous is not None:
        _stop_leftovers(data_dir, previous.components)
    # From here on up.json names this process, so `flotilla down` can stop it at any moment.
    previous = replace(previous or UpState(), up_pid=os.getpid(), components={})
    write_state(data_dir, previous)
    try:
        etcd_count, apiserver_count = _settle_topology(data_dir, previous, ha, etcd_members, apiservers)
        etcd, etcd_program = (None, "") if not etcd_count else _settle_etcd(data_dir, previous, etcd_count)
        placements = _settle_members(data_dir, members, config_file)
        _warn_about_dropped_members(data_dir, previous.members, placements)
        port = secure_port
        if port is None:
            port = previous.secure_port or DEFAULT_SECURE_PORT
        if port and port_in_use("127.0.0.1", port):
            raise click.ClickException(
                f"port {port} on 127.0.0.1 is already in use by another process; run "
                "`flotilla up --secure-port 0` to pick a free port (or choose one with --secure-port N)"
            )
        progress = Progress(click.echo, mark=_mark())
        click.echo(f"Starting Flotilla in {_shown(data_dir)} (logs: {_shown(data_dir / 'logs')}/)")
        settings = UpSettings(
            data_dir,
            tuple(placements),
            secure_port=port,
            ready_timeout=timeout,
            apiservers=apiserver_count,
            replica_ports=_replica_ports(previous, port, apiserver_count),
            etcd=etcd,
        )
        if etcd is not None:
            settings = replace(settings, etcd_program=etcd_program)

        def on_ready(state: UpState) -> None:
            _write_example(data_dir, [p.name for p in placements])
            for line in _summary(data_dir, [p.name for p in placements], state, progress.elapsed):
                click.echo(line)

        hub = LocalHub(settings, previous, progress, on_ready)
        failures = asyncio.run(hub.run())
    finally:
        state = read_state(data_dir)
        if state is not None and state.up_pid == os.getpid():
            write_state(data_dir, replace(state, up_pid=None, components={}))
        lock.release()
    if failures:
        _report(failures)
        raise click.exceptions.Exit(1)
    click.echo(f"{_mark()} stopped: {', '.join(hub.stopped) or 'nothing was running yet'}")


def _report(failures: list[BaseException]) -> None:
    """Say what ended the run: a component that died (with the end of its log), or another failure."""
    from flotilla.cli.localhub.processes import ComponentExited
    from flotilla.cli.localhub.state import is_etcd

    for failure in failures:
        if isinstance(failure, ComponentExited):
            click.echo(f"Error: {failure} — last lines of {_shown(failure.log_path)}:", err=True)
            click.echo(_indent(failure.tail) or "  (empty)", err=True)
            taken = "address already in use" in failure.tail.lower()
            if failure.name == "apiserver" and taken:
                click.echo("Hint: the port is taken; run `flotilla up --secure-port 0`.", err=True)
            elif is_etcd(failure.name) and taken:
                click.echo(
                    f"Hint: another process took a port of {failure.name}; the etcd cluster's membership "
                    "names its ports (up.json, under etcd), so stop that process and run `up` again.",
                    err=True,
                )
        else:
            click.echo(f"Error: {failure}", err=True)
    click.echo("Stopped every component.", err=True)


def _already_running(data_dir: Path) -> str:
    from flotilla.cli.localhub.state import StateError, read_state

    pid = ""
    try:
        state = read_state(data_dir)
        if state is not None and state.up_pid is not None:
            pid = f" (pid {state.up_pid})"
    except StateError:
        pass
    return (
        f"flotilla up is already running for {_shown(data_dir)}{pid}; "
        f"stop it with Ctrl-C there or `flotilla down --data-dir {_shown(data_dir)}`"
    )


def _stop_leftovers(data_dir: Path, recorded: dict[str, int]) -> None:
    """Stop the components of an earlier `up` that was killed before it could stop them itself."""
    from flotilla.cli.localhub.processes import belongs_to, terminate
    from flotilla.cli.localhub.state import stop_order

    leftovers = {name: pid for name, pid in recorded.items() if belongs_to(pid, data_dir)}
    if not leftovers:
        return
    listed = ", ".join(f"{name} (pid {pid})" for name, pid in leftovers.items())
    click.echo(f"Stopping what an earlier `flotilla up` left running: {listed}")
    try:
        for batch in stop_order(leftovers):  # clients before servers, as `up` stops them
            asyncio.run(terminate({name: leftovers[name] for name in batch}, DEFAULT_GRACE))
    except RuntimeError as exc:
        raise click.ClickException(str(exc)) from exc


def _settle_members(data_dir: Path, count: int | None, config_file: Path | None) -> list[MemberPlacement]:
    """Write DATA_DIR/sim.yaml for this run (or keep the previous one) and read the members back from it."""
    import yaml

    from flotilla.cli.localhub.members import (
        ConfigError,
        default_sim_config,
        placement_of,
        sim_config_from_document,
    )
    from flotilla.sim.config import clusters_from_file
    from flotilla.sim.spec import Timing

    target = data_dir / "sim.yaml"
    try:
        if config_file is not None:
            try:
                document = yaml.safe_load(config_file.read_text())
            except (OSError, yaml.YAMLError) as exc:
                raise ConfigError(f"cannot read {config_file}: {exc}") from exc
            config: dict[str, Any] | None = sim_config_from_document(document, str(config_file))
        elif count is not None or not target.exists():
            config = default_sim_config(count or DEFAULT_MEMBERS)
        else:
            config = None  # reuse the members of the previous run
        candidate = target if config is None else target.with_name(".sim.yaml.tmp")
        if config is not None:
            candidate.write_text(yaml.safe_dump(config, sort_keys=False))
        specs = clusters_from_file(candidate, Timing())
    except ConfigError as exc:
        raise click.UsageError(str(exc)) from exc
    if candidate != target:
        candidate.replace(target)
    return [placement_of(spec) for spec in specs]


def _warn_about_dropped_members(
    data_dir: Path, previous: tuple[str, ...], placements: list[MemberPlacement]
) -> None:
    current = {p.name for p in placements}
    for name in previous:
        if name not in current:
            click.echo(
                f"Note: {name} was joined by an earlier `flotilla up` and is not served now; "
                f"`flotilla unjoin {name} --kubeconfig {_shown(data_dir / 'hub.kubeconfig')} --force` "
                "removes it from the hub."
            )


def _write_example(data_dir: Path, members: list[str]) -> None:
    from flotilla.cli.localhub.guide import NGINX_EXAMPLE, nginx_example

    path = data_dir / NGINX_EXAMPLE
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(nginx_example(members))


def _summary(data_dir: Path, members: list[str], state: UpState, elapsed: float) -> list[str]:
    from flotilla.cli.localhub.guide import summary
    from flotilla.cli.localhub.state import apiserver_name

    replicas = [state.endpoints.get(apiserver_name(i + 2), "") for i in range(len(state.replica_ports))]
    return summary(
        data_dir=data_dir,
        cwd=Path.cwd(),
        members=members,
        hub_url=state.hub_url,
        elapsed=elapsed,
        apiserver_urls=[state.hub_url, *replicas] if replicas else (),
        etcd_endpoints=state.endpoints.get("etcd", ""),
        dashboard_sign_in=state.endpoints.get("dashboardSignIn", ""),
    )


def _settle_topology(
    data_dir: Path, previous: UpState, ha: bool, etcd_members: int | None, apiservers: int | None
) -> tuple[int, int]:
    """How many etcd members (0: SQLite) and API servers this run has: the flags, else the last run's."""
    from flotilla.cli.localhub.topology import PreviousRun, TopologyError, settle_topology

    store = data_dir / "hub" / "store.db"
    before = PreviousRun(
        etcd_members=len(previous.etcd_ports),
        apiservers=1 + len(previous.replica_ports),
        etcd_directory=_shown(data_dir / "etcd"),
        data_dir=_shown(data_dir),
        sqlite_store=_shown(store) if store.exists() else None,
    )
    try:
        topology = settle_topology(before, ha=ha, etcd_members=etcd_members, apiservers=apiservers)
    except TopologyError as exc:
        raise click.UsageError(str(exc)) from exc
    return topology.etcd_members, topology.apiservers


def _settle_etcd(data_dir: Path, previous: UpState, count: int) -> tuple[EtcdCluster, str]:
    """The etcd cluster of this run (the previous run's ports) with its certificates, and the binary."""
    from flotilla.apiserver.pki.etcd import ensure_etcd_pki
    from flotilla.cli.localhub.etcdcluster import (
        INSTALL_HINT,
        EtcdCluster,
        EtcdMember,
        find_etcd,
        member_names,
    )
    from flotilla.cli.localhub.processes import free_port, port_in_use

    program = find_etcd()
    if program is None:
        raise click.ClickException(INSTALL_HINT)
    members = []
    taken: set[int] = set()
    for name in member_names(count):
        ports = previous.etcd_ports.get(name)
        if ports is None:
            ports = (_fresh_port(free_port, taken), _fresh_port(free_port, taken))
        else:
            for port in ports:
                if port_in_use("127.0.0.1", port):
                    raise click.ClickException(
                        f"port {port} of etcd member {name} on 127.0.0.1 is in use by another process; the "
                        "cluster's membership names it, so the member cannot move: stop that process"
                    )
        taken.update(ports)
        members.append(EtcdMember(name, *ports))
    directory = data_dir / "etcd"
    directory.mkdir(mode=0o700, exist_ok=True)
    directory.chmod(0o700)  # the members' data: every object of the hub
    certificates = ensure_etcd_pki(directory / "pki", [member.name for member in members])
    return EtcdCluster(tuple(members), directory, certificates), program


def _fresh_port(pick: Callable[[], int], taken: set[int]) -> int:
    """A free port not handed out yet in this run (the kernel may offer the same one twice)."""
    while True:
        port = pick()
        if port not in taken:
            taken.add(port)
            return port


def _replica_ports(previous: UpState, first_port: int, apiservers: int) -> tuple[int, ...]:
    """The ports of API servers 2…N: the previous run's, else the ports after the first, else free ones.

    They are settled before anything starts, so the controller manager can be told every API
    server (`--hub-endpoints`) when it starts, before the others serve.
    """
    from flotilla.cli.localhub.processes import free_port, port_in_use

    ports = list(previous.replica_ports[: apiservers - 1])
    for index in range(len(ports) + 2, apiservers + 1):
        candidate = first_port + index - 1 if first_port else 0
        if not candidate or candidate in ports or port_in_use("127.0.0.1", candidate):
            candidate = _fresh_port(free_port, {first_port, *ports})
        ports.append(candidate)
    return tuple(ports)


def _shown(path: Path) -> str:
    from flotilla.cli.localhub.guide import shown

    return shown(path, Path.cwd())


def _indent(text: str) -> str:
    return "\n".join(f"  {line}" for line in text.splitlines())


def _mark() -> str:
    """A check mark where the terminal can print one, `OK` where it cannot."""
    try:
        "✓".encode(sys.stdout.encoding or "ascii")
    except (UnicodeEncodeError, LookupError):
        return "OK"
    return "✓"


@click.command()
@click.option(
    "--data-dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=DEFAULT_DATA_DIR,
    show_default=True,
    help="The data dir `flotilla up` runs in.",
)
@click.option(
    "--grace",
    type=click.FloatRange(min=0),
    default=DEFAULT_GRACE,
    show_default=True,
    help="Seconds each process gets to exit after SIGTERM before it is killed.",
)
def down(data_dir: Path, grace: float) -> None:
    """Stop what `flotilla up` started in DATA_DIR, from another terminal; the data is kept.

    Stops the running `up` (which stops its components in order), then any component still
    recorded in DATA_DIR/up.json — for instance those of an `up` that was killed. Processes get
    SIGTERM, then SIGKILL after --grace seconds. The next `flotilla up` starts from the same state.

    \b
    Examples:
      flotilla down                              # the default data dir, .flotilla
      flotilla down --data-dir /tmp/demo --grace 2
    """
    from flotilla.cli.localhub.state import StateError, read_state
    from flotilla.cli.localhub.stopping import stop_up

    data_dir = data_dir.resolve()
    try:
        state = read_state(data_dir)
    except StateError as exc:
        raise click.ClickException(str(exc)) from exc
    if state is None:
        click.echo(f"Nothing to stop: no `flotilla up` has run in {_shown(data_dir)}.")
        return
    if not state.pids():
        click.echo(f"Nothing is running in {_shown(data_dir)}.")
        return
    try:
        stopped = asyncio.run(stop_up(data_dir, state, grace, say=click.echo))
    except RuntimeError as exc:
        raise click.ClickException(str(exc)) from exc
    if stopped:
        click.echo(f"{_mark()} stopped: {', '.join(stopped)}")
    else:
        click.echo(f"Nothing was running in {_shown(data_dir)} (the recorded processes had already exited).")
