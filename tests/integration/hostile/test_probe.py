"""The watchdog itself: it sees a responsive server as responsive, and a slow answer as a stall."""

from __future__ import annotations

import pytest

from tests.integration.hostile.probe import Probe
from tests.support.waiting import eventually


def test_a_responsive_server_passes_the_watchdog(probe: Probe) -> None:
    """Plain requests while the watchdog runs: /readyz stays fast and is asked more than once."""
    with probe.responsiveness() as watch:
        for _ in range(10):
            assert probe.send("GET", "/api/v1/namespaces").status == 200
    assert watch.answers >= 1


def test_a_stalled_server_fails_the_watchdog(probe: Probe) -> None:
    """A limit no answer can meet stands in for a stall: the watchdog must report it."""

    def watched_request() -> None:
        with probe.responsiveness(limit=0.0) as watch:
            probe.send("GET", "/api/v1/namespaces")
            eventually(lambda: watch.answers, what="a /readyz answer")

    with pytest.raises(AssertionError, match="blocked the server"):
        watched_request()
