"""Child processes of `flotilla up`: start them, read their logs, stop them, and find leftovers.

Each component runs as `python -m flotilla <component> …` (an etcd member as the system's `etcd`)
in a session of its own
(`start_new_session`), with stdout and stderr appended to `DIR/logs/<component>.log`. Its own
session keeps a Ctrl-C in the terminal away from it: only `up` gets the signal and stops the
components in order (clients before servers), each with SIGTERM and, after a grace period, SIGKILL.
A process that `up` did not start (a leftover of an `up` killed with SIGKILL, stopped by
`flotilla down` or the next `up`) is stopped the same way through its pid, after checking that the
pid still belongs to a component of this data dir — pids are reused, and killing a stranger's
process is worse than leaving ours behind.

Readiness is read from the logs: every component prints one line when it serves (`serving on`,
`running`), and `up` polls the part of the log written since it started the process.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

POLL_SECONDS = 0.05
"""How often logs and pids are looked at while waiting: fast enough that nobody waits on a poll."""

LOG_TAIL_LINES = 20


class ComponentExited(Exception):
    """A component stopped while `up` needed it running."""

    def __init__(self, name: str, code: int, log_path: Path, tail: str) -> None:
        super().__init__(f"{name} exited with {describe_exit(code)}")
        self.name = name
        self.code = code
        self.log_path = log_path
        self.tail = tail


def describe_exit(code: int) -> str:
    """An exit status as a person reads it: `code 1`, or `signal SIGKILL` for a negative status."""
    if code < 0:
        try:
            return f"signal {signal.Signals(-code).name}"
        except ValueError:
            return f"signal {-code}"
    return f"code {code}"


def log_tail(text: str, lines: int = LOG_TAIL_LINES) -> str:
    """The last `lines` non-empty lines of a log, to show beside a failure."""
    kept = [line for line in text.splitlines() if line.strip()]
    return "\n".join(kept[-lines:])


@dataclass
class ChildProcess:
    """One component started by this `up`, with the part of its log that belongs to this run."""

    name: str
    process: asyncio.subprocess.Process
    log_path: Path
    log_offset: int
    started_at: float = field(default_factory=time.monotonic)
    """When it was started (monotonic seconds): how long it ran decides its next restart's delay."""

    @property
    def pid(self) -> int:
        return self.process.pid

    @property
    def running(self) -> bool:
        return self.process.returncode is None

    def log(self) -> str:
        """What the component wrote since this `up` started it."""
        try:
            with self.log_path.open("rb") as log:
                log.seek(self.log_offset)
                return log.read().decode(errors="replace")
        except OSError:
            return ""

    def exited(self) -> ComponentExited:
        code = self.process.returncode
        return ComponentExited(self.name, 0 if code is None else code, self.log_path, log_tail(self.log()))

    async def wait_for_line(self, pattern: re.Pattern[str], timeout: float) -> re.Match[str]:
        """The first match of `pattern` in this run's log; ComponentExited if the process ends first."""
        deadline = time.monotonic() + timeout
        while True:
            match = pattern.search(self.log())
            if match:
                return match
            if not self.running:
                raise self.exited()
            if time.monotonic() > deadline:
                raise TimeoutError(f"{self.name} did not start within {timeout:.0f}s (log: {self.log_path})")
            await asyncio.sleep(POLL_SECONDS)

    async def stop(self, grace: float) -> int:
        """SIGTERM, then SIGKILL if it has not exited after `grace` seconds; its exit status."""
        if self.running:
            with contextlib.suppress(ProcessLookupError):
                self.process.send_signal(signal.SIGTERM)
        try:
            return await asyncio.wait_for(self.process.wait(), grace)
        except TimeoutError:
            with contextlib.suppress(ProcessLookupError):
                self.process.kill()
            return await self.process.wait()


def flotilla_command(*arguments: str) -> tuple[str, ...]:
    """The command line of `flotilla <arguments>` run by this interpreter (the same installation)."""
    return (sys.executable, "-m", "flotilla", *arguments)


async def spawn(name: str, command: Sequence[str], log_path: Path) -> ChildProcess:
    """Start `command` in its own session, appending its output to `log_path`."""
    log_path.parent.mkdir(parents=True, exist_ok=True)
    with log_path.open("ab") as log:
        log.write(f"--- flotilla up: {time.strftime('%Y-%m-%dT%H:%M:%S%z')} {' '.join(command)}\n".encode())
        log.flush()
        offset = log.tell()
        process = await asyncio.create_subprocess_exec(
            *command,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    return ChildProcess(name, process, log_path, offset)


# -- processes this `up` did not start ----------------------------------------------------------


def command_line(pid: int) -> str | None:
    """The command line of a live process (arguments joined by spaces), None if there is none.

    A zombie counts as gone: it has exited, only its parent has not collected the status yet.
    """
    proc = Path("/proc") / str(pid)
    if Path("/proc/self").exists():
        try:
            stat = (proc / "stat").read_text()
            if stat[stat.rindex(")") + 2 :].startswith(("Z", "X")):
                return None
            return (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace").strip()
        except (OSError, ValueError):
            return None
    try:  # no /proc (macOS): ask ps
        result = subprocess.run(  # noqa: S603 - fixed arguments, the pid is an int
            ["ps", "-o", "stat=,command=", "-p", str(pid)],  # noqa: S607 - ps from PATH, as a shell would
            capture_output=True,
            text=True,
            check=False,
            timeout=5,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    status, _, command = result.stdout.strip().partition(" ")
    return None if not status or status.startswith("Z") else command.strip()


def belongs_to(pid: int, data_dir: Path) -> bool:
    """Whether `pid` is a live component started for `data_dir` (its path is in the arguments):
    a `flotilla` process or an `etcd` member."""
    command = command_line(pid)
    if command is None or str(data_dir) not in command:
        return False
    program = Path(command.split(" ", 1)[0]).name
    return "flotilla" in command or program == "etcd"


def alive(pid: int) -> bool:
    return command_line(pid) is not None


async def terminate(pids: dict[str, int], grace: float) -> list[str]:
    """Stop processes we did not start: SIGTERM, then SIGKILL after `grace`; the names that needed SIGKILL."""
    for pid in pids.values():
        _signal(pid, signal.SIGTERM)
    await _wait_until_gone(pids.values(), grace)
    killed = [name for name, pid in pids.items() if alive(pid)]
    for name in killed:
        _signal(pids[name], signal.SIGKILL)
    await _wait_until_gone(pids.values(), 5.0)
    still = [f"{name} (pid {pid})" for name, pid in pids.items() if alive(pid)]
    if still:
        raise RuntimeError(f"still running after SIGKILL: {', '.join(still)}")
    return killed


async def _wait_until_gone(pids: Iterable[int], seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not any(alive(pid) for pid in pids):
            return
        await asyncio.sleep(POLL_SECONDS)


def _signal(pid: int, sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.kill(pid, sig)


def free_port(host: str = "127.0.0.1") -> int:
    """A port nobody listens on right now (the kernel's pick), for a process that cannot take port 0."""
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind((host, 0))
        port: int = probe.getsockname()[1]
        return port


def port_in_use(host: str, port: int) -> bool:
    """Whether something already listens on host:port (as the API server binds: SO_REUSEADDR)."""
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as exc:
            return exc.errno == errno.EADDRINUSE
    return False
