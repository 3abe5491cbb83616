"""What every test gets: a failure when an async test leaves asyncio tasks running behind it.

STYLE.md's structured concurrency says every task belongs to a TaskGroup or to a component's
`run()`, and is over when its owner stops. A task still pending once a test and its fixtures have
finished is one nobody stops: in production it outlives the component that started it (a `stop()`
that cancels without awaiting, a forgotten background loop). pytest-asyncio would cancel it quietly
when it closes the test's loop, so the check runs just before, in that loop (one per test here:
`asyncio_mode = auto`, function scope), and names each task left behind.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
from pytest_asyncio import is_async_test

from tests.support.tasks import describe_task


@pytest.fixture(autouse=True)
def no_leaked_tasks(request: pytest.FixtureRequest) -> None:
    """Fail an async test that leaves asyncio tasks pending (sync tests have no loop to check)."""
    if is_async_test(request.node):
        # Requested first, so torn down last: after the test's own fixtures have stopped what they
        # started, and before pytest-asyncio closes the loop.
        request.getfixturevalue(tasks_left_behind.__name__)


@pytest.fixture
async def tasks_left_behind() -> AsyncIterator[None]:
    """The check itself, in the test's loop: tasks pending at the end that were not there at the start."""
    before = asyncio.all_tasks()
    yield
    this = asyncio.current_task()
    left = sorted(
        (task for task in asyncio.all_tasks() - before if task is not this and not task.done()),
        key=lambda task: task.get_name(),
    )
    if left:
        listed = "\n".join(f"  {describe_task(task)}" for task in left)
        pytest.fail(f"the test left {len(left)} asyncio task(s) pending:\n{listed}", pytrace=False)
