"""Waiting for a condition to hold, with a deadline, in threads and in coroutines alike.

A test that needs something to become true polls it rather than sleeping a fixed time: it is as fast
as the system under test and fails with what it waited for when the deadline passes. `check` returns
a truthy value when done, and that value is returned (so `eventually(lambda: find(x))` yields x);
with `until`, `check` reads a value and `until(value)` says whether it is the one awaited, so a
failure shows the last value read (`eventually(lambda: get(binding), until=is_scheduled)`).

The pause between two checks is as long as the last check took, between 10 and 200 ms: reading
memory is polled every 10 ms, running kubectl (a process, ~100 ms) at most half the time, so the
poller never takes the CPU the processes under test need on a small machine.

`eventually` (threads) waits 30 s by default — it mostly polls real processes, whose start and
convergence a loaded machine slows — and `eventually_async` 10 s, mostly polling in-process state.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

T = TypeVar("T")

MIN_PAUSE = 0.01
MAX_PAUSE = 0.2


def _pause(spent: float) -> float:
    return min(MAX_PAUSE, max(MIN_PAUSE, spent))


def _holds(value: Any, until: Callable[[Any], bool] | None) -> bool:
    return bool(until(value) if until is not None else value)


def _failure(what: str, timeout: float, value: object) -> AssertionError:
    return AssertionError(f"{what} did not hold within {timeout}s (last value: {value!r})")


def eventually(
    check: Callable[[], T | None],
    *,
    until: Callable[[T], bool] | None = None,
    timeout: float = 30.0,
    what: str = "the condition",
) -> T:
    """Call `check` until its value is truthy (or satisfies `until`), and return it; fail after
    `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        started = time.monotonic()
        value = check()
        if _holds(value, until):
            return value  # type: ignore[return-value]
        if time.monotonic() > deadline:
            raise _failure(what, timeout, value)
        time.sleep(_pause(time.monotonic() - started))


async def eventually_async(
    check: Callable[[], T | Awaitable[T | None] | None],
    *,
    until: Callable[[T], bool] | None = None,
    timeout: float = 10.0,
    what: str = "the condition",
) -> T:
    """`eventually` for coroutines: `check` may be a plain function or return an awaitable."""
    deadline = time.monotonic() + timeout
    while True:
        started = time.monotonic()
        value = check()
        if isinstance(value, Awaitable):
            value = await value
        if _holds(value, until):
            return value  # type: ignore[return-value]
        if time.monotonic() > deadline:
            raise _failure(what, timeout, value)
        await asyncio.sleep(_pause(time.monotonic() - started))
