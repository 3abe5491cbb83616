"""`flotilla apiserver --workers N`: N API server processes on one etcd, one port, one data directory.

One Python process serves requests on one core. To use the others on one machine, the parent
started by `flotilla apiserver --workers N` supervises N worker processes, each a full API server
(its own watch cache fed by etcd's watch), all listening on the same address and port with
SO_REUSEPORT: the kernel hands each new connection to one of them. They share the store only
through etcd — several processes cannot share the SQLite file, so the command refuses `--workers`
without `--etcd-servers`.

How the parent does it:

- It prepares the data directory once, before any worker starts (`prepare_data_dir`: PKI,
  service-account key, encryption keys), so workers only read what it holds and never race to
  create it.
- It holds the port: a socket bound with SO_REUSEPORT that never listens. `--secure-port 0` picks
  the port here; the kernel gives connections only to listening sockets, so the holder gets none,
  but no other program can take the port while a worker restarts.
- Workers are spawned (a fresh interpreter each: nothing of the parent's threads or sockets is
  inherited). Worker i writes its own audit log, `audit-<i>.log` beside where the one audit log
  would go: two processes never rotate one file. A worker tells the parent over a pipe once it
  serves; when all do, the parent writes `admin.kubeconfig` (the shared URL) and prints the ready
  line.
- SIGTERM or SIGINT is forwarded to every worker as SIGTERM; the parent waits for them (SIGKILL
  after `Supervision.stop_timeout`) and exits 0 when each stopped cleanly.
- A worker that dies otherwise is restarted after a pause (doubling from `first_backoff` to
  `longest_backoff`, back to the first once a run lasted `stable_after`), logged as
  `apiserver.worker_exited` and `apiserver.worker_restarting`. A worker failing before it first
  serves stops the whole pool at start (the others have the same configuration); a restarted
  worker dying before it serves `max_start_failures` times in a row does too. Either way the
  command exits 1.
- A worker whose parent is gone (kill -9 of the parent) stops itself within a second.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import signal
import socket
import sys
import time
from collections.abc import Callable, MutableMapping
from dataclasses import dataclass, replace
from multiprocessing.connection import Connection, wait
from multiprocessing.process import BaseProcess
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click
import structlog

if TYPE_CHECKING:
    from flotilla.apiserver.server import APIServer, DataDirectory, ServerSettings

log = structlog.get_logger("flotilla.cli.components.apiserverworkers")


@dataclass(frozen=True, slots=True)
class Supervision:
    """How the parent restarts and stops its workers."""

    first_backoff: float = 0.5
    """Seconds before restarting a worker that died after a stable run."""
    longest_backoff: float = 30.0
    """The pause doubles with each quick death in a row, up to this."""
    stable_after: float = 60.0
    """A run at least this long resets the pause to `first_backoff`."""
    max_start_failures: int = 5
    """Restarts in a row dying before they serve, after which the parent gives up (exit 1)."""
    stop_timeout: float = 30.0
    """Seconds a worker may take to stop after SIGTERM before it is killed."""


@dataclass
class _Worker:
    """One worker slot: its process of the moment and what the restart policy counts."""

    index: int
    process: BaseProcess | None = None
    announcements: Connection | None = None
    """The parent's end of the pipe the worker sends its pid on once it serves."""
    started_at: float = 0.0
    serving: bool = False
    quick_deaths: int = 0
    start_failures: int = 0
    restart_at: float | None = None


def worker_audit_path(audit_path: Path, index: int) -> Path:
    """Worker `index`'s own audit log beside `audit_path`: `audit.log` → `audit-<index>.log`."""
    return audit_path.with_name(f"{audit_path.stem}-{index}{audit_path.suffix}")


