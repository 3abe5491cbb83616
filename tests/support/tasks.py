"""Naming an asyncio task so that a leak report says which one and where it waits."""

from __future__ import annotations

import asyncio


def describe_task(task: asyncio.Task[object]) -> str:
    """`name: coroutine (waiting at file:line)` — what a report of a task left behind shows."""
    coroutine = task.get_coro()
    qualname = getattr(coroutine, "__qualname__", repr(coroutine))
    where = ""
    frames = task.get_stack(limit=1)
    if frames:
        code = frames[-1].f_code
        where = f" (waiting at {code.co_filename}:{frames[-1].f_lineno} in {code.co_name})"
    return f"{task.get_name()}: {qualname}{where}"
