"""The record `flotilla up` keeps in `DIR/up.json`, and the lock that makes it the only `up` of a data dir.

`up` runs the hub API server, the controller manager and one `flotilla sim` process as children
(with `--ha`, also the members of an etcd cluster and more API servers).
Whoever needs to stop them later — `flotilla down` from another terminal, or the next `up` cleaning
up after a predecessor that was killed outright — learns their process ids from this file. The
next `up` also reads the port the hub listened on, so the kubeconfigs handed out earlier stay valid.

The record is plain JSON written atomically (temporary file, then rename). Encoding and decoding are
pure functions; a record that cannot be decoded is reported as a `StateError` saying which file to
remove, never as a traceback. The pids in a record may be stale (the machine rebooted, a process was
killed): readers check them against the running processes before acting on them.

Whether an `up` is running is not read from the record but from a lock: `up` holds an exclusive
`flock` on `DIR/up.lock` for as long as it lives, and the kernel releases it however `up` ends
(SIGKILL included), so a crashed `up` never blocks the next one.
"""

from __future__ import annotations

import fcntl
import json
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

STATE_FILE = "up.json"
LOCK_FILE = "up.lock"
STATE_VERSION = 1

APISERVER = "apiserver"
CONTROLLER_MANAGER = "controller-manager"
DASHBOARD = "dashboard"
SIM = "sim"
COMPONENTS = (APISERVER, SIM, CONTROLLER_MANAGER)
"""The children of every `flotilla up`, in the order they start (stopping goes the other way round)."""
ETCD_PREFIX = "etcd-"
"""`etcd-1`, `etcd-2`, …: the members of the etcd cluster of `up --ha`."""


def apiserver_name(index: int) -> str:
    """`apiserver` for the first API server, `apiserver-2`, `apiserver-3` … for the others of `--ha`."""
    return APISERVER if index == 1 else f"{APISERVER}-{index}"


def is_etcd(name: str) -> bool:
    return name.startswith(ETCD_PREFIX)


def stop_order(names: Iterable[str]) -> list[list[str]]:
    """Batches to stop one after the other: clients before the servers they talk to.

    The controller manager and the dashboard first (clients of the API servers), then the sim and
    the API servers (clients of etcd), each batch at once; then the etcd members one by one. A
    member that stops while its peers run hands its leadership over first; members stopped together
    would hand it to a peer that is going too, and the last leader then waits seconds for an
    election nobody wins.
    """
    names = list(names)
    batches = [
        [name for name in names if name in (CONTROLLER_MANAGER, DASHBOARD)],
        [name for name in names if name not in (CONTROLLER_MANAGER, DASHBOARD) and not is_etcd(name)],
        *([name] for name in names if is_etcd(name)),
    ]
    return [batch for batch in batches if batch]


class StateError(ValueError):
    """`up.json` exists but is not a record `flotilla up` wrote; the message says what to do."""


@dataclass(frozen=True, slots=True)
class UpState:
    """What one `flotilla up` started in a data dir, and what the next one should reuse."""

    up_pid: int | None = None
    """The `flotilla up` process supervising the components (None once it has stopped)."""
    components: dict[str, int] = field(default_factory=dict)
    """Running components by name (`apiserver`, `sim`, `controller-manager`) → pid."""
    secure_port: int | None = None
    """The port the hub API server listened on; the next `up` asks for it again."""
    hub_url: str = ""
    members: tuple[str, ...] = ()
    """Names of the simulated member clusters joined to the hub."""
    endpoints: dict[str, str] = field(default_factory=dict)
    """Other addresses worth knowing: the controller manager's health endpoint, the sim's admin one."""
    replica_ports: tuple[int, ...] = ()
    """`up --ha`: the ports of the API servers after the first (`apiserver-2`, …), asked for again."""
    etcd_ports: dict[str, tuple[int, int]] = field(default_factory=dict)
    """`up --ha`: each etcd member's client and peer port. The peer URLs are written into the
    cluster's membership when it is created, so every later `up` must use the same ones."""

    def pids(self) -> dict[str, int]:
        """Every recorded process by role, the supervising `up` included."""
        recorded = dict(self.components)
        if self.up_pid is not None:
            recorded["up"] = self.up_pid
        return recorded


