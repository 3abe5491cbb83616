"""`CacheController`: an in-process controller fed by one API server's watch cache.

Every committed change reaches the cache's listeners once; a controller maps it to keys and
reconciles them on the runtime's loop (`flotilla.runtime.eventdriven`). Keys are whatever the
controller chooses (an object name, a namespace, a uid).
"""

from __future__ import annotations

from typing import Any

from flotilla.apiserver.store.watchcache import CacheEvent, WatchCache
from flotilla.runtime.eventdriven import EventDrivenController


class CacheController(EventDrivenController[CacheEvent, Any]):
    def __init__(self, cache: WatchCache) -> None:
        super().__init__(cache.add_listener)
