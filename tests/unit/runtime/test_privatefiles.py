"""Data directories are their owner's alone: 0700 directories, 0600 files, certificates excepted."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest
from structlog.testing import capture_logs

from flotilla.runtime.privatefiles import make_private, private_directory, private_file


def mode(path: Path) -> int:
    return stat.S_IMODE(path.lstat().st_mode)


@pytest.fixture(autouse=True)
def usual_umask() -> Iterator[None]:
    previous = os.umask(0o022)
    yield
    os.umask(previous)


def test_a_new_directory_and_its_missing_parents_are_created_0700(tmp_path: Path) -> None:
    """Nothing is created readable by others, not even for an instant."""
    target = tmp_path / "a" / "b" / "data"
    assert private_directory(target)
    assert [mode(p) for p in (target, target.parent, target.parent.parent)] == [0o700] * 3


def test_a_loose_data_directory_is_tightened_with_a_log_line_per_path(tmp_path: Path) -> None:
    """Directories become 0700, files 0600, certificates keep 0644; each change is logged."""
    data = tmp_path / "data"
    (data / "pki").mkdir(parents=True, mode=0o755)
    data.chmod(0o755)
    for name, file_mode in [
        ("store.db", 0o644),
        ("store.db-wal", 0o644),
        ("audit.log", 0o640),
        ("pki/ca.key", 0o644),
        ("pki/ca.crt", 0o644),
        ("pki/sa.pub", 0o644),
        ("private", 0o600),
    ]:
        (data / name).write_text("x")
        (data / name).chmod(file_mode)
    with capture_logs() as logs:
        make_private(data)
    assert mode(data) == mode(data / "pki") == 0o700
    assert [mode(data / n) for n in ("store.db", "store.db-wal", "audit.log", "pki/ca.key", "private")] == [
        0o600
    ] * 5
    assert mode(data / "pki" / "ca.crt") == mode(data / "pki" / "sa.pub") == 0o644
    tightened = {entry["path"] for entry in logs if entry["event"] == "files.permissions_tightened"}
    assert tightened == {
        str(data),
        str(data / "pki"),
        str(data / "store.db"),
        str(data / "store.db-wal"),
        str(data / "audit.log"),
        str(data / "pki" / "ca.key"),
    }


def test_a_private_directory_is_left_alone_and_nothing_is_logged(tmp_path: Path) -> None:
    """A second start finds nothing to change."""
    data = tmp_path / "data"
    private_directory(data)
    (data / "store.db").write_text("x")
    (data / "store.db").chmod(0o600)
    with capture_logs() as logs:
        make_private(data)
    assert logs == []


def test_symbolic_links_are_neither_followed_nor_changed(tmp_path: Path) -> None:
    """A link to a file elsewhere does not make make_private change that file."""
    outside = tmp_path / "shared.txt"
    outside.write_text("x")
    outside.chmod(0o644)
    data = tmp_path / "data"
    private_directory(data)
    (data / "link").symlink_to(outside)
    make_private(data)
    assert mode(outside) == 0o644


def test_a_shared_sticky_directory_is_not_tightened(tmp_path: Path) -> None:
    """Given a directory like /tmp, the component warns and changes nothing in it."""
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o1777)
    (shared / "someone-elses").write_text("x")
    (shared / "someone-elses").chmod(0o644)
    with capture_logs() as logs:
        make_private(shared)
    assert mode(shared) == 0o1777
    assert mode(shared / "someone-elses") == 0o644
    assert [entry["event"] for entry in logs] == ["files.shared_directory_not_private"]


def test_private_file_tightens_an_existing_file_and_ignores_a_missing_one(tmp_path: Path) -> None:
    path = tmp_path / "key"
    private_file(path)
    path.write_text("x")
    path.chmod(0o666)
    private_file(path)
    assert mode(path) == 0o600
