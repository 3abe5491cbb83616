"""The collector pacing of long-running processes: thresholds while serving, timed full collections."""

from __future__ import annotations

import asyncio
import gc

from flotilla.runtime.garbage import MIDDLE_THRESHOLD, CollectorPacing
from tests.support.waiting import eventually_async


async def test_start_takes_full_collections_off_the_allocation_trigger_and_stop_restores() -> None:
    """While paced, young collections are rarer and full ones never triggered by allocations."""
    before = gc.get_threshold()
    pacing = CollectorPacing(interval=60.0, young_threshold=12_345)
    pacing.start()
    try:
        young, middle, full = gc.get_threshold()
        assert (young, middle) == (12_345, MIDDLE_THRESHOLD)
        assert full > 1_000_000
    finally:
        pacing.stop()
    assert gc.get_threshold() == before


async def test_start_freezes_what_was_built_before_it_and_stop_thaws_it() -> None:
    """The start-up heap is left out of later collections (the hub's full collections stopped it
    75-90 ms each, 1-2 ms once frozen); objects made after start are still collected."""
    built_at_start_up = {"schemas": [{"n": index} for index in range(1000)]}
    pacing = CollectorPacing(interval=60.0)
    pacing.start()
    try:
        assert gc.get_freeze_count() > 1000
        assert not any(o is built_at_start_up for o in gc.get_objects())
        made_later = [[0]]
        assert any(o is made_later for o in gc.get_objects())
    finally:
        pacing.stop()
    assert gc.get_freeze_count() == 0
    assert any(o is built_at_start_up for o in gc.get_objects())


async def test_the_timer_runs_full_collections_that_reclaim_cycles() -> None:
    """Cyclic garbage that outlived the young generations is reclaimed by the timed collection."""

    class Node:
        def __init__(self) -> None:
            self.other: Node | None = None

    pacing = CollectorPacing(interval=0.05)
    pacing.start()
    try:
        first, second = Node(), Node()
        first.other, second.other = second, first
        gc.collect(1)  # move the cycle past the young generation, as long-lived garbage is
        alive = {id(first), id(second)}
        del first, second
        # A full collection of a big test process takes a while.
        await eventually_async(lambda: pacing.full_collections >= 2, what="two timed full collections")
        assert not alive & {id(o) for o in gc.get_objects() if isinstance(o, Node)}
    finally:
        pacing.stop()


async def test_stop_cancels_the_timer() -> None:
    """No full collection runs after stop."""
    pacing = CollectorPacing(interval=0.02)
    pacing.start()
    pacing.stop()
    # A quiet window, as short as sound: timers run in the order they fall due, and a tick the stop
    # failed to cancel was due one interval after start, before this sleep ends.
    await asyncio.sleep(pacing.interval * 1.5)
    assert pacing.full_collections == 0
