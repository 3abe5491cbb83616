"""The pieces of `flotilla apiserver --workers` that need no API server: audit paths, the held port."""

from __future__ import annotations

import errno
import socket
from pathlib import Path

import pytest

from flotilla.cli.components.apiserverworkers import hold_port, worker_audit_path


@pytest.mark.parametrize(
    ("configured", "index", "expected"),
    [
        ("hub/audit.log", 1, "hub/audit-1.log"),
        ("logs/api.audit.json", 2, "logs/api.audit-2.json"),
        ("audit", 3, "audit-3"),
    ],
)
def test_each_worker_writes_its_own_audit_log_beside_the_configured_one(
    configured: str, index: int, expected: str
) -> None:
    assert worker_audit_path(Path(configured), index) == Path(expected)


def test_the_held_port_takes_reuse_port_listeners_and_refuses_other_binds() -> None:
    """Port 0 picks a free port; workers (SO_REUSEPORT) bind it, anyone else is refused."""
    with hold_port("127.0.0.1", 0) as holder:
        port = holder.getsockname()[1]
        assert port > 0
        with socket.socket() as worker:
            worker.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
            worker.bind(("127.0.0.1", port))
            worker.listen()
        with socket.socket() as stranger, pytest.raises(OSError) as refused:  # noqa: PT011 - errno below
            stranger.bind(("127.0.0.1", port))
        assert refused.value.errno == errno.EADDRINUSE


def test_a_port_taken_by_another_program_is_a_clear_error() -> None:
    with socket.socket() as other:
        other.bind(("127.0.0.1", 0))
        other.listen()
        port = other.getsockname()[1]
        with pytest.raises(OSError, match=f"cannot listen on 127.0.0.1:{port}"):
            hold_port("127.0.0.1", port)
