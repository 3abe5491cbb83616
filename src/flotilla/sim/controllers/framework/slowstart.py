"""Creating many objects the way kube's controllers do: slow-start batches that stop at a failure.

A controller that needs N pods creates 1, then 2, then 4… at a time (kube's `slowStartBatch`), so
a request that is bound to fail (a quota, a terminating namespace, an invalid template) fails once
rather than N times. The batch in which a creation fails is finished; later batches are skipped.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from flotilla.apiserver import errors

INITIAL_BATCH = 1


async def slow_start(count: int, create_one: Callable[[], Awaitable[None]]) -> int:
    """Run `create_one` up to `count` times in doubling batches; re-raise the first API failure.

    Returns how many succeeded when all did.
    """
    created, batch = 0, INITIAL_BATCH
    while created < count:
        size = min(batch, count - created)
        failure: errors.APIError | None = None
        for _ in range(size):
            try:
                await create_one()
            except errors.APIError as exc:
                failure = failure or exc
                continue
            created += 1
        if failure is not None:
            raise failure
        batch *= 2
    return created