def encode(state: UpState) -> str:
    document: dict[str, Any] = {
        "version": STATE_VERSION,
        "upPid": state.up_pid,
        "components": {name: {"pid": pid} for name, pid in state.components.items()},
        "securePort": state.secure_port,
        "hubURL": state.hub_url,
        "members": list(state.members),
        "endpoints": dict(state.endpoints),
    }
    if state.replica_ports:
        document["replicaPorts"] = list(state.replica_ports)
    if state.etcd_ports:
        document["etcd"] = {
            name: {"clientPort": client, "peerPort": peer}
            for name, (client, peer) in state.etcd_ports.items()
        }
    return json.dumps(document, indent=2) + "\n"


def decode(text: str, source: str = STATE_FILE) -> UpState:
    """The record in `text`; `StateError` (naming `source`) when it is not one."""
    try:
        document = json.loads(text)
    except ValueError as exc:
        raise StateError(f"{source} is not valid JSON ({exc}); remove it if no `flotilla up` runs") from exc
    if not isinstance(document, dict) or document.get("version") != STATE_VERSION:
        raise StateError(f"{source} is not a `flotilla up` state record (version {STATE_VERSION})")
    try:
        components = {
            str(name): _pid(entry["pid"]) for name, entry in (document.get("components") or {}).items()
        }
        up_pid = document.get("upPid")
        port = document.get("securePort")
        return UpState(
            up_pid=None if up_pid is None else _pid(up_pid),
            components=components,
            secure_port=None if port is None else _port(port),
            hub_url=str(document.get("hubURL") or ""),
            members=tuple(str(name) for name in document.get("members") or ()),
            endpoints={str(k): str(v) for k, v in (document.get("endpoints") or {}).items()},
            replica_ports=tuple(_port(port) for port in document.get("replicaPorts") or ()),
            etcd_ports={
                str(name): (_port(entry["clientPort"]), _port(entry["peerPort"]))
                for name, entry in (document.get("etcd") or {}).items()
            },
        )
    except (AttributeError, KeyError, TypeError, ValueError) as exc:
        raise StateError(f"{source} is malformed ({exc}); remove it if no `flotilla up` runs") from exc


def _pid(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise ValueError(f"{value!r} is not a process id")
    return value


def _port(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 65535:
        raise ValueError(f"{value!r} is not a port")
    return value


def read_state(data_dir: Path) -> UpState | None:
    """The record in `data_dir`, or None when `up` never ran there."""
    path = data_dir / STATE_FILE
    try:
        text = path.read_text()
    except FileNotFoundError:
        return None
    return decode(text, str(path))


def write_state(data_dir: Path, state: UpState) -> None:
    """Replace the record atomically: a reader sees the old one or the new one, never half of it."""
    path = data_dir / STATE_FILE
    temporary = path.with_name(f".{STATE_FILE}.{os.getpid()}.tmp")
    temporary.write_text(encode(state))
    temporary.replace(path)


class UpLock:
    """The exclusive lock a running `flotilla up` holds on its data dir."""

    def __init__(self, data_dir: Path) -> None:
        self.path = data_dir / LOCK_FILE
        self._descriptor: int | None = None

    def acquire(self) -> bool:
        """Take the lock if no other process holds it; False when another `up` runs here."""
        descriptor = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(descriptor)
            return False
        self._descriptor = descriptor
        return True

    def release(self) -> None:
        if self._descriptor is not None:
            os.close(self._descriptor)  # closing the descriptor releases the flock
            self._descriptor = None


def up_is_running(data_dir: Path) -> bool:
    """Whether a `flotilla up` holds the lock of `data_dir` right now."""
    if not (data_dir / LOCK_FILE).exists():
        return False
    probe = UpLock(data_dir)
    if probe.acquire():
        probe.release()
        return False
    return True
