"""What `flotilla register` leaves for the agent in its data directory, and how the agent updates it.

    DIR/hub.kubeconfig   the hub's server and CA, and the agent's client certificate and key inline
    DIR/agent.json       {"clusterName": ..., "hubServer": ...}
    DIR/agent.log        the agent's log when `register --detach` started it
    DIR/agent.pid        its process id then

The agent rewrites `hub.kubeconfig` when it renews its certificate. The file holds a private key
and is the agent's only credential, so it is replaced atomically — written beside the old one with
mode 0600, flushed to disk, then renamed over it — and a crash at any moment leaves either the old
file or the new one, never a mix.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from flotilla.runtime.privatefiles import private_directory, private_file

HUB_KUBECONFIG = "hub.kubeconfig"
AGENT_JSON = "agent.json"
AGENT_LOG = "agent.log"
AGENT_PID = "agent.pid"


class AgentConfigError(ValueError):
    """The agent cannot start as configured; the message says what to fix."""


@dataclass(frozen=True, slots=True)
class Registration:
    """What `agent.json` records of the registration ("" for what it does not say)."""

    cluster_name: str = ""
    hub_server: str = ""


@dataclass(frozen=True, slots=True)
class DataDir:
    path: Path

    @property
    def hub_kubeconfig(self) -> Path:
        return self.path / HUB_KUBECONFIG

    @property
    def agent_json(self) -> Path:
        return self.path / AGENT_JSON

    def registration(self) -> Registration:
        """`agent.json`, or an empty registration when there is none (the certificate still names the
        cluster)."""
        try:
            text = self.agent_json.read_text()
        except FileNotFoundError:
            return Registration()
        except OSError as exc:
            raise AgentConfigError(f"cannot read {self.agent_json}: {exc.strerror}") from exc
        return parse_registration(text, str(self.agent_json))

    def check(self) -> None:
        """Fail with a clear message when the directory holds no hub credentials; make the directory,
        the credentials and the log private (0700, 0600) if an older version left them readable."""
        if not self.hub_kubeconfig.is_file():
            raise AgentConfigError(
                f"{self.hub_kubeconfig} not found: register the cluster first "
                "(flotilla register HUB --token ... --data-dir DIR)"
            )
        private_directory(self.path)
        private_file(self.hub_kubeconfig)
        private_file(self.path / AGENT_LOG)

    def replace_hub_kubeconfig(self, text: str) -> None:
        """Write `hub.kubeconfig` anew, atomically, readable by this user only."""
        write_atomically(self.hub_kubeconfig, text.encode())


def parse_registration(text: str, source: str = AGENT_JSON) -> Registration:
    """The registration `agent.json` records; snake_case keys are accepted too."""
    try:
        data: Any = json.loads(text)
    except ValueError as exc:
        raise AgentConfigError(f"{source} is not valid JSON: {exc}") from exc
    if not isinstance(data, dict):
        raise AgentConfigError(f"{source} is not a JSON object")

    def field(*keys: str) -> str:
        for key in keys:
            value = data.get(key)
            if value:
                return str(value)
        return ""

    return Registration(
        cluster_name=field("clusterName", "cluster_name"), hub_server=field("hubServer", "hub_server")
    )


def write_atomically(path: Path, data: bytes, mode: int = 0o600) -> None:
    """Replace `path` with `data` so that readers and crashes see the old or the new file, whole."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    directory = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(directory)
    finally:
        os.close(directory)
