"""Revision order: one global counter, advanced by each successful write and by nothing else."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from flotilla.storage.backend import (
    Backend,
    FutureRevisionError,
    KeyExistsError,
    KeyValue,
    RevisionMismatchError,
    StorageError,
)
from tests.unit.storage.backends import CONTRACT_KINDS, BackendKind, fresh_database, model_for, opened_backend
from tests.unit.storage.operations import Write, apply, run_in_new_loop, writes


@pytest.mark.parametrize("kind", CONTRACT_KINDS)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(sequence=st.lists(writes, max_size=25))
def test_every_acknowledged_write_gets_a_revision_above_all_earlier_ones(
    kind: BackendKind, tmp_path: Path, sequence: list[Write]
) -> None:
    """Successful writes get strictly increasing revisions; failed ones leave the counter alone."""

    async def scenario() -> None:
        async with opened_backend(kind, fresh_database(tmp_path)) as backend:
            model = await model_for(backend)
            highest = 0
            for write in sequence:
                before = backend.current_revision()
                outcome = await apply(backend, model, write)
                if outcome[0] == "ok":
                    assert isinstance(outcome[1], int)
                    assert outcome[1] > highest
                    highest = outcome[1]
                    assert backend.current_revision() == highest
                else:
                    assert backend.current_revision() == before

    run_in_new_loop(scenario)


async def test_create_and_mod_revisions_follow_a_key_through_its_life(backend: Backend) -> None:
    """create sets both revisions, update moves only the mod revision, a re-create starts afresh."""
    created = await backend.create("/k", b"1")
    await backend.create("/other", b"x")
    assert await backend.get("/k") == KeyValue("/k", b"1", created, created)

    updated = await backend.update("/k", b"2", mod_revision=created)
    assert await backend.get("/k") == KeyValue("/k", b"2", created, updated)

    deleted = await backend.delete("/k", mod_revision=updated)
    assert deleted == updated + 1
    assert await backend.get("/k") is None
    assert await backend.get("/k", revision=deleted - 1) == KeyValue("/k", b"2", created, updated)

    recreated = await backend.create("/k", b"3")
    assert await backend.get("/k") == KeyValue("/k", b"3", recreated, recreated)
    assert backend.current_revision() == recreated == deleted + 1


async def test_reads_at_each_past_revision_see_the_state_then(backend: Backend) -> None:
    """get at revision R returns the version that was current right after write R."""
    first = await backend.create("/k", b"v1")
    second = await backend.update("/k", b"v2", mod_revision=first)
    third = await backend.delete("/k", mod_revision=second)
    fourth = await backend.create("/k", b"v4")
    expected: dict[int, bytes | None] = {first: b"v1", second: b"v2", third: None, fourth: b"v4"}
    for revision, value in expected.items():
        kv = await backend.get("/k", revision=revision)
        assert (kv.value if kv else None) == value


async def test_failed_writes_do_not_consume_revisions(backend: Backend) -> None:
    """A rejected create or guarded update leaves no gap in the revision sequence."""
    created = await backend.create("/k", b"1")
    failures: list[StorageError] = []
    for attempt in (
        backend.create("/k", b"again"),
        backend.update("/k", b"2", mod_revision=created + 5),
        backend.delete("/missing", mod_revision=3),
    ):
        with pytest.raises(StorageError) as caught:
            await attempt
        failures.append(caught.value)
    assert [type(f) for f in failures] == [KeyExistsError, RevisionMismatchError, RevisionMismatchError]
    assert await backend.create("/next", b"") == created + 1


async def test_a_read_beyond_the_current_revision_is_refused(backend: Backend) -> None:
    """Reading at a revision not yet written raises FutureRevisionError naming the current one."""
    revision = await backend.create("/k", b"1")
    with pytest.raises(FutureRevisionError) as caught:
        await backend.get("/k", revision=revision + 1)
    assert caught.value.current == revision
    with pytest.raises(FutureRevisionError):
        await backend.range("/", revision=revision + 1)


async def test_an_empty_store_is_at_revision_zero(backend: Backend) -> None:
    """A fresh store reports revision 0 and its first write gets revision 1."""
    assert backend.current_revision() == 0
    assert (await backend.range("")).kvs == []
    assert await backend.create("/k", b"") == 1
