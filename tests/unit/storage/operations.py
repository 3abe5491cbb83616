"""Generated write sequences, and running one write against a backend and the reference model.

A write is applied to the model first, which says what the backend must answer: the same
revision, or the same error with the same details. Keys come from a small set that nests
(`/a` is a prefix of `/a/x` and of `/ab`), so prefix filters have something to get wrong.
"""

from __future__ import annotations

import asyncio
import enum
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass

from hypothesis import strategies as st

from flotilla.storage.backend import (
    Backend,
    Event,
    KeyExistsError,
    KeyNotFoundError,
    KeyValue,
    RevisionMismatchError,
    StorageError,
)
from tests.unit.storage.backends import close_stream
from tests.unit.storage.model import ReferenceStore

KEYS = ("/a", "/a/x", "/a/y", "/ab", "/b", "/b/x")
PREFIXES = ("", "/a", "/a/", "/b", "/c")

keys = st.sampled_from(KEYS)
prefixes = st.sampled_from(PREFIXES)
values = st.binary(max_size=6)


class Guard(enum.Enum):
    """Which mod revision a guarded write expects."""

    CURRENT = "current"  # the key's latest mod revision (1 when the key is absent)
    STALE = "stale"  # a revision the key is not at
    UNCONDITIONAL = "unconditional"  # 0: no guard


guards = st.sampled_from(Guard)


@dataclass(frozen=True)
class Create:
    key: str
    value: bytes


@dataclass(frozen=True)
class Update:
    key: str
    value: bytes
    guard: Guard


@dataclass(frozen=True)
class Delete:
    key: str
    guard: Guard


Write = Create | Update | Delete

writes: st.SearchStrategy[Write] = st.one_of(
    st.builds(Create, keys, values),
    st.builds(Update, keys, values, guards),
    st.builds(Delete, keys, guards),
)
# Mostly successful writes: what watches and compaction need to have something to see.
landing_writes: st.SearchStrategy[Write] = st.one_of(
    st.builds(Create, keys, values),
    st.builds(Update, keys, values, st.just(Guard.CURRENT)),
    st.builds(Delete, keys, st.just(Guard.CURRENT)),
)


def expected_mod_revision(model: ReferenceStore, key: str, guard: Guard) -> int:
    current = model.latest(key)
    if guard is Guard.UNCONDITIONAL:
        return 0
    if current is None:
        return 1
    if guard is Guard.CURRENT:
        return current.mod_revision
    return current.mod_revision - 1 if current.mod_revision > 1 else current.mod_revision + 1


Outcome = tuple[object, ...]


def describe(error: StorageError) -> Outcome:
    """What a write error must agree on between the backend and the model."""
    if isinstance(error, RevisionMismatchError):
        return ("mismatch", error.key, error.expected, error.current)
    if isinstance(error, KeyExistsError | KeyNotFoundError):
        return (type(error).__name__, error.key)
    return (type(error).__name__, str(error))


def run_on_model(model: ReferenceStore, write: Write) -> Outcome:
    try:
        match write:
            case Create(key, value):
                return ("ok", model.create(key, value))
            case Update(key, value, guard):
                expected = expected_mod_revision(model, key, guard)
                return ("ok", model.update(key, value, mod_revision=expected))
            case Delete(key, guard):
                expected = expected_mod_revision(model, key, guard)
                return ("ok", model.delete(key, mod_revision=expected))
    except StorageError as error:
        return describe(error)


async def run_on_backend(backend: Backend, write: Write, expected: int) -> Outcome:
    try:
        match write:
            case Create(key, value):
                return ("ok", await backend.create(key, value))
            case Update(key, value, _):
                return ("ok", await backend.update(key, value, mod_revision=expected))
            case Delete(key, _):
                return ("ok", await backend.delete(key, mod_revision=expected))
    except StorageError as error:
        return describe(error)


async def apply(backend: Backend, model: ReferenceStore, write: Write) -> Outcome:
    """Run `write` on both; fail unless the backend answers exactly as the model does."""
    expected = (
        expected_mod_revision(model, write.key, write.guard) if isinstance(write, Update | Delete) else 0
    )
    wanted = run_on_model(model, write)
    got = await run_on_backend(backend, write, expected)
    assert got == wanted, f"{write}: backend answered {got}, the model {wanted}"
    return got


async def apply_all(backend: Backend, model: ReferenceStore, sequence: list[Write]) -> None:
    for write in sequence:
        await apply(backend, model, write)


async def read_pages(backend: Backend, prefix: str, *, limit: int, revision: int) -> list[list[KeyValue]]:
    """Page through `prefix` with `start_after`, checking each page's size and `more` flag."""
    pages: list[list[KeyValue]] = []
    start_after = ""
    while True:
        page = await backend.range(prefix, start_after=start_after, limit=limit, revision=revision)
        assert revision in (0, page.revision)
        revision = page.revision  # later pages read the first page's snapshot
        assert len(page.kvs) <= limit
        pages.append(page.kvs)
        if not page.more:
            return pages
        assert len(page.kvs) == limit, "a page that says more remain must be full"
        start_after = page.kvs[-1].key


async def collect_until(
    stream: AsyncIterator[list[Event]], last: Callable[[Event], bool], *, within: float = 5.0
) -> list[list[Event]]:
    """Batches from a watch up to the one holding the `last` event; the watch is closed afterwards."""
    batches: list[list[Event]] = []
    try:
        async with asyncio.timeout(within):
            async for batch in stream:
                batches.append(batch)
                if any(last(event) for event in batch):
                    break
    finally:
        await close_stream(stream)
    return batches


def at_revision(revision: int) -> Callable[[Event], bool]:
    return lambda event: event.revision >= revision


def flatten(batches: list[list[Event]]) -> list[Event]:
    return [event for batch in batches for event in batch]


def run_in_new_loop(scenario: Callable[[], Awaitable[None]]) -> None:
    """Run one hypothesis example in its own event loop (hypothesis drives sync tests)."""

    async def main() -> None:
        await scenario()

    asyncio.run(main())
