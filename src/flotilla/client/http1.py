"""HTTP/1.1 messages as bytes: a request's head, and a parser that frames one response at a time.

Why: `Client.request` is most of a controller's CPU per write (bench/scheduler_e2e.py). A general
HTTP library spends most of that on machinery an API client does not need (URL objects, header
multidicts, payload registries, stream readers, timers per request); the message itself is a few
lines of text. This module is the sans-I/O half of the lean transport (`connections.py` sends):
building a request and framing a response are pure functions of bytes, tested without a socket.

How: `request_head` writes the request line and headers. `ResponseParser` is fed the bytes a
connection receives after sending one request and returns the `Response` once it is complete:
interim 1xx responses are skipped; the body is framed by `Transfer-Encoding: chunked`, by
`Content-Length`, by nothing (HEAD, 204, 304) or by the end of the connection (`feed_eof`); a
gzip or deflate body is decoded, as every HTTP client asking with `Accept-Encoding` does. Whether
the connection can carry another request is `Response.keep_alive`. Anything else is a
`MalformedResponse`.
"""

from __future__ import annotations

import re
import zlib
from dataclasses import dataclass
from urllib.parse import quote

ACCEPT_ENCODING = "gzip, deflate"
"""What requests accept: the codings `ResponseParser` decodes (aiohttp's default, and client-go's gzip)."""

_TARGET_CHARACTERS = "-._~!$&'()*+,;=:@/?%"
"""What a request target may carry unescaped (RFC 3986's unreserved and sub-delims, ':', '@', the
delimiters '/' and '?', and '%' of escapes already made)."""
_TARGET = re.compile(f"[A-Za-z0-9{re.escape(_TARGET_CHARACTERS)}]*")
_NO_BODY_STATUSES = frozenset({204, 304})
_HEX_DIGITS = b"0123456789abcdefABCDEF"
_MAX_HEAD = 64 * 1024
"""Bytes a status line and headers may take (Go's http.Transport allows 1 MB; kube's heads are small)."""


class MalformedResponse(Exception):
    """The server's bytes are not an HTTP/1.x response this parser can frame."""


@dataclass(frozen=True, slots=True)
class Response:
    status: int
    headers: dict[str, str]
    """Header names in lower case; a repeated header's values joined with ", "."""
    body: bytes
    keep_alive: bool
    """The connection may carry another request (HTTP/1.1 without `Connection: close`)."""

    @property
    def content_type(self) -> str:
        """The media type in lower case without parameters; `application/octet-stream` when absent
        or unreadable (RFC 9110's default, as aiohttp reports it)."""
        value = self.headers.get("content-type")
        if value is None:
            return "application/octet-stream"
        media_type = value.split(";", 1)[0].strip().lower()
        kind, slash, subtype = media_type.partition("/")
        if not slash or not kind or not subtype or "/" in subtype:
            return "application/octet-stream"
        return media_type


def request_target(path: str, query: str) -> str:
    """The request target of `path` and an encoded `query`, percent-encoding what needs it (a name
    with a space or a non-ASCII letter); the common target, all plain characters, is kept as is."""
    target = f"{path}?{query}" if query else path
    return target if _TARGET.fullmatch(target) else quote(target, safe=_TARGET_CHARACTERS)


def request_head(method: str, target: str, headers: list[tuple[str, str]]) -> bytes:
    """The request line and header block of one request (`target` already percent-encoded)."""
    lines = [f"{method} {target} HTTP/1.1"]
    lines.extend(f"{name}: {value}" for name, value in headers)
    lines.append("\r\n")
    return "\r\n".join(lines).encode("latin-1")


