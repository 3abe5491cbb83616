"""The work queue's idle state: what a test waits for before asserting that a controller did nothing."""

from __future__ import annotations

from flotilla.runtime.workqueue import WorkQueue


async def test_a_queue_is_idle_only_once_every_added_key_is_done() -> None:
    """Queued and in-process keys keep it busy; a key added again while processed keeps it busy after done."""
    queue: WorkQueue[str] = WorkQueue()
    assert queue.idle
    queue.add("a")
    assert not queue.idle
    key = await queue.get()
    assert not queue.idle
    queue.add("a")
    queue.done(key)
    assert not queue.idle, "added while processed: it goes round once more"
    queue.done(await queue.get())
    assert queue.idle


async def test_a_key_waiting_on_a_delay_leaves_the_queue_idle() -> None:
    """A key scheduled for later is not work to do now."""
    queue: WorkQueue[str] = WorkQueue()
    queue.add_after("later", 60)
    assert queue.idle
    queue.shutdown()
