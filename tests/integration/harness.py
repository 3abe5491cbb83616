"""Real `flotilla apiserver` processes on loopback, and the system kubectl pointed at them."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

SERVING = re.compile(r"serving on (https://\S+)")


@dataclass
class ServerProcess:
    """One API server child process with its own data directory."""

    data_dir: Path
    extra_args: list[str] = field(default_factory=list)
    process: subprocess.Popen[bytes] | None = None
    url: str = ""
    log_path: Path | None = None
    _log_file: Any = None

    @property
    def kubeconfig(self) -> Path:
        return self.data_dir / "admin.kubeconfig"

    def start(self, timeout: float = 30.0) -> ServerProcess:
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self.log_path = self.data_dir / f"apiserver-{int(time.time() * 1000)}.log"
        log = self._log_file = self.log_path.open("wb")
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "flotilla",
                "apiserver",
                "--data-dir",
                str(self.data_dir),
                "--secure-port",
                "0",
                *self.extra_args,
            ],
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                code = self.stop()
                raise RuntimeError(f"apiserver exited with {code}:\n{self.log()}")
            match = SERVING.search(self.log())
            if match:
                self.url = match.group(1)
                return self
            time.sleep(0.05)
        raise TimeoutError(f"apiserver did not start within {timeout}s:\n{self.log()}")

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path and self.log_path.exists() else ""

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 15.0) -> int:
        if self.process is None:
            return 0
        if self.process.poll() is None:
            self.process.send_signal(sig)
        try:
            code = self.process.wait(timeout)
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


@dataclass
class Kubectl:
    """The system kubectl (or another version's binary) against one server, with a fresh cache dir."""

    kubeconfig: Path
    cache_dir: Path
    binary: str = "kubectl"

    def run(
        self,
        *args: str,
        input: str | None = None,
        check: bool = True,
        env: dict[str, str] | None = None,
        timeout: float = 60.0,
    ) -> subprocess.CompletedProcess[str]:
        full_env = {**os.environ, "KUBECONFIG": str(self.kubeconfig), **(env or {})}
        result = subprocess.run(
            [self.binary, "--cache-dir", str(self.cache_dir), *args],
            input=input,
            capture_output=True,
            text=True,
            env=full_env,
            timeout=timeout,
            check=False,
        )
        if check and result.returncode != 0:
            raise AssertionError(
                f"kubectl {' '.join(args)} failed ({result.returncode}):\n"
                f"stdout: {result.stdout}\nstderr: {result.stderr}"
            )
        return result

    def popen(self, *args: str) -> subprocess.Popen[str]:
        """A long-running kubectl (get -w…) whose output the test reads line by line."""
        return subprocess.Popen(
            [self.binary, "--cache-dir", str(self.cache_dir), *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "KUBECONFIG": str(self.kubeconfig)},
        )

    def __call__(self, *args: str, **kwargs: Any) -> str:
        return self.run(*args, **kwargs).stdout

    def json(self, *args: str) -> Any:
        return json.loads(self.run(*args, "-o", "json").stdout)

    def apply_yaml(self, documents: Any, *extra: str) -> str:
        text = yaml.safe_dump_all(documents if isinstance(documents, list) else [documents])
        return self(*("apply", "-f", "-", *extra), input=text)


def kubectl_version_binary(minor: int) -> str | None:
    """The kubectl binary of version 1.<minor> shipped beside the system one, if present."""
    from shutil import which

    system = which("kubectl")
    if system is None:
        return None
    folder = Path(os.path.realpath(system)).parent
    candidate = folder / f"kubectl.1.{minor}"
    return str(candidate) if candidate.exists() else None


@dataclass
class SimProcess:
    """A `flotilla sim` child process serving simulated clusters."""

    data_dir: Path
    args: list[str] = field(default_factory=list)
    process: subprocess.Popen[bytes] | None = None
    _log_file: Any = None

    def start(self, timeout: float = 60.0) -> SimProcess:
        self.data_dir.mkdir(parents=True, exist_ok=True)
        log_path = self.data_dir / f"sim-{int(time.time() * 1000)}.log"
        self.log_path = log_path
        self._log_file = log_path.open("wb")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "flotilla", "sim", "--data-dir", str(self.data_dir), *self.args],
            stdout=self._log_file,
            stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                code = self.stop()
                raise RuntimeError(f"sim exited with {code}:\n{self.log()}")
            if "flotilla sim: serving" in self.log():
                return self
            time.sleep(0.05)
        raise TimeoutError(f"sim did not start within {timeout}s:\n{self.log()}")

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def kubeconfig(self, cluster: str) -> Path:
        return self.data_dir / f"{cluster}.kubeconfig"

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 30.0) -> int:
        if self.process is None:
            return 0
        if self.process.poll() is None:
            self.process.send_signal(sig)
        try:
            code = self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            code = self.process.wait()
        self.process = None
        if self._log_file is not None:
            self._log_file.close()
            self._log_file = None
        return code

    def fault(self, cluster: str, *flags: str) -> str:
        result = subprocess.run(
            [
                sys.executable,
                "-m",
                "flotilla",
                "sim",
                "fault",
                cluster,
                "--data-dir",
                str(self.data_dir),
                *flags,
            ],
            capture_output=True,
            text=True,
            check=True,
            timeout=30,
        )
        return result.stdout


def wait_until(predicate: Any, timeout: float = 30.0, interval: float = 0.2, message: str = "") -> Any:
    """Poll `predicate` until it returns something truthy; fail with `message` after `timeout`."""
    deadline = time.monotonic() + timeout
    last: Any = None
    while time.monotonic() < deadline:
        last = predicate()
        if last:
            return last
        time.sleep(interval)
    raise AssertionError(message or f"condition not met within {timeout}s (last: {last!r})")


@dataclass
class ControllerManagerProcess:
    """A `flotilla controller-manager` child process against a hub kubeconfig."""

    kubeconfig: Path
    log_dir: Path
    args: list[str] = field(default_factory=list)
    process: subprocess.Popen[bytes] | None = None
    _log_file: Any = None

    def start(self, timeout: float = 60.0) -> ControllerManagerProcess:
        self.log_dir.mkdir(parents=True, exist_ok=True)
        self.log_path = self.log_dir / f"controller-manager-{int(time.time() * 1000)}.log"
        self._log_file = self.log_path.open("wb")
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "flotilla",
                "controller-manager",
                "--kubeconfig",
                str(self.kubeconfig),
                "--health-address",
                "127.0.0.1:0",
                *self.args,
            ],
            stdout=self._log_file,
            stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                code = self.stop()
                raise RuntimeError(f"controller-manager exited with {code}:\n{self.log()}")
            if "flotilla controller-manager: running" in self.log():
                return self
            time.sleep(0.05)
        raise TimeoutError(f"controller-manager did not start within {timeout}s:\n{self.log()}")

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 30.0) -> int:
        if self.process is None:
            return 0
        if self.process.poll() is None:
            self.process.send_signal(sig)
        try:
            code = self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            code = self.process.wait()
        self.process = None
        if self._log_file is not None:
            self._log_file.close()
            self._log_file = None
        return code


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
