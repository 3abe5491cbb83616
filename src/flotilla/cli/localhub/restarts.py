"""When `flotilla up` restarts a component that died, and when it calls the dying a crash loop.

Once the local hub is Ready, `up` supervises its children the way a kubelet supervises containers:
a component that exits unexpectedly is started again after a delay, while the others keep running
(the API server keeps serving while the controller manager comes back, and the controller manager
and the sim reconnect by themselves while the API server does). The delay starts at one second and
doubles with each crash up to thirty seconds; a component that ran for a minute before crashing
starts again from one second, so one crash a day never waits long. Five crashes within two minutes
are a crash loop: `up` says so once, pointing at the log, rather than restarting silently for ever,
and keeps trying at the longest delay.

This module is the pure part — the decision for one component's crash at a given time; the clock
is a parameter — so it is tested without processes. `supervisor.py` acts on the decisions.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class RestartPolicy:
    initial_delay: float = 1.0
    """Seconds before the first restart."""
    max_delay: float = 30.0
    """The delay doubles per crash up to this."""
    healthy_after: float = 60.0
    """A component that ran this long before crashing starts again from `initial_delay`."""
    loop_crashes: int = 5
    """This many crashes…"""
    loop_window: float = 120.0
    """…within this many seconds are a crash loop."""


@dataclass(frozen=True, slots=True)
class RestartDecision:
    delay: float
    """Seconds to wait before starting the component again."""
    crashes_in_window: int
    """Crashes within the policy's window, this one included."""
    crash_loop_began: bool
    """This crash made it a crash loop (reported once per loop)."""


@dataclass(slots=True)
class RestartHistory:
    """One component's crashes, and the delay its next restart waits."""

    policy: RestartPolicy = field(default_factory=RestartPolicy)
    _delay: float = 0.0
    _crashes: deque[float] = field(default_factory=deque)
    _in_loop: bool = False

    def crashed(self, *, started_at: float, now: float) -> RestartDecision:
        """Record a crash at `now` of the run that began at `started_at` (monotonic seconds)."""
        policy = self.policy
        if now - started_at >= policy.healthy_after or not self._delay:
            self._delay = policy.initial_delay
        else:
            self._delay = min(self._delay * 2, policy.max_delay)
        self._crashes.append(now)
        while self._crashes and now - self._crashes[0] > policy.loop_window:
            self._crashes.popleft()
        looping = len(self._crashes) >= policy.loop_crashes
        began = looping and not self._in_loop
        self._in_loop = looping
        return RestartDecision(self._delay, len(self._crashes), began)


def describe_window(seconds: float) -> str:
    """`2 minutes`, `90 seconds`: the crash-loop window as the report says it."""
    if seconds >= 60 and seconds % 60 == 0:
        minutes = int(seconds // 60)
        return f"{minutes} minute{'s' if minutes != 1 else ''}"
    return f"{seconds:g} seconds"
