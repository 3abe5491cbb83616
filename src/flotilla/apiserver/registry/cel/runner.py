"""Where a write's rules run: on the event loop while they are cheap, else on a worker thread.

Most rules cost a few hundred units (microseconds); a rule over a large list can cost millions, and
a Python evaluation of 10,000,000 units (the per-object limit) takes seconds. So an evaluation
starts on the event loop with a small slice of budget (`INLINE_COST`, a few milliseconds), and one
that needs more starts over on the API server's single rules thread with the full budgets: the
loop keeps answering (/readyz included) while it runs, and one thread bounds how much of the
machine rule evaluation can take at once.
"""

from __future__ import annotations

import asyncio
import functools
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import structlog

from flotilla.api.fielderrors import FieldError
from flotilla.apiserver.registry.cel.budget import CostExceeded
from flotilla.apiserver.registry.cel.rules import RuleNode, validate

INLINE_COST = 20_000
"""Cost units evaluated on the event loop before moving to the rules thread (~10 ms here)."""
log = structlog.get_logger("flotilla.apiserver.registry.cel")


class RuleRunner:
    def __init__(self, inline_cost: int = INLINE_COST) -> None:
        self.inline_cost = inline_cost
        self._executor: ThreadPoolExecutor | None = None

    async def validate(
        self, root: RuleNode, obj: dict[str, Any], old: dict[str, Any] | None
    ) -> list[FieldError]:
        """The field errors of `obj`'s rules (`old`: the stored object of an update)."""
        try:
            return validate(root, obj, old, slice_limit=self.inline_cost).errors
        except CostExceeded:
            pass
        if self._executor is None:
            self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="cel-rules")
        log.debug("cel_rules_off_loop", inline_cost=self.inline_cost)
        outcome = await asyncio.get_running_loop().run_in_executor(
            self._executor, functools.partial(validate, root, obj, old)
        )
        return outcome.errors

    def close(self) -> None:
        if self._executor is not None:
            self._executor.shutdown(wait=False, cancel_futures=True)
