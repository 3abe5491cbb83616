"""The store copy behind `flotilla store migrate`, between two in-memory backends."""

from __future__ import annotations

import pytest

from flotilla.apiserver.store import migration
from flotilla.apiserver.store.migration import MigrationError, copy_store, migrate, resource_prefix
from flotilla.storage.memory import MemoryBackend


async def _store(items: dict[str, bytes]) -> MemoryBackend:
    backend = MemoryBackend()
    await backend.start()
    for key, value in items.items():
        await backend.create(key, value)
    return backend


def test_a_key_counts_under_its_group_and_resource() -> None:
    assert resource_prefix("/registry/core/configmaps/ns/name") == "/registry/core/configmaps/"
    assert resource_prefix("/registry/core/namespaces/default") == "/registry/core/namespaces/"
    assert resource_prefix("/registry/fleet.example.com/boats/ns/b") == "/registry/fleet.example.com/boats/"


async def test_every_key_is_copied_with_its_value_as_stored_and_the_counts_match(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Pages and in-flight chunks smaller than the store: every key arrives once, bytes unchanged."""
    monkeypatch.setattr(migration, "PAGE", 3)
    monkeypatch.setattr(migration, "IN_FLIGHT", 2)
    items = {f"/registry/core/configmaps/ns/c{i:02}": f"value {i}".encode() for i in range(10)}
    items["/registry/core/secrets/ns/s"] = b"k8s:enc:aesgcm:v1:key-1:\x00sealed"
    source = await _store(items)
    await source.update("/registry/core/configmaps/ns/c00", b"newer", mod_revision=1)
    target = await _store({})
    report = await migrate(source, target, description="memory", dry_run=False)
    copied = await target.range("/registry/")
    assert {kv.key: kv.value for kv in copied.kvs} == {**items, "/registry/core/configmaps/ns/c00": b"newer"}
    assert report.mismatches() == []
    assert report.source.keys == {"/registry/core/configmaps/": 10, "/registry/core/secrets/": 1}


async def test_a_dry_run_counts_and_writes_nothing() -> None:
    source = await _store({"/registry/core/namespaces/a": b"{}", "/registry/core/namespaces/b": b"{}"})
    target = await _store({})
    report = await migrate(source, target, description="memory", dry_run=True)
    assert report.source.total == 2
    assert (await target.range("")).kvs == []
    assert report.mismatches() == []


async def test_a_target_holding_keys_is_refused_before_anything_is_written() -> None:
    source = await _store({"/registry/core/namespaces/a": b"{}"})
    target = await _store({"/registry/core/namespaces/old": b"{}"})
    with pytest.raises(MigrationError, match="is not empty"):
        await migrate(source, target, description="memory", dry_run=False)
    assert [kv.key for kv in (await target.range("")).kvs] == ["/registry/core/namespaces/old"]


async def test_a_key_outside_the_registry_is_refused() -> None:
    source = await _store({"/registry/core/namespaces/a": b"{}", "/zzz/other": b"x"})
    with pytest.raises(MigrationError, match="outside /registry/"):
        await migrate(source, await _store({}), description="memory", dry_run=True)


async def test_a_write_the_target_refuses_stops_the_copy_with_what_to_do() -> None:
    """A key created in the target meanwhile: the copy stops and says the partial copy must go."""
    source = await _store({"/registry/core/namespaces/a": b"{}", "/registry/core/namespaces/b": b"{}"})
    target = await _store({"/registry/core/namespaces/b": b"raced"})
    with pytest.raises(MigrationError, match="partial copy"):
        await copy_store(source, target, revision=source.current_revision())


async def test_counts_that_differ_are_reported_per_resource() -> None:
    source = await _store({"/registry/core/namespaces/a": b"{}", "/registry/core/namespaces/b": b"{}"})
    target = await _store({})
    report = await migrate(source, target, description="memory", dry_run=False)
    await target.delete("/registry/core/namespaces/b", mod_revision=0)
    counted = await migration.count_store(target, "/registry/")
    short = migration.MigrationReport(report.source, counted, dry_run=False, revision=report.revision)
    assert short.mismatches() == [
        "/registry/core/namespaces/: source 2 keys (4 bytes), target 1 keys (2 bytes)"
    ]
