"""Waiting for a condition to hold, with a deadline, in threads and in coroutines alike.

A test that needs something to become true polls it rather than sleeping a fixed time: it is as fast
as the system under test and fails with what it waited for when the deadline passes. `check` returns
a truthy value when done, and that value is returned (so `eventually(lambda: find(x))` yields x).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import TypeVar

T = TypeVar("T")

POLL_SECONDS = 0.05


def eventually(check: Callable[[], T | None], *, timeout: float = 10.0, what: str = "the condition") -> T:
    """Call `check` until it returns something truthy, and return it; fail after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} did not hold within {timeout}s (last value: {value!r})")
        time.sleep(POLL_SECONDS)


async def eventually_async(
    check: Callable[[], T | Awaitable[T | None] | None], *, timeout: float = 10.0, what: str = "the condition"
) -> T:
    """`eventually` for coroutines: `check` may be a plain function or return an awaitable."""
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if isinstance(value, Awaitable):
            value = await value
        if value:
            return value  # type: ignore[return-value]
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} did not hold within {timeout}s (last value: {value!r})")
        await asyncio.sleep(POLL_SECONDS)
