"""Files only their owner may read: 0600 files in 0700 directories, for every component's data directory.

An API server's data directory holds its store (every object, Secrets included, plus the SQLite WAL),
the keys that encrypt Secrets, the CA's and the serving certificate's private keys, the admin
kubeconfig and the audit log; an agent's holds its client key. None of it is for other local users,
so directories are created 0700 and files 0600. A data directory made by an older version (or by
hand) with looser modes is tightened when its component starts, with a log line per path, so the
change is visible. Certificates are public and may stay 0644 — inside a 0700 directory nobody else
reaches them anyway. A shared directory (sticky, as /tmp) given as a data directory is left alone, with
a warning: tightening it would break every other user of it.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

import structlog

log = structlog.get_logger("flotilla.runtime.privatefiles")

DIRECTORY_MODE = 0o700
FILE_MODE = 0o600
PUBLIC_SUFFIXES = (".crt", ".pub")
"""Files that hold only public material (certificates, public keys) and keep their mode."""


def private_directory(path: Path) -> bool:
    """Create `path` (and missing parents) as 0700 directories, or tighten an existing one.

    Returns False for a shared (sticky) directory, which is left as it is.
    """
    missing = [parent for parent in (path, *path.parents) if not parent.exists()]
    for directory in reversed(missing):
        directory.mkdir(mode=DIRECTORY_MODE, exist_ok=True)
    if path.stat().st_mode & stat.S_ISVTX:
        log.warning("files.shared_directory_not_private", path=str(path))
        return False
    _tighten(path, DIRECTORY_MODE)
    return True


def private_file(path: Path) -> None:
    """Make an existing file readable by its owner only (no-op for a missing or private one)."""
    _tighten(path, FILE_MODE)


def make_private(directory: Path) -> None:
    """Tighten a data directory: itself and every directory in it 0700, every file 0600 except
    the public ones (`PUBLIC_SUFFIXES`). Symbolic links are neither followed nor changed."""
    if not private_directory(directory):
        return
    for root, directories, files in os.walk(directory):
        base = Path(root)
        for name in directories:
            _tighten(base / name, DIRECTORY_MODE)
        for name in files:
            if not name.endswith(PUBLIC_SUFFIXES):
                _tighten(base / name, FILE_MODE)


def _tighten(path: Path, wanted: int) -> None:
    """Remove every permission bit beyond `wanted` (group and others'), logging the change."""
    try:
        info = path.lstat()
    except FileNotFoundError:
        return
    if stat.S_ISLNK(info.st_mode):
        return
    mode = stat.S_IMODE(info.st_mode)
    if mode & ~wanted == 0:
        return
    tightened = mode & wanted
    try:
        path.chmod(tightened)
    except PermissionError:  # another user's file: say so, the component still starts
        log.warning("files.permissions_not_tightened", path=str(path), mode=f"{mode:04o}")
        return
    log.warning("files.permissions_tightened", path=str(path), mode=f"{mode:04o}", now=f"{tightened:04o}")
