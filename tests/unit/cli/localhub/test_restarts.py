"""When `flotilla up` restarts a component that died: backoff, its reset, and crash loops."""

from __future__ import annotations

from flotilla.cli.localhub.restarts import RestartHistory, RestartPolicy, describe_window


def crash_after(history: RestartHistory, ran: float, now: float) -> tuple[float, int, bool]:
    decision = history.crashed(started_at=now - ran, now=now)
    return decision.delay, decision.crashes_in_window, decision.crash_loop_began


def test_the_delay_starts_at_one_second_and_doubles_up_to_thirty() -> None:
    """Crash after crash, each a second after its restart: 1, 2, 4, 8, 16, 30, 30."""
    history = RestartHistory()
    delays = []
    now = 0.0
    for _ in range(7):
        now += 100.0  # far apart: no crash loop, but each run was short
        delays.append(crash_after(history, 1.0, now)[0])
    assert delays == [1, 2, 4, 8, 16, 30, 30]


def test_a_component_that_ran_a_minute_starts_again_from_one_second() -> None:
    """A long healthy run resets the backoff."""
    history = RestartHistory()
    assert crash_after(history, 1.0, 10.0)[0] == 1
    assert crash_after(history, 1.0, 20.0)[0] == 2
    assert crash_after(history, 1.0, 30.0)[0] == 4
    assert crash_after(history, 60.0, 200.0)[0] == 1


def test_five_crashes_in_two_minutes_are_reported_once_as_a_crash_loop() -> None:
    """The fifth crash within the window begins the loop; the sixth does not report it again."""
    history = RestartHistory()
    began = [crash_after(history, 1.0, float(t))[2] for t in (0, 10, 20, 30, 40, 50)]
    assert began == [False, False, False, False, True, False]
    assert crash_after(history, 1.0, 55.0)[1] == 7


def test_a_loop_that_calmed_down_is_reported_again_when_it_starts_again() -> None:
    """Once fewer crashes than the threshold remain in the window, the next loop is a new one."""
    history = RestartHistory(RestartPolicy(loop_crashes=2, loop_window=10.0))
    assert crash_after(history, 1.0, 0.0)[2] is False
    assert crash_after(history, 1.0, 5.0)[2] is True
    assert crash_after(history, 1.0, 100.0)[2] is False
    assert crash_after(history, 1.0, 101.0)[2] is True


def test_the_window_reads_as_minutes_or_seconds() -> None:
    assert describe_window(120.0) == "2 minutes"
    assert describe_window(60.0) == "1 minute"
    assert describe_window(90.0) == "90 seconds"