class ResponseParser:
    """Frames the response to one request from the bytes that follow it (no pipelining).

    Call `expect` before sending each request, then `feed` what arrives until it returns the
    response; `feed_eof` when the connection ends (a body that runs to the end completes there).
    `received` tells whether any byte of the current response has arrived.
    """

    __slots__ = (
        "_buffer",
        "_chunked",
        "_chunks",
        "_head_request",
        "_headers",
        "_keep_alive",
        "_length",
        "_position",
        "_status",
        "received",
    )

    def __init__(self) -> None:
        self._buffer = bytearray()
        self._head_request = False
        self._status = 0
        self._headers: dict[str, str] = {}
        self._keep_alive = False
        self._length: int | None = None
        """Body bytes still to come when framed by Content-Length; None until the head is read, or
        when the body runs to the end of the connection."""
        self._chunked = False
        self._chunks: list[bytes] = []
        self._position = 0
        self.received = False

    @property
    def idle(self) -> bool:
        """Nothing is buffered beyond the responses returned so far."""
        return not self._buffer

    def expect(self, *, head_request: bool = False) -> None:
        """Start on the response to a new request (`head_request`: it was a HEAD, so no body)."""
        if self._buffer:
            raise MalformedResponse("unexpected bytes before the response")
        self._head_request = head_request
        self._reset()
        self.received = False

    def _reset(self) -> None:
        self._status = 0
        self._headers = {}
        self._keep_alive = False
        self._length = None
        self._chunked = False
        self._chunks = []
        self._position = 0

    def feed(self, data: bytes) -> Response | None:
        """Take more bytes; the response once it is complete."""
        if data:
            self.received = True
            self._buffer += data
        while True:
            if not self._status:
                if not self._read_head():
                    return None
                if 100 <= self._status < 200:
                    self._reset()  # an interim response (100 Continue, 103 Early Hints): the real one follows
                    continue
                if self._head_request or self._status in _NO_BODY_STATUSES:
                    return self._complete(b"")
            if self._chunked:
                return self._read_chunks()
            if self._length is None:
                return None  # the body ends with the connection
            if len(self._buffer) < self._length:
                return None
            return self._complete(self._take(self._length))

    def feed_eof(self) -> Response | None:
        """The connection ended: the response if its body ran to the end, else None (incomplete)."""
        if self._status and not self._chunked and self._length is None:
            return self._complete(self._take(len(self._buffer)))
        return None

    def _take(self, size: int) -> bytes:
        """The first `size` buffered bytes, removed from the buffer (copied once)."""
        with memoryview(self._buffer) as view:
            taken = bytes(view[:size])
        del self._buffer[:size]
        return taken

    def _read_head(self) -> bool:
        end = self._buffer.find(b"\r\n\r\n")
        if end < 0:
            if len(self._buffer) > _MAX_HEAD:
                raise MalformedResponse("response head too long")
            return False
        status_line, _, block = self._buffer[:end].decode("latin-1").partition("\r\n")
        del self._buffer[: end + 4]
        version, _, rest = status_line.partition(" ")
        code = rest[:3]
        if (
            version not in ("HTTP/1.1", "HTTP/1.0")
            or len(code) != 3
            or not code.isdigit()
            or rest[3:4] not in ("", " ")
        ):
            raise MalformedResponse(f"bad status line {status_line[:100]!r}")
        headers: dict[str, str] = {}
        for line in block.split("\r\n") if block else ():
            name, colon, value = line.partition(":")
            if not colon or not name or name[0] in " \t" or name[-1] in " \t":
                raise MalformedResponse(f"bad header line {line[:100]!r}")
            name = name.lower()
            if name in headers:
                headers[name] += ", " + value.strip()
            else:
                headers[name] = value.strip()
        self._status = int(code)
        self._headers = headers
        connection = headers.get("connection")
        if connection is None:
            self._keep_alive = version == "HTTP/1.1"
        else:
            tokens = {token.strip().lower() for token in connection.split(",")}
            self._keep_alive = "close" not in tokens and (version == "HTTP/1.1" or "keep-alive" in tokens)
        if self._head_request or self._status in _NO_BODY_STATUSES or self._status < 200:
            return True  # no body, whatever the headers say
        coding = headers.get("transfer-encoding")
        if coding is not None:
            if coding.rsplit(",", 1)[-1].strip().lower() != "chunked":
                raise MalformedResponse(f"unsupported Transfer-Encoding {coding!r}")
            self._chunked = True
        elif "content-length" in headers:
            lengths = {part.strip() for part in headers["content-length"].split(",")}
            length = lengths.pop() if len(lengths) == 1 else ""
            if not length.isdigit():
                raise MalformedResponse(f"bad Content-Length {headers['content-length']!r}")
            self._length = int(length)
        else:
            self._keep_alive = False  # the body runs to the end of the connection
        return True

    def _read_chunks(self) -> Response | None:
        buffer = self._buffer
        while True:
            if self._length is not None:  # inside a chunk: its data and the CRLF after it
                if len(buffer) - self._position < self._length + 2:
                    return None
                end = self._position + self._length
                if buffer[end : end + 2] != b"\r\n":
                    raise MalformedResponse("chunk not followed by CRLF")
                self._chunks.append(bytes(buffer[self._position : end]))
                self._position = end + 2
                self._length = None
                continue
            line_end = buffer.find(b"\r\n", self._position)
            if line_end < 0:
                if len(buffer) - self._position > _MAX_HEAD:
                    raise MalformedResponse("chunk size line too long")
                return None
            size_text = bytes(buffer[self._position : line_end]).split(b";", 1)[0].strip()
            if not size_text or size_text.strip(_HEX_DIGITS):
                raise MalformedResponse(f"bad chunk size {size_text[:20]!r}")
            size = int(size_text, 16)
            if size:
                self._position = line_end + 2
                self._length = size
                continue
            # The last chunk: trailer fields (ignored) up to an empty line.
            trailers_end = buffer.find(b"\r\n\r\n", line_end)
            if trailers_end < 0:
                return None
            done = trailers_end + 4
            del buffer[:done]
            body = b"".join(self._chunks)
            return self._complete(body)

    def _complete(self, body: bytes) -> Response:
        coding = self._headers.get("content-encoding", "").strip().lower()
        if body and coding in ("gzip", "x-gzip", "deflate"):
            body = _decompress(body, coding)
        response = Response(self._status, self._headers, body, self._keep_alive)
        self._reset()
        return response


def _decompress(body: bytes, coding: str) -> bytes:
    try:
        if coding == "deflate":
            try:
                return zlib.decompress(body)  # zlib-wrapped, as RFC 9110 defines deflate
            except zlib.error:
                return zlib.decompress(body, -zlib.MAX_WBITS)  # raw deflate, as some servers send
        return zlib.decompress(body, 16 + zlib.MAX_WBITS)
    except zlib.error as exc:
        raise MalformedResponse(f"cannot decode a {coding} body: {exc}") from exc
