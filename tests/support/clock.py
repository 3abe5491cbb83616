"""A clock that moves only when a test says so, in every shape Flotilla's components ask for time.

Components take time as a parameter (STYLE.md: time comes from an injected clock so tests don't
sleep), in three shapes: a `Clock` with `now()` (runtime, controllers, agent, sim), a plain
`Callable[[], datetime]` (the API server's context, strategies, authenticators, audit), and a
`monotonic: Callable[[], float]` (the controller loop, leader election). One `ManualClock` is all
three — pass `clock`, `clock` or `clock.monotonic` — so a test that needs an hour to pass calls
`advance(3600)` instead of sleeping, and every component it drives sees the same hour go by.
"""

from __future__ import annotations

from datetime import UTC, datetime

from flotilla.runtime import clock as runtime_clock

START = datetime(2026, 1, 1, tzinfo=UTC)


class ManualClock(runtime_clock.ManualClock):
    """`now()` and `advance(seconds)` (the runtime's `ManualClock`), callable, with a monotonic face."""

    def __init__(self, start: datetime = START) -> None:
        super().__init__(start)
        self._start = start

    def __call__(self) -> datetime:
        """The current time, for components that take a `Callable[[], datetime]`."""
        return self.now()

    def monotonic(self) -> float:
        """Seconds advanced since the start, for components that take a `monotonic` function."""
        return (self.now() - self._start).total_seconds()