class WorkerPool:
    """The parent of `--workers N`: prepares, starts, restarts and stops N API server processes."""

    def __init__(
        self, settings: ServerSettings, workers: int, log_level: str, supervision: Supervision | None = None
    ) -> None:
        self.settings = settings
        self.log_level = log_level
        self.supervision = supervision or Supervision()
        self.workers = [_Worker(index) for index in range(1, workers + 1)]
        self._spawn = multiprocessing.get_context("spawn")
        self._port = 0
        self._announced = False

    def run(self, ready: Callable[[str], str]) -> int:
        """Serve until SIGTERM or SIGINT; `ready(url)` is printed once every worker serves. Returns
        the exit status (0: every worker stopped cleanly); raises `ClickException` when workers
        cannot start."""
        from flotilla.apiserver.server import prepare_data_dir, server_url

        try:
            prepared = prepare_data_dir(self.settings)
            holder = hold_port(self.settings.bind_address, self.settings.secure_port)
        except (OSError, ValueError) as exc:
            raise click.ClickException(f"cannot start: {exc}") from exc
        self._port = holder.getsockname()[1]
        url = server_url(self.settings.bind_address, self._port)
        wakeup, signals = socket.socketpair()
        previous = _forward_signals_to(signals)
        failure = ""
        try:
            log.info("apiserver.workers_starting", workers=len(self.workers), url=url)
            for worker in self.workers:
                self._start(worker)
            failure = self._supervise(wakeup, on_all_serving=lambda: self._announce(url, ready, prepared))
        finally:
            code = self._stop_all()  # whatever ended supervision, no worker is left running
            _restore_signals(previous)
            wakeup.close()
            signals.close()
            holder.close()
        if failure:
            raise click.ClickException(failure)
        return code

    def _announce(self, url: str, ready: Callable[[str], str], prepared: DataDirectory) -> None:
        from flotilla.apiserver.pki.directory import write_admin_kubeconfig

        kubeconfig = self.settings.data_dir / "admin.kubeconfig"
        write_admin_kubeconfig(prepared.pki, kubeconfig, url, cluster=self.settings.cluster_name)
        click.echo(ready(url), err=True)

    def _start(self, worker: _Worker) -> None:
        audit_path = self.settings.audit.path or self.settings.data_dir / "audit.log"
        settings = replace(
            self.settings,
            secure_port=self._port,
            reuse_port=True,
            admin_kubeconfig=False,
            audit=replace(self.settings.audit, path=worker_audit_path(audit_path, worker.index)),
        )
        announcements, announcer = self._spawn.Pipe(duplex=False)
        process = self._spawn.Process(
            target=serve_worker,
            args=(settings, worker.index, self.log_level, announcer),
            name=f"flotilla-apiserver-worker-{worker.index}",
        )
        process.start()
        announcer.close()  # the worker holds the only writing end: its death reads as end of file
        worker.process, worker.announcements = process, announcements
        worker.started_at, worker.serving, worker.restart_at = time.monotonic(), False, None
        log.info("apiserver.worker_started", worker=worker.index, pid=process.pid)

    def _supervise(self, wakeup: socket.socket, on_all_serving: Callable[[], None]) -> str:
        """Wait for announcements, deaths and signals until a stop signal ("") or a failure (its reason)."""
        while True:
            waiting: list[Any] = [wakeup]
            for worker in self.workers:
                if worker.process is not None:
                    waiting.append(worker.process.sentinel)
                if worker.announcements is not None:
                    waiting.append(worker.announcements)
            pending = [w.restart_at for w in self.workers if w.restart_at is not None]
            timeout = max(0.0, min(pending) - time.monotonic()) if pending else None
            woken = wait(waiting, timeout)
            if wakeup in woken and _stop_requested(wakeup):
                return ""
            for worker in self.workers:
                if worker.announcements is not None and worker.announcements in woken:
                    self._receive_announcement(worker)
                if worker.process is not None and worker.process.sentinel in woken:
                    failure = self._on_death(worker)
                    if failure:
                        return failure
                if worker.restart_at is not None and worker.restart_at <= time.monotonic():
                    self._start(worker)
            if not self._announced and all(worker.serving for worker in self.workers):
                self._announced = True
                on_all_serving()

    def _receive_announcement(self, worker: _Worker) -> None:
        assert worker.announcements is not None
        try:
            pid = worker.announcements.recv()
        except EOFError:  # died before serving: its sentinel says so too
            pid = None
        worker.announcements.close()
        worker.announcements = None
        if pid is not None:
            worker.serving, worker.start_failures = True, 0
            log.info("apiserver.worker_serving", worker=worker.index, pid=pid)

    def _on_death(self, worker: _Worker) -> str:
        """Schedule the restart of a worker that died; the reason to give up, if it is time to."""
        assert worker.process is not None
        process, worker.process = worker.process, None
        process.join()
        if worker.announcements is not None and worker.announcements.poll():
            self._receive_announcement(worker)  # it served, then died at once
        if worker.announcements is not None:
            worker.announcements.close()
            worker.announcements = None
        uptime = time.monotonic() - worker.started_at
        log.warning(
            "apiserver.worker_exited",
            worker=worker.index,
            pid=process.pid,
            code=process.exitcode,
            serving=worker.serving,
            uptime=round(uptime, 1),
        )
        if not worker.serving:
            if not self._announced:
                return f"cannot start: worker {worker.index} exited with {process.exitcode} before serving"
            worker.start_failures += 1
            if worker.start_failures >= self.supervision.max_start_failures:
                return f"worker {worker.index} died {worker.start_failures} times in a row before serving"
        worker.quick_deaths = worker.quick_deaths + 1 if uptime < self.supervision.stable_after else 1
        delay = min(
            self.supervision.first_backoff * 2 ** (worker.quick_deaths - 1), self.supervision.longest_backoff
        )
        worker.restart_at = time.monotonic() + delay
        log.warning("apiserver.worker_restarting", worker=worker.index, delay=delay)
        return ""

    def _stop_all(self) -> int:
        """SIGTERM every worker, wait (SIGKILL past the timeout); 0 if each stopped cleanly."""
        running = [w.process for w in self.workers if w.process is not None]
        log.info("apiserver.workers_stopping", workers=len(running))
        for process in running:
            if process.pid is not None:
                os.kill(process.pid, signal.SIGTERM)
        deadline = time.monotonic() + self.supervision.stop_timeout
        code = 0
        for process in running:
            process.join(max(0.0, deadline - time.monotonic()))
            if process.exitcode is None:
                log.warning("apiserver.worker_killed", pid=process.pid, after=self.supervision.stop_timeout)
                process.kill()
                process.join()
            if process.exitcode not in (0, -signal.SIGTERM):
                code = 1
        for worker in self.workers:
            worker.process = None
            if worker.announcements is not None:
                worker.announcements.close()
                worker.announcements = None
        log.info("apiserver.workers_stopped", code=code)
        return code


