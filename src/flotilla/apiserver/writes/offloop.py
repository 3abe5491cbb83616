"""Where a write's CPU-heavy steps run: on the event loop for small objects, in a worker thread for big ones.

Decoding fields against the schema, recording field ownership and validating grow with the number of
fields, and a 1.4 MB ConfigMap of 60,000 keys held the event loop — every other request — for about
a second. Above `OFF_LOOP_BYTES` of JSON these steps run in a worker thread, which hands the
interpreter back to the loop every few milliseconds; below it they stay on the loop, where a thread
hop would cost more than the work. The steps only read shared state that never changes in place
(schemas, cached objects), and the object they work on is the request's own.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TypeVar

OFF_LOOP_BYTES = 128 * 1024
"""Objects (or request bodies) bigger than this are worked on off the loop."""

T = TypeVar("T")


async def on_or_off_loop(off_loop: bool, work: Callable[[], T]) -> T:
    """`work()`, in a worker thread when `off_loop` (the interpreter is handed back to the loop every
    few milliseconds meanwhile), else right here."""
    return await asyncio.to_thread(work) if off_loop else work()
