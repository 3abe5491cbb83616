"""PeriodicTask: work on a timer that survives a failing round and stops when asked."""

from __future__ import annotations

import asyncio

from flotilla.runtime.periodic import PeriodicTask
from tests.support.waiting import eventually_async


async def test_the_work_runs_after_the_first_delay_then_every_interval() -> None:
    """Three rounds arrive, the first without waiting a whole interval."""
    rounds: list[float] = []
    loop = asyncio.get_running_loop()
    task = PeriodicTask("ticks", lambda: rounds.append(loop.time()), 0.01, first_delay=0.0)
    task.start()
    try:
        await eventually_async(lambda: len(rounds) >= 3, what="three rounds")
    finally:
        await task.stop()
    assert not task.running


async def test_a_failing_round_is_logged_and_the_timer_goes_on() -> None:
    """An exception ends one round, not the timer; coroutines are awaited."""
    seen: list[int] = []

    async def flaky() -> None:
        seen.append(len(seen))
        if len(seen) == 1:
            raise RuntimeError("first round fails")

    task = PeriodicTask("flaky", flaky, 0.01, first_delay=0.0)
    task.start()
    try:
        await eventually_async(lambda: len(seen) >= 2, what="a round after the failure")
    finally:
        await task.stop()


async def test_stop_cancels_a_round_in_progress_and_start_is_idempotent() -> None:
    """stop() ends a round that is still waiting; starting twice runs one loop."""
    started = asyncio.Event()

    async def slow() -> None:
        started.set()
        await asyncio.sleep(60)

    task = PeriodicTask("slow", slow, 60.0, first_delay=0.0)
    task.start()
    task.start()
    await asyncio.wait_for(started.wait(), 5)
    await task.stop()
    assert not task.running
