"""HTTP/1.1 framing: request heads, and responses framed by length, chunks, status or the connection's end."""

from __future__ import annotations

import gzip
import zlib

import pytest

from flotilla.client.http1 import MalformedResponse, Response, ResponseParser, request_head


def parse(*pieces: bytes, head_request: bool = False) -> Response | None:
    parser = ResponseParser()
    parser.expect(head_request=head_request)
    response = None
    for piece in pieces:
        response = parser.feed(piece)
    return response


def byte_by_byte(data: bytes) -> list[Response]:
    """Every response completed while `data` arrives one byte at a time."""
    parser = ResponseParser()
    parser.expect()
    found = []
    for index in range(len(data)):
        response = parser.feed(data[index : index + 1])
        if response is not None:
            found.append(response)
            parser.expect()
    return found


def test_request_head_is_the_request_line_then_one_header_a_line_then_an_empty_line() -> None:
    """The head ends with CRLF CRLF, so a body can follow it directly."""
    head = request_head("PATCH", "/api/v1/x?a=b", [("Host", "h:1"), ("Content-Length", "2")])
    assert head == b"PATCH /api/v1/x?a=b HTTP/1.1\r\nHost: h:1\r\nContent-Length: 2\r\n\r\n"


def test_a_content_length_body_completes_when_its_last_byte_arrives() -> None:
    """Nothing is returned before the body is whole; header names come back in lower case."""
    wire = b'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 7\r\n\r\n{"a":1}'
    assert parse(wire[:-1]) is None
    response = parse(wire[:-1], wire[-1:])
    assert response == Response(
        200, {"content-type": "application/json", "content-length": "7"}, b'{"a":1}', True
    )


def test_responses_split_at_every_byte_frame_the_same() -> None:
    """Content-Length and chunked responses in a row, fed a byte at a time, come out whole and in order."""
    wire = (
        b"HTTP/1.1 201 Created\r\nContent-Length: 3\r\n\r\nabc"
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
        b"4;ext=1\r\nwiki\r\n5\r\npedia\r\n0\r\nT: x\r\n\r\n"
    )
    first, second = byte_by_byte(wire)
    assert (first.status, first.body) == (201, b"abc")
    assert (second.status, second.body) == (200, b"wikipedia")


def test_a_chunked_body_may_arrive_in_one_piece_with_upper_case_sizes() -> None:
    response = parse(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nA\r\n0123456789\r\n0\r\n\r\n")
    assert response is not None and response.body == b"0123456789"


def test_no_body_follows_a_head_request_a_204_or_a_304_whatever_the_headers_say() -> None:
    """Content-Length on those answers describes a body that is not sent; the connection stays usable."""
    head = parse(b"HTTP/1.1 200 OK\r\nContent-Length: 50\r\n\r\n", head_request=True)
    no_content = parse(b"HTTP/1.1 204 No Content\r\n\r\n")
    not_modified = parse(b"HTTP/1.1 304 Not Modified\r\nContent-Length: 9\r\n\r\n")
    for response in (head, no_content, not_modified):
        assert response is not None and response.body == b"" and response.keep_alive


def test_interim_responses_are_skipped() -> None:
    """A 100 Continue before the answer is not the answer."""
    response = parse(b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
    assert response is not None and (response.status, response.body) == (200, b"ok")


def test_a_body_without_length_runs_to_the_end_of_the_connection() -> None:
    """Neither Content-Length nor chunked: the body ends at EOF and the connection is not kept."""
    parser = ResponseParser()
    parser.expect()
    assert parser.feed(b"HTTP/1.0 200 OK\r\n\r\npart one, ") is None
    assert parser.feed(b"part two") is None
    response = parser.feed_eof()
    assert response is not None and response.body == b"part one, part two" and not response.keep_alive


def test_eof_before_the_body_is_whole_gives_no_response() -> None:
    parser = ResponseParser()
    parser.expect()
    parser.feed(b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc")
    assert parser.feed_eof() is None
    assert parser.received


@pytest.mark.parametrize(
    ("status_line", "headers", "keep_alive"),
    [
        (b"HTTP/1.1 200 OK", b"", True),
        (b"HTTP/1.1 200 OK", b"Connection: close\r\n", False),
        (b"HTTP/1.1 200 OK", b"Connection: Upgrade, Close\r\n", False),
        (b"HTTP/1.0 200 OK", b"", False),
        (b"HTTP/1.0 200 OK", b"Connection: keep-alive\r\n", True),
    ],
)
def test_keep_alive_follows_the_version_and_the_connection_header(
    status_line: bytes, headers: bytes, keep_alive: bool
) -> None:
    response = parse(status_line + b"\r\n" + headers + b"Content-Length: 0\r\n\r\n")
    assert response is not None and response.keep_alive is keep_alive


def test_gzip_and_deflate_bodies_are_decoded() -> None:
    """The codings sent in Accept-Encoding come back decoded (deflate zlib-wrapped or raw)."""
    document = b'{"kind":"List","items":[]}' * 20
    raw_deflate = zlib.compressobj(wbits=-zlib.MAX_WBITS)
    encodings = {
        "gzip": gzip.compress(document),
        "deflate": zlib.compress(document),
        "Deflate": raw_deflate.compress(document) + raw_deflate.flush(),
    }
    for coding, body in encodings.items():
        head = f"HTTP/1.1 200 OK\r\nContent-Encoding: {coding}\r\nContent-Length: {len(body)}\r\n\r\n"
        response = parse(head.encode() + body)
        assert response is not None and response.body == document, coding


def test_repeated_headers_are_joined_and_the_media_type_is_read_without_parameters() -> None:
    response = parse(
        b"HTTP/1.1 200 OK\r\nWarning: a\r\nWarning: b\r\n"
        b"Content-Type: Application/JSON;g=apidiscovery.k8s.io;v=v2\r\nContent-Length: 0\r\n\r\n"
    )
    assert response is not None
    assert response.headers["warning"] == "a, b"
    assert response.content_type == "application/json"


@pytest.mark.parametrize("value", [None, "", "json", "text/"])
def test_a_missing_or_unreadable_content_type_reads_as_octet_stream(value: str | None) -> None:
    headers = {} if value is None else {"content-type": value}
    assert Response(200, headers, b"x", True).content_type == "application/octet-stream"


@pytest.mark.parametrize(
    "wire",
    [
        b"HTTP/2 200 OK\r\n\r\n",
        b"HTTP/1.1 2000 OK\r\n\r\n",
        b"HTTP/1.1 OK\r\n\r\n",
        b"HTTP/1.1 200 OK\r\nno colon here\r\n\r\n",
        b"HTTP/1.1 200 OK\r\n folded: header\r\n\r\n",
        b"HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n",
        b"HTTP/1.1 200 OK\r\nContent-Length: 1, 2\r\n\r\n",
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n",
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0x5\r\nhello\r\n0\r\n\r\n",
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nhello\r\n0\r\n\r\n",
        b"HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: 3\r\n\r\nabc",
    ],
)
def test_bytes_that_are_not_a_framable_response_are_refused(wire: bytes) -> None:
    with pytest.raises(MalformedResponse):
        parse(wire)


def test_bytes_left_over_after_a_response_leave_the_parser_not_idle() -> None:
    """A connection whose server sent more than the response cannot be trusted for the next one."""
    parser = ResponseParser()
    parser.expect()
    assert parser.feed(b"HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nxGARBAGE") is not None
    assert not parser.idle
    with pytest.raises(MalformedResponse):
        parser.expect()
