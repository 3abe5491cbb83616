"""The `flotilla up` state record (DIR/up.json) and the lock that keeps one `up` per data dir."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from flotilla.cli.localhub.state import (
    STATE_FILE,
    StateError,
    UpLock,
    UpState,
    apiserver_name,
    decode,
    encode,
    read_state,
    stop_order,
    up_is_running,
    write_state,
)

STATE = UpState(
    up_pid=100,
    components={"apiserver": 101, "sim": 102, "controller-manager": 103},
    secure_port=6443,
    hub_url="https://127.0.0.1:6443",
    members=("member1", "member2"),
    endpoints={"simAdmin": "http://127.0.0.1:40000"},
)


def test_a_record_survives_encoding_and_decoding() -> None:
    """Every field written to up.json is read back unchanged."""
    assert decode(encode(STATE)) == STATE


def test_pids_include_the_supervising_up() -> None:
    """The pids to stop are the components' and the `up` process's own."""
    assert STATE.pids() == {"apiserver": 101, "sim": 102, "controller-manager": 103, "up": 100}
    assert UpState(components={"sim": 7}).pids() == {"sim": 7}


def test_a_stopped_run_keeps_its_port_and_members() -> None:
    """A record without processes still carries what the next `up` reuses."""
    stopped = decode(encode(UpState(secure_port=40123, members=("a", "b"))))
    assert stopped.up_pid is None and stopped.components == {}
    assert stopped.secure_port == 40123 and stopped.members == ("a", "b")


def test_invalid_json_is_a_state_error_naming_the_file() -> None:
    """A damaged file is reported with its name and what to do, not a traceback."""
    with pytest.raises(StateError, match=r"/data/up\.json is not valid JSON.*remove it"):
        decode("{not json", "/data/up.json")


def test_a_document_of_another_version_is_rejected() -> None:
    """Only records of the version this code writes are trusted."""
    with pytest.raises(StateError, match="not a `flotilla up` state record"):
        decode(json.dumps({"version": 99, "components": {}}))


@pytest.mark.parametrize("pid", [0, -4, "12", True, None])
def test_a_component_without_a_valid_pid_is_malformed(pid: object) -> None:
    """A pid must be a positive integer before anybody sends it a signal."""
    document = {"version": 1, "components": {"sim": {"pid": pid}}}
    with pytest.raises(StateError, match="malformed"):
        decode(json.dumps(document))


def test_a_port_out_of_range_is_malformed() -> None:
    """A recorded port outside 0-65535 is not reused."""
    with pytest.raises(StateError, match="malformed"):
        decode(json.dumps({"version": 1, "securePort": 70000}))


def test_write_then_read_gives_the_record_and_leaves_no_temporary_file(tmp_path: Path) -> None:
    """The record is replaced atomically, through a temporary file that does not stay behind."""
    write_state(tmp_path, STATE)
    assert read_state(tmp_path) == STATE
    assert sorted(p.name for p in tmp_path.iterdir()) == [STATE_FILE]


def test_reading_a_data_dir_where_up_never_ran_gives_none(tmp_path: Path) -> None:
    """No up.json means nothing was started there."""
    assert read_state(tmp_path) is None


def test_only_one_holder_gets_the_lock_until_it_is_released(tmp_path: Path) -> None:
    """A second `up` on the same data dir is refused while the first holds the lock."""
    first, second = UpLock(tmp_path), UpLock(tmp_path)
    assert first.acquire()
    try:
        assert not second.acquire()
        assert up_is_running(tmp_path)
    finally:
        first.release()
    assert not up_is_running(tmp_path)
    assert second.acquire()
    second.release()


def test_a_data_dir_without_a_lock_file_has_no_running_up(tmp_path: Path) -> None:
    """Checking for a running `up` creates nothing in a data dir that never had one."""
    assert not up_is_running(tmp_path)
    assert list(tmp_path.iterdir()) == []


def test_the_ha_topology_survives_encoding_and_decoding() -> None:
    """`up --ha` records the etcd members' ports and the other API servers' ports, and reads them back."""
    state = replace(
        STATE, replica_ports=(6444,), etcd_ports={"etcd-1": (2379, 2380), "etcd-2": (22379, 22380)}
    )
    assert decode(encode(state)) == state
    assert "etcd" not in json.loads(encode(STATE)), "a hub on SQLite records no etcd"


def test_components_stop_clients_first_and_etcd_members_one_by_one() -> None:
    """The controller manager, then the sim and the API servers together, then each etcd member alone."""
    names = ["etcd-1", "etcd-2", "apiserver", "sim", "apiserver-2", "controller-manager"]
    assert stop_order(names) == [
        ["controller-manager"],
        ["apiserver", "sim", "apiserver-2"],
        ["etcd-1"],
        ["etcd-2"],
    ]
    assert stop_order(["sim", "apiserver"]) == [["sim", "apiserver"]]
    assert [apiserver_name(i) for i in (1, 2, 3)] == ["apiserver", "apiserver-2", "apiserver-3"]
