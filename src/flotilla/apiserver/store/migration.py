"""Moving a hub's store from its SQLite file to etcd, for `flotilla store migrate`.

A hub started on the embedded store can move to etcd without re-creating its objects: every key of
the stopped API server's `store.db` is written, with its value exactly as stored, under an empty
etcd prefix. Values are opaque here: encrypted Secrets and Works stay sealed (their additional
authenticated data is the store key, which the copy keeps), so the same `encryption-keys.yaml`
reads them. UIDs, creation timestamps and everything else of an object live inside its value and
are kept; resourceVersions are not stored in values (they are the key's mod revision) and become
etcd's revisions of the copy. Only the latest version of each key is copied, not its history.

The source is read at one revision, page by page, so memory holds one page; the copy writes a page
with a bounded number of creates in flight. A create refuses a key that exists, so nothing already
in etcd is overwritten; the copy also refuses to start unless the target prefix is empty. At the
end both stores are counted per resource (`/registry/<group>/<resource>/`), keys and bytes, and the
counts are compared. The API server must be stopped: its SQLite connection is detected with the
same exclusive-lock probe `flotilla secrets reencrypt` uses.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from flotilla.apiserver.store.encryption import STORE_FILE, StoreInUseError, check_store_unused
from flotilla.storage import Backend, StorageError
from flotilla.storage.etcd import EtcdBackend
from flotilla.storage.etcdconnection import EtcdSettings, parse_endpoints
from flotilla.storage.sqlite import SQLiteBackend

__all__ = [
    "EtcdSettings",
    "MigrationError",
    "MigrationReport",
    "StorageError",
    "StoreCounts",
    "StoreInUseError",
    "copy_store",
    "count_store",
    "migrate_sqlite_to_etcd",
    "parse_endpoints",
]
"""`EtcdSettings` and `parse_endpoints` are re-exported for the CLI, which may not import storage."""

REGISTRY = "/registry/"
"""Every key the API server writes starts here (etcd.py maps it onto `--etcd-prefix`)."""
PAGE = 500
"""Keys read from the source per page."""
IN_FLIGHT = 64
"""Creates sent to the target at once: enough to hide etcd's round trip, few enough to stay polite."""


class MigrationError(Exception):
    """The copy cannot start or did not complete; the message says what to do."""


@dataclass(slots=True)
class StoreCounts:
    """Keys and value bytes per resource prefix (`/registry/<group>/<resource>/`)."""

    keys: Counter[str] = field(default_factory=Counter)
    value_bytes: Counter[str] = field(default_factory=Counter)

    def add(self, key: str, value: bytes) -> None:
        prefix = resource_prefix(key)
        self.keys[prefix] += 1
        self.value_bytes[prefix] += len(value)

    @property
    def total(self) -> int:
        return sum(self.keys.values())


@dataclass(frozen=True, slots=True)
class MigrationReport:
    """What was (or, for a dry run, would be) copied, and the counts of both sides."""

    source: StoreCounts
    target: StoreCounts
    dry_run: bool
    revision: int
    """The source revision the copy was read at."""

    def mismatches(self) -> list[str]:
        """One line per resource whose keys or bytes differ between source and target."""
        if self.dry_run:
            return []
        lines = []
        for prefix in sorted(set(self.source.keys) | set(self.target.keys)):
            source = (self.source.keys[prefix], self.source.value_bytes[prefix])
            target = (self.target.keys[prefix], self.target.value_bytes[prefix])
            if source != target:
                lines.append(
                    f"{prefix}: source {source[0]} keys ({source[1]} bytes), "
                    f"target {target[0]} keys ({target[1]} bytes)"
                )
        return lines


def resource_prefix(key: str) -> str:
    """`/registry/core/configmaps/ns/name` → `/registry/core/configmaps/` (the key's resource)."""
    parts = key.split("/")
    if len(parts) >= 5 and key.startswith(REGISTRY):
        return "/".join(parts[:4]) + "/"
    return key.rsplit("/", 1)[0] + "/"