def hold_port(bind_address: str, port: int) -> socket.socket:
    """Bind (never listen) a SO_REUSEPORT socket to the address: it reserves the port (a free one for
    port 0) for the workers, who join it with SO_REUSEPORT, and keeps everyone else off it."""
    family, kind, proto, _, address = socket.getaddrinfo(
        bind_address or None, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
    )[0]
    holder = socket.socket(family, kind, proto)
    try:
        holder.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        if family == socket.AF_INET6:
            holder.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)  # as asyncio's listeners
        holder.bind(address)
    except OSError as exc:
        holder.close()
        raise OSError(f"cannot listen on {bind_address}:{port}: {exc.strerror}") from exc
    return holder


def _forward_signals_to(signals: socket.socket) -> dict[int, Any]:
    """Make SIGTERM and SIGINT wake the supervision loop (their numbers are written to `signals`)."""
    signals.setblocking(False)
    previous: dict[int, Any] = {sig: signal.signal(sig, _ignore) for sig in (signal.SIGTERM, signal.SIGINT)}
    previous[0] = signal.set_wakeup_fd(signals.fileno(), warn_on_full_buffer=False)
    return previous


def _restore_signals(previous: dict[int, Any]) -> None:
    signal.set_wakeup_fd(previous.pop(0))
    for sig, handler in previous.items():
        signal.signal(sig, handler)


def _ignore(signum: int, frame: object) -> None:
    """The Python-level handler: the wakeup file descriptor carries the signal to the loop."""


def _stop_requested(wakeup: socket.socket) -> bool:
    received = wakeup.recv(64)
    return any(sig in received for sig in (signal.SIGTERM, signal.SIGINT))


def serve_worker(settings: ServerSettings, index: int, log_level: str, announcer: Connection) -> None:
    """A worker process: one full API server on the shared port until SIGTERM or its parent is gone."""
    from flotilla.apiserver.server import APIServer
    from flotilla.cli.components.foreground import run_until_signalled
    from flotilla.cli.components.logging import configure_logging

    configure_logging(log_level)
    structlog.configure(processors=[_tag_worker(index), *structlog.get_config()["processors"]])
    server = APIServer(settings)

    def announce() -> str:
        announcer.send(os.getpid())
        announcer.close()
        return f"flotilla apiserver: worker {index} (pid {os.getpid()}) ready on {server.url}"

    try:
        run_until_signalled(_WatchedByParent(server), announce)
    except click.ClickException as exc:
        exc.show()
        sys.exit(exc.exit_code)


def _tag_worker(index: int) -> structlog.typing.Processor:
    """A structlog processor naming the worker on each of its log lines."""

    def tag(logger: Any, method: str, event: MutableMapping[str, Any]) -> MutableMapping[str, Any]:
        event.setdefault("worker", index)
        return event

    return tag


class _WatchedByParent:
    """A worker's API server that stops itself (SIGTERM to its own process) once its parent is gone.

    multiprocessing's parent sentinel reads end of file when the parent process ends, however it ends.
    """

    def __init__(self, server: APIServer) -> None:
        self.server = server
        parent = multiprocessing.parent_process()
        self._sentinel = parent.sentinel if parent is not None else None

    async def start(self) -> None:
        await self.server.start()
        if self._sentinel is not None:
            asyncio.get_running_loop().add_reader(self._sentinel, self._parent_gone)

    def _parent_gone(self) -> None:
        if self._sentinel is not None:
            asyncio.get_running_loop().remove_reader(self._sentinel)
        log.warning("apiserver.parent_gone")
        os.kill(os.getpid(), signal.SIGTERM)

    async def stop(self) -> None:
        if self._sentinel is not None:
            asyncio.get_running_loop().remove_reader(self._sentinel)
        await self.server.stop()
