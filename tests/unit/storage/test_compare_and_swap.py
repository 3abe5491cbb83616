"""Compare-and-swap and reads, as a hypothesis state machine run against each backend and the model.

Every rule does the same thing to the backend and to `ReferenceStore` and requires the same
answer: the same revision, or the same error carrying the same current version. Reads are made at
past revisions as well as the latest, and ranges are paged through with `limit` and `start_after`.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule, run_state_machine_as_test

from flotilla.storage.backend import Backend, KeyExistsError, KeyNotFoundError, RevisionMismatchError
from tests.unit.storage.backends import CONTRACT_KINDS, BackendKind, fresh_database, model_for, new_backend
from tests.unit.storage.operations import (
    Create,
    Delete,
    Guard,
    Update,
    apply,
    guards,
    keys,
    prefixes,
    read_pages,
    values,
)

past = st.integers(min_value=0, max_value=12)  # how many revisions back to read; 0 = the latest


class CompareAndSwapMachine(RuleBasedStateMachine):
    """One backend and the model, driven through the same writes and reads in one event loop."""

    def __init__(self, kind: BackendKind, directory: Path) -> None:
        super().__init__()
        self.loop = asyncio.new_event_loop()
        self.backend: Backend = new_backend(kind, fresh_database(directory))
        self.loop.run_until_complete(self.backend.start())
        self.model = self.loop.run_until_complete(model_for(self.backend))

    def revision_back(self, back: int) -> int:
        """A past revision `back` writes ago (not before the model starts); 0 is the latest."""
        return max(self.model.revision - back, self.model.start) if back else 0

    @rule(key=keys, value=values)
    def create(self, key: str, value: bytes) -> None:
        self.loop.run_until_complete(apply(self.backend, self.model, Create(key, value)))

    @rule(key=keys, value=values, guard=guards)
    def update(self, key: str, value: bytes, guard: Guard) -> None:
        self.loop.run_until_complete(apply(self.backend, self.model, Update(key, value, guard)))

    @rule(key=keys, guard=guards)
    def delete(self, key: str, guard: Guard) -> None:
        self.loop.run_until_complete(apply(self.backend, self.model, Delete(key, guard)))

    @rule(key=keys, back=past)
    def get(self, key: str, back: int) -> None:
        revision = self.revision_back(back)
        got = self.loop.run_until_complete(self.backend.get(key, revision=revision))
        assert got == self.model.get(key, revision=revision)

    @rule(prefix=prefixes, limit=st.integers(min_value=1, max_value=4), back=past)
    def range_in_pages(self, prefix: str, limit: int, back: int) -> None:
        revision = self.revision_back(back)
        pages = self.loop.run_until_complete(read_pages(self.backend, prefix, limit=limit, revision=revision))
        listed = [kv for page in pages for kv in page]
        assert listed == self.model.range(prefix, revision=revision).kvs
        assert len({kv.key for kv in listed}) == len(listed)

    @rule(prefix=prefixes, back=past)
    def range_whole(self, prefix: str, back: int) -> None:
        revision = self.revision_back(back)
        got = self.loop.run_until_complete(self.backend.range(prefix, revision=revision))
        assert got == self.model.range(prefix, revision=revision)

    @invariant()
    def current_revision_is_the_last_acknowledged_write(self) -> None:
        assert self.backend.current_revision() == self.model.revision

    def teardown(self) -> None:
        self.loop.run_until_complete(self.backend.close())
        self.loop.run_until_complete(self.loop.shutdown_asyncgens())
        self.loop.close()


@pytest.mark.parametrize("kind", CONTRACT_KINDS)
def test_backend_agrees_with_the_model_on_every_write_and_read(kind: BackendKind, tmp_path: Path) -> None:
    """Guarded writes, past reads and paged ranges give the model's answers on both backends."""

    class Machine(CompareAndSwapMachine):
        def __init__(self) -> None:
            super().__init__(kind, tmp_path)

    run_state_machine_as_test(
        Machine,
        settings=settings(max_examples=80, stateful_step_count=40, deadline=None),
    )


async def test_a_stale_update_reports_the_current_version(backend: Backend) -> None:
    """An update guarded by an old mod revision fails and names the version that beat it."""
    first = await backend.create("/k", b"1")
    second = await backend.update("/k", b"2", mod_revision=first)
    with pytest.raises(RevisionMismatchError) as caught:
        await backend.update("/k", b"3", mod_revision=first)
    assert caught.value.expected == first
    assert caught.value.current == await backend.get("/k")
    assert caught.value.current is not None
    assert caught.value.current.mod_revision == second


async def test_a_guarded_write_to_a_missing_key_is_a_mismatch_with_no_current(backend: Backend) -> None:
    """Updating or deleting an absent key with a mod revision raises a mismatch whose current is None."""
    created = await backend.create("/k", b"1")
    await backend.delete("/k", mod_revision=created)
    for attempt in (
        backend.update("/k", b"2", mod_revision=created),
        backend.delete("/k", mod_revision=created),
    ):
        with pytest.raises(RevisionMismatchError) as caught:
            await attempt
        assert caught.value.current is None


async def test_an_unguarded_write_to_a_missing_key_is_not_found(backend: Backend) -> None:
    """Updating or deleting an absent key with mod revision 0 raises KeyNotFoundError."""
    for attempt in (
        backend.update("/nothing", b"", mod_revision=0),
        backend.delete("/nothing", mod_revision=0),
    ):
        with pytest.raises(KeyNotFoundError):
            await attempt


async def test_an_unguarded_update_overwrites_whatever_is_there(backend: Backend) -> None:
    """mod revision 0 skips the comparison but keeps the key's create revision."""
    created = await backend.create("/k", b"1")
    await backend.update("/k", b"2", mod_revision=created)
    revision = await backend.update("/k", b"3", mod_revision=0)
    kv = await backend.get("/k")
    assert kv is not None
    assert (kv.value, kv.create_revision, kv.mod_revision) == (b"3", created, revision)


async def test_creating_an_existing_key_fails(backend: Backend) -> None:
    """create is create-if-absent: a second create of a live key raises KeyExistsError."""
    await backend.create("/k", b"1")
    with pytest.raises(KeyExistsError):
        await backend.create("/k", b"2")
    kv = await backend.get("/k")
    assert kv is not None
    assert kv.value == b"1"
