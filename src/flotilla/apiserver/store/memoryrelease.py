"""Giving memory back to the system once large objects have left the watch cache's history.

glibc's malloc serves large blocks (the JSON of a 900 KB ConfigMap, its dict's strings) with their
own mappings at first, but once such a block is freed it raises its threshold and serves the next
ones from the heap; a heap whose free space lies between live blocks is not returned to the system.
The process reuses that memory, yet its RSS stays at the high-water mark. `malloc_trim(0)` returns
every free page of the heap; it takes about a millisecond here, so the history calls it each time it
has let go of another `TRIM_EVERY_BYTES` of objects. With it, `bench/history_memory.py` (64 MiB
bound, 400 PUTs of a 900 KB ConfigMap) ends 22 MiB above the start once the versions have left the
history; without it, 60 MiB. Where the C library has no `malloc_trim` this does nothing.
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable

TRIM_EVERY_BYTES = 32 * 1024 * 1024


def _find_malloc_trim() -> Callable[[int], int] | None:
    try:
        libc = ctypes.CDLL(None)
    except OSError:
        return None
    trim: Callable[[int], int] | None = getattr(libc, "malloc_trim", None)
    return trim


def release_now() -> None:
    """Give every free page of the heap back to the system (after a large, passing allocation)."""
    trim = _find_malloc_trim()
    if trim is not None:
        trim(0)


class MemoryRelease:
    """Counts the bytes of objects let go of, and trims the heap after each `every` of them."""

    def __init__(self, every: int = TRIM_EVERY_BYTES) -> None:
        self._every = every
        self._freed = 0
        self._trim = _find_malloc_trim()
        self.trims = 0

    def freed(self, size: int) -> None:
        if self._trim is None:
            return
        self._freed += size
        if self._freed >= self._every:
            self._freed = 0
            self._trim(0)
            self.trims += 1
