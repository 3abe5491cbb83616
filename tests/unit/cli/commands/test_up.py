"""`flotilla up` / `flotilla down` without a running hub: refusals, bad input, stale and leftover state."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from flotilla.cli.localhub.state import UpLock, UpState, read_state, write_state
from flotilla.cli.main import cli


def flotilla(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


@pytest.fixture
def stand_in(tmp_path: Path) -> Iterator[subprocess.Popen[bytes]]:
    """A process whose command line names flotilla and the data dir, as a leftover component's does."""
    data_dir = tmp_path / "d"
    process = subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(60)", "flotilla", "sim", "--data-dir", str(data_dir)]
    )
    yield process
    process.kill()
    process.wait()


def test_a_taken_port_stops_up_before_it_starts_anything(tmp_path: Path) -> None:
    """A hub port held by another process fails with a hint to use port 0, and nothing is started."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        port = listener.getsockname()[1]
        result = flotilla("up", "--data-dir", str(tmp_path / "d"), "--secure-port", str(port))
    assert result.exit_code == 1
    assert f"port {port} on 127.0.0.1 is already in use" in result.stderr
    assert "--secure-port 0" in result.stderr
    assert not (tmp_path / "d" / "logs").exists()
    state = read_state(tmp_path / "d")
    assert state is not None and state.up_pid is None and state.components == {}


def test_up_refuses_a_data_dir_whose_lock_is_held(tmp_path: Path) -> None:
    """While another `up` holds the data dir's lock, `up` exits 1 and says how to stop the other."""
    data_dir = tmp_path / "d"
    data_dir.mkdir()
    write_state(data_dir, UpState(up_pid=4242))
    lock = UpLock(data_dir)
    assert lock.acquire()
    try:
        result = flotilla("up", "--data-dir", str(data_dir))
    finally:
        lock.release()
    assert result.exit_code == 1
    assert "already running" in result.stderr and "(pid 4242)" in result.stderr
    assert "flotilla down --data-dir" in result.stderr


def test_members_and_config_together_are_a_usage_error(tmp_path: Path) -> None:
    """`--members` and `--config` say the same thing twice; click's usage error, exit code 2."""
    config = tmp_path / "members.yaml"
    config.write_text("members: [{name: a}]\n")
    result = flotilla("up", "--data-dir", str(tmp_path / "d"), "--members", "2", "--config", str(config))
    assert result.exit_code == 2
    assert "either --members N or --config FILE" in result.stderr


def test_a_bad_config_file_is_a_usage_error_naming_the_problem(tmp_path: Path) -> None:
    """A config file with an unknown field is refused before anything starts."""
    config = tmp_path / "members.yaml"
    config.write_text("members: [{name: a, regoin: x}]\n")
    result = flotilla("up", "--data-dir", str(tmp_path / "d"), "--config", str(config))
    assert result.exit_code == 2
    assert "unknown field(s) regoin" in result.stderr
    assert not (tmp_path / "d" / "sim.yaml").exists()


def test_down_where_up_never_ran_says_so(tmp_path: Path) -> None:
    """No state file: nothing to stop, and that is not an error."""
    result = flotilla("down", "--data-dir", str(tmp_path))
    assert result.exit_code == 0
    assert "Nothing to stop" in result.stdout


def test_down_with_stale_pids_signals_nobody_and_clears_them(tmp_path: Path) -> None:
    """Recorded pids that exited, or that now belong to an unrelated process, are left alone and forgotten."""
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    data_dir = tmp_path / "d"
    data_dir.mkdir()
    # The test process itself stands for a pid that was reused by an unrelated process.
    components = {"apiserver": gone.pid, "sim": os.getpid()}
    write_state(data_dir, UpState(components=components, secure_port=6443, members=("member1",)))
    result = flotilla("down", "--data-dir", str(data_dir))
    assert result.exit_code == 0
    assert "Nothing was running" in result.stdout
    state = read_state(data_dir)
    assert state is not None and state.components == {} and state.secure_port == 6443


def test_down_stops_a_leftover_component_of_the_data_dir(
    tmp_path: Path, stand_in: subprocess.Popen[bytes]
) -> None:
    """A recorded component still running (its `up` was killed) gets SIGTERM from `down` and is gone."""
    data_dir = tmp_path / "d"
    data_dir.mkdir()
    write_state(data_dir, UpState(components={"sim": stand_in.pid}))
    started = time.monotonic()
    result = flotilla("down", "--data-dir", str(data_dir), "--grace", "5")
    assert result.exit_code == 0, result.output
    assert "stopped: sim" in result.stdout
    assert stand_in.wait(5) == -15 and time.monotonic() - started < 5
    assert json.loads((data_dir / "up.json").read_text())["components"] == {}
