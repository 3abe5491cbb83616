"""The CronFederatedHPA controller's clock, which tests may run faster than real time.

Cron rules run on wall-clock minutes at the earliest; an integration test cannot wait for them.
`flotilla controller-manager --cron-federated-hpa-clock-rate N` (a hidden flag, for tests only)
gives the CronFederatedHPA controller a clock that starts at the real time and then moves N times
faster, so a rule `* * * * *` fires every 60/N real seconds. Only that controller reads it:
every other controller, and the FederatedHPA's windows, keep real time. Rate 1 is the clock given.
"""

from __future__ import annotations

from datetime import datetime

from flotilla.runtime.clock import Clock


class ScaledClock:
    """`base`'s time, moving `rate` times faster from the moment this clock was made."""

    def __init__(self, base: Clock, rate: float) -> None:
        if rate <= 0:
            raise ValueError(f"a clock rate must be positive, not {rate}")
        self.base = base
        self.rate = rate
        self._origin = base.now()

    def now(self) -> datetime:
        return self._origin + (self.base.now() - self._origin) * self.rate

    def real_seconds(self, seconds: float) -> float:
        """How many seconds of `base` time `seconds` of this clock take."""
        return seconds / self.rate
