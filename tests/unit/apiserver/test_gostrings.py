"""Go's %q quoting of field names in kube's messages."""

from __future__ import annotations

import pytest

from flotilla.apiserver.gostrings import go_quote


@pytest.mark.parametrize(
    ("text", "quoted"),
    [
        ("spec.replicas", '"spec.replicas"'),
        ("\x01", '"\\x01"'),
        ('say "hi"\\', '"say \\"hi\\"\\\\"'),
        ("line\nbreak\ttab", '"line\\nbreak\\ttab"'),
        ("é ünïcode", '"é ünïcode"'),
        ("zero\u200bwidth", '"zero\\u200bwidth"'),
        ("\x7f", '"\\x7f"'),
        ("\U000e0001", '"\\U000e0001"'),
    ],
)
def test_go_quote_escapes_what_is_not_printable(text: str, quoted: str) -> None:
    assert go_quote(text) == quoted
