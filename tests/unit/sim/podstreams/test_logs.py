"""What a log answer holds: the last lines asked for, each stamped as kubelet stamps them."""

from __future__ import annotations

from datetime import UTC, datetime

from flotilla.sim.podstreams.logs import stamped, tail


def test_tail_keeps_the_last_lines() -> None:
    data = b"one\ntwo\nthree\n"
    assert tail(data, None) == data
    assert tail(data, 2) == b"two\nthree\n"
    assert tail(data, 0) == b""
    assert tail(data, 10) == data


def test_timestamps_prefix_every_line_in_rfc3339_with_nanoseconds() -> None:
    when = datetime(2026, 12, 2, 23, 50, 1, 123456, tzinfo=UTC).timestamp()
    assert stamped(b"a\nb\n", when) == (
        b"2026-12-02T23:50:01.123456000Z a\n2026-12-02T23:50:01.123456000Z b\n"
    )
