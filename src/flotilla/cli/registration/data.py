"""What `flotilla register` writes into the agent's data directory, and how it starts the agent.

The directory's layout, and the atomic replacement of `hub.kubeconfig` (the agent's only credential,
mode 0600), belong to the agent (`flotilla.agent.datadir`); this module renders the files `register`
writes there — the hub kubeconfig with the certificate it was just issued, and `agent.json`.

The agent is `flotilla agent` run with this interpreter: in the foreground `register` becomes it
(exec, same process id); with `--detach` it runs in a session of its own, its output in
`agent.log`, its pid in `agent.pid`.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import yaml

from flotilla.agent.datadir import AGENT_LOG, AGENT_PID, write_atomically

HUB_CLUSTER = "hub"


def hub_kubeconfig(
    server: str, ca_pem: bytes, certificate_pem: bytes, key_pem: bytes, cluster_name: str
) -> str:
    """The agent's kubeconfig for the hub: one cluster, one user (the agent), one context."""
    user = f"karmada-agent-{cluster_name}"

    def encoded(data: bytes) -> str:
        return base64.b64encode(data).decode()

    document: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [
            {
                "name": HUB_CLUSTER,
                "cluster": {"server": server, "certificate-authority-data": encoded(ca_pem)},
            }
        ],
        "users": [
            {
                "name": user,
                "user": {
                    "client-certificate-data": encoded(certificate_pem),
                    "client-key-data": encoded(key_pem),
                },
            }
        ],
        "contexts": [{"name": user, "context": {"cluster": HUB_CLUSTER, "user": user}}],
        "current-context": user,
    }
    return yaml.safe_dump(document, sort_keys=False)


def agent_settings(cluster_name: str, hub_server: str, cluster_id: str) -> str:
    """`agent.json`: which cluster this directory registered, with which hub."""
    body = {"clusterName": cluster_name, "hubServer": hub_server, "clusterID": cluster_id}
    return json.dumps(body, indent=2) + "\n"


def agent_command(
    data_dir: Path, member_kubeconfig: Path, member_context: str | None, cluster_name: str
) -> list[str]:
    """The `flotilla agent` command line for this registration (absolute paths: it may run elsewhere)."""
    command = [
        sys.executable,
        "-m",
        "flotilla",
        "agent",
        "--data-dir",
        str(data_dir.resolve()),
        "--kubeconfig",
        str(member_kubeconfig.resolve()),
        "--cluster-name",
        cluster_name,
    ]
    if member_context:
        command += ["--context", member_context]
    return command


def running_agent(data_dir: Path) -> int | None:
    """The pid in `agent.pid` when that process is still alive (a detached agent already running)."""
    try:
        pid = int((data_dir / AGENT_PID).read_text().strip())
    except (OSError, ValueError):
        return None
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return None
    except PermissionError:
        return pid  # alive, someone else's
    return pid


def start_detached(command: list[str], data_dir: Path) -> int:
    """Start the agent in its own session, output appended to `agent.log`; its pid, also in `agent.pid`."""
    log_fd = os.open(data_dir / AGENT_LOG, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    with os.fdopen(log_fd, "ab") as log:
        process = subprocess.Popen(  # noqa: S603 - our own interpreter running our own command
            command,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            close_fds=True,
        )
    write_atomically(data_dir / AGENT_PID, f"{process.pid}\n".encode(), mode=0o644)
    return process.pid


def exited_early(pid: int) -> int | None:
    """The exit code of our child `pid` if it has already ended, else None (reaping it)."""
    with contextlib.suppress(ChildProcessError):
        finished, status = os.waitpid(pid, os.WNOHANG)
        if finished == pid:
            return os.waitstatus_to_exitcode(status)
    return None


def run_in_foreground(command: list[str]) -> None:
    """Become the agent (never returns)."""
    sys.stdout.flush()
    sys.stderr.flush()
    os.execv(command[0], command)  # noqa: S606 - our own interpreter running our own command
