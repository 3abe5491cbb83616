"""kubectl, the client nobody here wrote, pointed at a test's server (`processes.py`).

The hub is judged by real clients: tests run the system kubectl (or the binary of another version
shipped beside it), each with its own cache directory so that discovery is never shared between tests.
"""

from __future__ import annotations

import json
import os
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any


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

    def json_or_none(self, *args: str) -> Any:
        """`json(*args)`, or None where kubectl fails (the object is not there, or not yet)."""
        result = self.run(*args, "-o", "json", check=False)
        return json.loads(result.stdout) if result.returncode == 0 else None

    def succeeds(self, *args: str) -> bool:
        """Whether kubectl exits 0: `succeeds("get", "cm", name)` asks whether the ConfigMap exists."""
        return self.run(*args, check=False).returncode == 0

    def apply_yaml(self, documents: Any, *extra: str) -> str:
        """`kubectl apply -f -` of one object or a list of them.

        The documents go as a stream of JSON objects, one a line (kubectl reads a stream that opens
        with `{` as JSON): PyYAML would leave a string such as `015864` unquoted, and kubectl would
        read it back as a number.
        """
        listed = documents if isinstance(documents, list) else [documents]
        text = "\n".join(json.dumps(document) for document in listed)
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