async def count_store(backend: Backend, prefix: str, *, revision: int = 0) -> StoreCounts:
    """Count every key under `prefix` at `revision` (0: the latest), a page at a time."""
    counts = StoreCounts()
    start_after = ""
    while True:
        page = await backend.range(prefix, start_after=start_after, limit=PAGE, revision=revision)
        for kv in page.kvs:
            counts.add(kv.key, kv.value)
        if not page.more or not page.kvs:
            return counts
        start_after = page.kvs[-1].key


async def ensure_empty(target: Backend, description: str) -> None:
    """Refuse a target that holds any key of a hub: the copy must not mix with other data."""
    page = await target.range(REGISTRY, limit=1)
    if page.kvs:
        raise MigrationError(
            f"the target {description} is not empty (it holds {page.kvs[0].key}, among others): "
            "migrate into an empty prefix — choose another --etcd-prefix, or remove what is there "
            "if it is a failed earlier copy (etcdctl del --prefix <prefix>/)"
        )


async def copy_store(source: Backend, target: Backend, *, revision: int) -> StoreCounts:
    """Create every key of `source` at `revision` in `target`, values as stored; returns what was read."""
    counts = StoreCounts()
    start_after = ""
    while True:
        page = await source.range("", start_after=start_after, limit=PAGE, revision=revision)
        for start in range(0, len(page.kvs), IN_FLIGHT):
            chunk = page.kvs[start : start + IN_FLIGHT]
            try:
                async with asyncio.TaskGroup() as group:
                    for kv in chunk:
                        group.create_task(target.create(kv.key, kv.value))
            except* StorageError as failed:
                raise MigrationError(
                    f"writing to the target failed after {counts.total} keys: {failed.exceptions[0]}; "
                    "the target now holds a partial copy: remove it (etcdctl del --prefix <prefix>/) "
                    "and run the migration again"
                ) from failed
            for kv in chunk:
                counts.add(kv.key, kv.value)
        if not page.more or not page.kvs:
            return counts
        start_after = page.kvs[-1].key


async def _outside_registry(source: Backend, revision: int) -> str | None:
    """A key of the source that is not under /registry/ (etcd's layout has no place for it), if any."""
    before = await source.range("", limit=1, revision=revision)
    if before.kvs and not before.kvs[0].key.startswith(REGISTRY):
        return before.kvs[0].key
    after = await source.range("", start_after=REGISTRY + "\U0010ffff", limit=1, revision=revision)
    if after.kvs and not after.kvs[0].key.startswith(REGISTRY):
        return after.kvs[0].key
    return None


async def migrate(source: Backend, target: Backend, *, description: str, dry_run: bool) -> MigrationReport:
    """Copy (or, for a dry run, only count) `source` into the empty `target`, then count both."""
    revision = source.current_revision()
    outside = await _outside_registry(source, revision)
    if outside is not None:
        raise MigrationError(f"the source holds {outside!r}, outside /registry/: it cannot be placed in etcd")
    await ensure_empty(target, description)
    if dry_run:
        counts = await count_store(source, "", revision=revision)
        return MigrationReport(counts, StoreCounts(), dry_run=True, revision=revision)
    copied = await copy_store(source, target, revision=revision)
    return MigrationReport(copied, await count_store(target, REGISTRY), dry_run=False, revision=revision)


async def migrate_sqlite_to_etcd(data_dir: Path, etcd: EtcdSettings, *, dry_run: bool) -> MigrationReport:
    """Copy the store of the stopped API server whose data directory is `data_dir` into etcd."""
    path = data_dir / STORE_FILE
    if not path.exists():
        raise MigrationError(f"{path} does not exist: is {data_dir} an API server's --data-dir?")
    await asyncio.to_thread(check_store_unused, path)
    source = SQLiteBackend(path)
    target = EtcdBackend(etcd)
    await source.start()
    try:
        try:
            await target.start()
            where = f"{', '.join(etcd.endpoints)} under {etcd.prefix}"
            return await migrate(source, target, description=where, dry_run=dry_run)
        finally:
            await target.close()
    finally:
        await source.close()
