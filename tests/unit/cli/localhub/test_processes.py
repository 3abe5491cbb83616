"""Child processes of `flotilla up`: exit descriptions, log tails, readiness lines, ports and pids."""

from __future__ import annotations

import asyncio
import os
import re
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from flotilla.cli.localhub.clusters import is_ready, readiness_note
from flotilla.cli.localhub.processes import (
    ComponentExited,
    belongs_to,
    command_line,
    describe_exit,
    flotilla_command,
    log_tail,
    port_in_use,
    spawn,
    terminate,
)


def test_a_negative_exit_status_is_described_as_the_signal() -> None:
    """`-9` reads as SIGKILL, a positive status as an exit code."""
    assert describe_exit(-9) == "signal SIGKILL"
    assert describe_exit(1) == "code 1"
    assert describe_exit(0) == "code 0"


def test_the_log_tail_keeps_the_last_non_empty_lines() -> None:
    """Blank lines do not use up the lines shown beside a failure."""
    text = "\n".join(f"line {i}\n" for i in range(30))
    assert log_tail(text, 3) == "line 27\nline 28\nline 29"


def test_a_listening_port_is_in_use_and_a_closed_one_is_not() -> None:
    """The pre-flight check sees a listener, and does not mistake a free port for a taken one."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        port = listener.getsockname()[1]
        assert port_in_use("127.0.0.1", port)
    assert not port_in_use("127.0.0.1", port)


def test_a_pid_belongs_to_a_data_dir_only_if_its_command_line_names_it(tmp_path: Path) -> None:
    """A live process whose arguments do not mention the data dir is never ours to stop."""
    command = command_line(os.getpid())
    assert command is not None and "python" in command
    assert not belongs_to(os.getpid(), tmp_path)


def test_an_etcd_member_started_for_the_data_dir_belongs_to_it(tmp_path: Path) -> None:
    """`up --ha`'s etcd members are stopped by `down` though their command line never says flotilla."""
    data_dir = tmp_path / "hub-data"
    etcd = tmp_path / "etcd"
    etcd.symlink_to(sys.executable)  # a program named etcd, whatever it runs
    member = subprocess.Popen(
        [
            etcd,
            "-c",
            "import time; print('up', flush=True); time.sleep(30)",
            f"--data-dir={data_dir}/etcd/etcd-1",
        ],
        stdout=subprocess.PIPE,
    )
    try:
        assert member.stdout is not None
        member.stdout.readline()  # exec'd: before that, the child's command line is still the parent's
        assert belongs_to(member.pid, data_dir)
        assert not belongs_to(member.pid, tmp_path / "another-data-dir")
    finally:
        member.kill()
        member.communicate()


def test_a_process_that_is_gone_has_no_command_line() -> None:
    """An exited (and reaped) process is reported as gone."""
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    assert command_line(child.pid) is None


async def test_a_component_exiting_before_its_line_is_reported_with_its_log(tmp_path: Path) -> None:
    """A component that ends before it serves raises ComponentExited with its code and log tail."""
    log = tmp_path / "bad.log"
    log.write_text("an older run's line: serving\n")
    child = await spawn("bad", flotilla_command("no-such-command"), log)
    with pytest.raises(ComponentExited) as caught:
        await child.wait_for_line(re.compile("serving"), timeout=30)
    assert caught.value.name == "bad" and caught.value.code == 2
    assert "No such command" in caught.value.tail and "older run" not in caught.value.tail


async def test_terminate_stops_a_process_that_ignores_sigterm_with_sigkill() -> None:
    """A process that ignores SIGTERM is killed after the grace period and reported as such."""
    ignore_sigterm = (
        "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); print('ready', flush=True); "
        "time.sleep(60)"
    )
    stubborn = await asyncio.create_subprocess_exec(
        sys.executable, "-c", ignore_sigterm, stdout=asyncio.subprocess.PIPE
    )
    try:
        assert stubborn.stdout is not None and await stubborn.stdout.readline() == b"ready\n"
        killed = await terminate({"stubborn": stubborn.pid}, grace=0.3)
        assert killed == ["stubborn"]
        assert await stubborn.wait() == -9
    finally:
        if stubborn.returncode is None:
            stubborn.kill()
            await stubborn.wait()


def test_a_cluster_is_ready_only_with_a_true_ready_condition() -> None:
    """Ready means the Ready condition says True; its absence means nobody probed yet."""
    ready = {"status": {"conditions": [{"type": "Ready", "status": "True"}]}}
    unreachable = {
        "status": {
            "conditions": [
                {"type": "Ready", "status": "False", "reason": "ClusterNotReachable", "message": "down"}
            ]
        }
    }
    assert is_ready(ready) and not is_ready(unreachable) and not is_ready({})
    assert readiness_note(unreachable) == "ClusterNotReachable: down"
    assert readiness_note({}) == "not probed yet"
    assert readiness_note(None) == "no Cluster object"
