"""How fast the taint manager evicts: a token bucket of `--resource-eviction-rate` evictions per second.

Karmada limits evictions to 0.5 bindings per second by default, so 300 workloads take ten minutes
to leave a dead member. The limit is kept — a flag mistake that taints every cluster should not turn
into a storm of binding writes — but its default is high (`ManagerSettings.resource_eviction_rate`):
each eviction is one binding write, which the hub takes by the hundreds per second. A bucket holds
one second's worth of evictions, so a burst up to the rate goes through at once.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable


class EvictionRate:
    """A token bucket: `rate` evictions a second on average, up to `rate` (at least one) at once."""

    def __init__(self, rate: float, *, monotonic: Callable[[], float] = time.monotonic) -> None:
        if rate <= 0:
            raise ValueError(f"the eviction rate must be above 0, not {rate}")
        self._rate = rate
        self._burst = max(rate, 1.0)
        self._tokens = self._burst
        self._monotonic = monotonic
        self._updated = monotonic()

    def reserve(self) -> float:
        """Take the next eviction's token; the seconds to wait before evicting (0: at once)."""
        now = self._monotonic()
        self._tokens = min(self._burst, self._tokens + (now - self._updated) * self._rate)
        self._updated = now
        self._tokens -= 1.0
        return 0.0 if self._tokens >= 0 else -self._tokens / self._rate

    async def wait(self) -> None:
        delay = self.reserve()
        if delay > 0:
            await asyncio.sleep(delay)
