"""Calling webhooks over HTTPS: a review posted, its answer read, failures in the Go client's words.

Kubernetes' admission webhooks (the API server) and Karmada's resource interpreter webhooks (the
controllers and the Pull agent) are called the same way, so the one client lives here, below both.
One `WebhookClient` (one aiohttp session, opened lazily inside the running event loop) serves every
webhook of its owner; `close()` releases it. Each call verifies the webhook's serving certificate
against its `caBundle` (the system roots when it has none), carries kube's `?timeout=<n>s` hint and
is cut off after `timeoutSeconds`.

Failures raise `WebhookCallError` with a reason worded like the Go client's errors, because that is
what users read after `failed calling webhook "<name>": ` and what they search for:
`Post "https://…?timeout=10s": dial tcp 127.0.0.1:1: connect: connection refused`,
`context deadline exceeded`, `tls: failed to verify certificate: x509: certificate signed by
unknown authority`. The mapping from Python's errors to those phrases covers the common cases; rarer
ones keep Python's own text.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import errno
import socket
import ssl
from dataclasses import dataclass

import aiohttp
import orjson
from yarl import URL

HEADERS = {
    "Content-Type": "application/json",
    "Accept": "application/json, */*",
    "User-Agent": "flotilla-apiserver-admission",
}
"""The headers of a call; `WebhookClient(user_agent=…)` names another caller."""

# What the Go client says for a non-2xx answer whose body is not a Status (apimachinery's
# `NewGenericServerResponse`).
_STATUS_MESSAGES = {
    400: "the server rejected our request for an unknown reason",
    401: "the server has asked for the client to provide credentials",
    403: "the server does not allow access to the requested resource",
    404: "the server could not find the requested resource",
    405: "the server does not allow this method on the requested resource",
    409: "the server reported a conflict",
    422: "the server rejected our request due to an error in our request",
    429: "the server has received too many requests and has asked us to try again later",
    503: "the server is currently unable to handle the request",
    504: (
        "the server was unable to return a response in the time allotted, but may still be processing "
        "the request"
    ),
}
_CONNECT_ERRORS = {
    errno.ECONNREFUSED: "connection refused",
    errno.ECONNRESET: "connection reset by peer",
    errno.EHOSTUNREACH: "no route to host",
    errno.ENETUNREACH: "network is unreachable",
    errno.ETIMEDOUT: "connection timed out",
}
# OpenSSL verification results Go reports as an unknown authority.
_UNKNOWN_AUTHORITY = {18, 19, 20, 21}
_HOSTNAME_MISMATCH = 62
_EXPIRED = {9, 10}


class WebhookCallError(Exception):
    """The webhook could not be called or gave an unusable answer (kube's `ErrCallingWebhook`).

    `reason` is the text after `failed calling webhook "<name>": `; for admission the webhook's
    failure policy decides whether the request fails (500) or goes on without this webhook.
    """

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True, slots=True)
class Endpoint:
    url: str
    ca_bundle: str
    timeout_seconds: int


def with_timeout_hint(url: str, timeout_seconds: int) -> str:
    """The URL with the `timeout` query parameter the Go client adds for a deadline."""
    separator = "&" if "?" in url else "?"
    return f"{url}{separator}timeout={timeout_seconds}s"


def tls_context(ca_bundle: str) -> ssl.SSLContext:
    """A client context trusting `ca_bundle` (base64 PEM), or the system roots when it is empty."""
    if not ca_bundle:
        return ssl.create_default_context()
    try:
        pem = base64.b64decode(ca_bundle, validate=True).decode("ascii")
        return ssl.create_default_context(cadata=pem)
    except (binascii.Error, ValueError, UnicodeDecodeError, ssl.SSLError):
        raise WebhookCallError(
            "could not get REST client: unable to load root certificates: unable to parse bytes as PEM block"
        ) from None


def _certificate_problem(exc: aiohttp.ClientConnectorCertificateError, host: str) -> str:
    error = exc.certificate_error
    code = getattr(error, "verify_code", None)
    if code in _UNKNOWN_AUTHORITY:
        return "x509: certificate signed by unknown authority"
    if code == _HOSTNAME_MISMATCH:
        return f"x509: certificate is not valid for {host}"
    if code in _EXPIRED:
        return "x509: certificate has expired or is not yet valid"
    return f"x509: {getattr(error, 'verify_message', '') or error}"


def describe_failure(exc: aiohttp.ClientError, host: str, port: int) -> str:
    """A client error in the Go client's words (what follows `Post "<url>": `)."""
    if isinstance(exc, aiohttp.ClientConnectorCertificateError):
        return f"tls: failed to verify certificate: {_certificate_problem(exc, host)}"
    if isinstance(exc, aiohttp.ClientSSLError):
        return f"tls: {exc}"
    if isinstance(exc, aiohttp.ClientConnectorDNSError) or isinstance(
        getattr(exc, "os_error", None), socket.gaierror
    ):
        return f"dial tcp: lookup {host}: no such host"
    if isinstance(exc, aiohttp.ClientConnectorError):
        problem = _CONNECT_ERRORS.get(exc.os_error.errno or 0) or (exc.os_error.strerror or str(exc)).lower()
        return f"dial tcp {host}:{port}: connect: {problem}"
    if isinstance(exc, aiohttp.ServerDisconnectedError):
        return "EOF"
    return str(exc) or type(exc).__name__


def http_failure(status: int, body: bytes) -> str:
    """What the Go client says for a non-2xx answer: the Status message, or a generic phrase."""
    try:
        decoded = orjson.loads(body)
    except orjson.JSONDecodeError:
        decoded = None
    if isinstance(decoded, dict) and decoded.get("kind") == "Status" and decoded.get("message"):
        return str(decoded["message"])
    generic = _STATUS_MESSAGES.get(status)
    if generic is not None:
        return generic
    text = body.decode(errors="replace").strip()
    return f'an error on the server ("{text}") has prevented the request from succeeding'


class WebhookClient:
    """Posts a review to webhooks; one aiohttp session for its owner's lifetime."""

    def __init__(self, user_agent: str = HEADERS["User-Agent"]) -> None:
        self._headers = {**HEADERS, "User-Agent": user_agent}
        self._session: aiohttp.ClientSession | None = None
        self._tls: dict[str, ssl.SSLContext] = {}

    def _client(self) -> aiohttp.ClientSession:
        if self._session is None or self._session.closed:
            self._session = aiohttp.ClientSession(
                headers=self._headers, timeout=aiohttp.ClientTimeout(total=None), raise_for_status=False
            )
        return self._session

    def _tls_context(self, ca_bundle: str) -> ssl.SSLContext:
        context = self._tls.get(ca_bundle)
        if context is None:
            context = self._tls[ca_bundle] = tls_context(ca_bundle)
        return context

    async def post(self, endpoint: Endpoint, body: bytes) -> bytes:
        """POST `body` to the webhook; its 2xx answer's body, or `WebhookCallError`."""
        url = with_timeout_hint(endpoint.url, endpoint.timeout_seconds)
        context = self._tls_context(endpoint.ca_bundle)
        session = self._client()
        target = f'Post "{url}"'
        try:
            async with asyncio.timeout(endpoint.timeout_seconds):
                async with session.post(url, data=body, ssl=context, allow_redirects=False) as response:
                    status, raw = response.status, await response.read()
        except TimeoutError:
            raise WebhookCallError(f"failed to call webhook: {target}: context deadline exceeded") from None
        except aiohttp.InvalidURL as exc:
            raise WebhookCallError(f"failed to call webhook: {target}: invalid URL: {exc}") from None
        except aiohttp.ClientError as exc:
            parsed = URL(url)
            problem = describe_failure(exc, parsed.host or "", parsed.port or 443)
            raise WebhookCallError(f"failed to call webhook: {target}: {problem}") from None
        if not 200 <= status < 300:
            raise WebhookCallError(f"failed to call webhook: {http_failure(status, raw)}")
        return raw

    async def close(self) -> None:
        if self._session is not None:
            await self._session.close()
            self._session = None
