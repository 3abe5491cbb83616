"""Running one component in the foreground until SIGTERM or Ctrl-C, as every component command does.

The component starts (a failure to start is `cannot start: <what to fix>`, not a traceback), the
garbage collector is paced (`runtime/garbage.py`) before the ready line goes to stderr — the line
`flotilla up` and the tests wait for — and on SIGTERM or SIGINT the component stops cleanly. The
loop is uvloop's where it is installed.
"""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Callable
from typing import Protocol

import click


class Component(Protocol):
    """A long-running part of Flotilla that can be started and stopped."""

    async def start(self) -> None: ...

    async def stop(self) -> None: ...


def run_until_signalled(server: Component, ready: Callable[[], str]) -> None:
    """Run a component until SIGTERM or SIGINT, then stop it cleanly."""

    async def main() -> None:
        from flotilla.runtime.garbage import CollectorPacing

        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, stop.set)
        try:
            await server.start()
        except Exception as exc:
            await server.stop()
            raise click.ClickException(f"cannot start: {exc}") from exc
        pacing = CollectorPacing()
        pacing.start()  # before saying ready: it starts with a full collection of the start-up heap
        click.echo(ready(), err=True)
        try:
            await stop.wait()
        finally:
            pacing.stop()
        await server.stop()

    try:
        import uvloop

        uvloop.run(main())
    except ImportError:
        asyncio.run(main())
