"""Real Flotilla processes on loopback, for integration tests and for unit tests that need a real hub.

Every component (`flotilla apiserver`, `flotilla sim`, `flotilla controller-manager`, `flotilla
agent`) is a `python -m flotilla …` child of the test process writing to its own log file;
`ChildProcess` starts one, waits until its log says it is ready (or fails with the log when it exits
or times out), and stops it with a signal. `kubectl.py` points the system kubectl at them;
`tests/integration/federation.py` builds a hub with members out of these pieces.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, ClassVar

from tests.support.waiting import eventually

SERVING = re.compile(r"serving on (https://\S+)")


class ChildProcess:
    """One `python -m flotilla …` child with its own log file; the subclasses say what "ready" reads like."""

    component: ClassVar[str]
    stop_timeout: ClassVar[float] = 30.0
    process: subprocess.Popen[bytes] | None = None
    log_path: Path | None = None
    _log_file: IO[bytes] | None = None

    def started(self, log: str) -> bool:
        """Whether `log` (everything written so far) shows the component ready to serve."""
        raise NotImplementedError

    def spawn(self, log_dir: Path, args: list[str], timeout: float) -> None:
        log_dir.mkdir(parents=True, exist_ok=True)
        self.log_path = log_dir / f"{self.component}-{int(time.time() * 1000)}.log"
        self._log_file = self.log_path.open("wb")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "flotilla", *args], stdout=self._log_file, stderr=subprocess.STDOUT
        )
        process = self.process

        def ready() -> bool:
            if process.poll() is not None:
                code = self.stop()
                raise RuntimeError(f"{self.component} exited with {code}:\n{self.log()}")
            return self.started(self.log())

        try:
            eventually(ready, timeout=timeout, what=f"{self.component} started")
        except AssertionError:
            raise TimeoutError(f"{self.component} did not start within {timeout}s:\n{self.log()}") from None

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path and self.log_path.exists() else ""

    def stop(self, sig: int = signal.SIGTERM, timeout: float | None = None) -> int:
        """Signal the child, wait (SIGKILL after `timeout`) and return its exit code; 0 if not running."""
        if self.process is None:
            return 0
        if self.process.poll() is None:
            self.process.send_signal(sig)
        try:
            code = self.process.wait(self.stop_timeout if timeout is None else timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            code = self.process.wait()
        self.process = None
        if self._log_file is not None:
            self._log_file.close()
            self._log_file = None
        return code

    def kill(self) -> None:
        self.stop(signal.SIGKILL)


HOT_OBJECTS = ("--watch-cache-hot-objects", "8")


@dataclass
class ServerProcess(ChildProcess):
    """One API server child process with its own data directory."""

    component: ClassVar[str] = "apiserver"
    stop_timeout: ClassVar[float] = 15.0
    data_dir: Path
    extra_args: list[str] = field(default_factory=list)
    url: str = ""

    @property
    def kubeconfig(self) -> Path:
        return self.data_dir / "admin.kubeconfig"

    def start(self, timeout: float = 30.0) -> ServerProcess:
        self.data_dir.mkdir(parents=True, exist_ok=True)
        # Few objects stay decoded: the tests' writes, selectors and tables meet objects held as bytes.
        args = [
            "apiserver",
            "--data-dir",
            str(self.data_dir),
            "--secure-port",
            "0",
            *HOT_OBJECTS,
            *self.extra_args,
        ]
        self.spawn(self.data_dir, args, timeout)
        return self

    def started(self, log: str) -> bool:
        match = SERVING.search(log)
        if match:
            self.url = match.group(1)
        return match is not None


@dataclass
class SimProcess(ChildProcess):
    """A `flotilla sim` child process serving simulated clusters."""

    component: ClassVar[str] = "sim"
    data_dir: Path
    args: list[str] = field(default_factory=list)

    def start(self, timeout: float = 60.0) -> SimProcess:
        self.spawn(self.data_dir, ["sim", "--data-dir", str(self.data_dir), *self.args], timeout)
        return self

    def started(self, log: str) -> bool:
        return "flotilla sim: serving" in log

    def kubeconfig(self, cluster: str) -> Path:
        return self.data_dir / f"{cluster}.kubeconfig"

    def fault(self, cluster: str, *flags: str) -> str:
        return flotilla("sim", "fault", cluster, "--data-dir", str(self.data_dir), *flags, timeout=30).stdout


SHORT_LEADER_ELECTION = (
    "--leader-elect-lease-duration=3s",
    "--leader-elect-renew-deadline=2s",
    "--leader-elect-retry-period=500ms",
)
"""Leader election stays on in tests, with terms short enough that a manager restarted after kill -9
acts within seconds rather than waiting out the default 15 s Lease of the one it replaces."""


@dataclass
class ControllerManagerProcess(ChildProcess):
    """A `flotilla controller-manager` child process against a hub kubeconfig.

    `args` come after SHORT_LEADER_ELECTION, so a test may set other terms or `--leader-elect=false`.
    """

    component: ClassVar[str] = "controller-manager"
    kubeconfig: Path
    log_dir: Path
    args: list[str] = field(default_factory=list)

    def start(self, timeout: float = 60.0) -> ControllerManagerProcess:
        args = ["controller-manager", "--kubeconfig", str(self.kubeconfig), "--health-address", "127.0.0.1:0"]
        self.spawn(self.log_dir, [*args, *SHORT_LEADER_ELECTION, *self.args], timeout)
        return self

    def started(self, log: str) -> bool:
        return "flotilla controller-manager: running" in log


@dataclass
class AgentProcess(ChildProcess):
    """A `flotilla agent` child process serving one Pull member from its data directory.

    A test may stop it (or kill it) and start it again, with `extra` flags for that run.
    """

    component: ClassVar[str] = "agent"
    data_dir: Path
    member_kubeconfig: Path
    log_dir: Path
    args: list[str] = field(default_factory=list)

    def start(self, *extra: str, timeout: float = 60.0) -> AgentProcess:
        args = ["agent", "--data-dir", str(self.data_dir), "--kubeconfig", str(self.member_kubeconfig)]
        self.spawn(self.log_dir, [*args, *self.args, *extra], timeout)
        return self

    def started(self, log: str) -> bool:
        return "flotilla agent: running" in log


def stop_detached_agent(pid: int, timeout: float = 30.0) -> None:
    """SIGTERM the agent `flotilla register --detach` started, and wait until it has exited."""
    os.kill(pid, signal.SIGTERM)

    def exited() -> bool:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            return True
        return state in ("Z", "X")  # a zombie has exited; whoever adopted it reaps it

    eventually(exited, timeout=timeout, what=f"detached agent {pid} exited")


def flotilla(*args: str, check: bool = True, timeout: float = 60.0) -> subprocess.CompletedProcess[str]:
    """Run the `flotilla` command (this checkout's) and return its result."""
    result = subprocess.run(
        [sys.executable, "-m", "flotilla", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    if check and result.returncode != 0:
        raise AssertionError(f"flotilla {' '.join(args)} failed ({result.returncode}):\n{result.stderr}")
    return result
