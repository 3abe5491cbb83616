"""Warning headers by kube's warning recorder's rules, and no header value that cannot be sent."""

from __future__ import annotations

import pytest
from aiohttp import web
from aiohttp.test_utils import make_mocked_request

from flotilla.apiserver.http.responseheaders import (
    MAX_WARNING_BYTES,
    TRUNCATED_WARNING_CHARS,
    escape_unsafe,
    make_headers_safe,
    warning_values,
)


def test_warnings_are_written_once_each_quoted_with_code_299() -> None:
    values = warning_values(['unknown field "spec.x"', "", 'unknown field "spec.x"', "a\\b"])
    assert values == ['299 - "unknown field \\"spec.x\\""', '299 - "a\\\\b"']


def test_control_characters_are_escaped_so_the_header_can_be_sent() -> None:
    """The D5 name: a field called "\\x01" (and DEL, C1 controls, a newline) never reaches a header raw."""
    (value,) = warning_values(["unknown field \x01\x7f\x85\nend"])
    assert value == '299 - "unknown field \\\\x01\\\\x7f\\\\u0085\\\\x0aend"'
    assert value.isprintable()


def test_printable_text_in_any_script_is_kept() -> None:
    assert warning_values(["champ inconnu « é »"]) == ['299 - "champ inconnu « é »"']


def test_past_4_kib_each_warning_is_cut_to_256_characters_until_4_kib_are_written() -> None:
    texts = [f"{index:03d} " + "w" * 600 for index in range(40)]
    values = warning_values(texts)
    assert all(len(value) == len('299 - ""') + TRUNCATED_WARNING_CHARS for value in values)
    written = sum(len(value.encode()) for value in values)
    assert MAX_WARNING_BYTES <= written < MAX_WARNING_BYTES + len(values[0])
    assert [value[7:10] for value in values] == [f"{index:03d}" for index in range(len(values))]


def test_warnings_that_fit_are_not_cut() -> None:
    texts = ["x" * 1000, "y" * 1000]
    assert warning_values(texts) == [f'299 - "{text}"' for text in texts]


@pytest.mark.parametrize(
    ("text", "safe"),
    [("plain", "plain"), ("tab\tkept", "tab\tkept"), ("a\x00b", "a\\x00b"), ("\udcff\udcfe", "\ufffd\ufffd")],
)
def test_unsafe_characters_are_escaped_and_undecodable_bytes_replaced(text: str, safe: str) -> None:
    assert escape_unsafe(text) == safe


async def test_no_header_value_that_aiohttp_would_refuse_is_left_before_sending() -> None:
    request = make_mocked_request("GET", "/")
    response = web.Response()
    response.headers["Audit-Id"] = "id\x01\udcff"
    response.headers.add("Warning", '299 - "one"')
    response.headers.add("Warning", '299 - "two"')
    await make_headers_safe(request, response)
    assert response.headers["Audit-Id"] == "id\\x01\ufffd"
    assert response.headers.getall("Warning") == ['299 - "one"', '299 - "two"']
