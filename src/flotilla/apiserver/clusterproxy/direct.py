"""Forwarding to a Push member over HTTPS, one pooled client session per member credential.

Bytes pass through unchanged both ways (no decompression, no re-encoding), streamed as they come,
so a watch through the proxy sees each event when the member sends it. A member that cannot be
reached is a 503 naming the cluster, as kube-apiserver answers for a backend it cannot dial.
"""

from __future__ import annotations

import hashlib

import aiohttp
import structlog
from aiohttp import web
from multidict import CIMultiDict

from flotilla.apiserver import errors
from flotilla.apiserver.clusterproxy.headers import Headers, response_headers
from flotilla.apiserver.clusterproxy.targets import DirectTarget
from flotilla.client.kubeconfig import ClusterConfig
from flotilla.client.websocketdial import handshake_trace

log = structlog.get_logger("flotilla.apiserver.clusterproxy")

CONNECT_TIMEOUT = 10.0


def _fingerprint(config: ClusterConfig) -> str:
    parts = (
        config.server,
        config.ca_pem or b"",
        config.client_cert_pem or b"",
        config.client_key_pem or b"",
        (config.token or "").encode(),
        b"insecure" if config.insecure_skip_tls_verify else b"",
    )
    digest = hashlib.sha256()
    for part in parts:
        digest.update(part.encode() if isinstance(part, str) else part)
        digest.update(b"\0")
    return digest.hexdigest()


class DirectForwarder:
    """Client sessions to Push members, rebuilt when a Cluster's endpoint or credential changes."""

    def __init__(self) -> None:
        self._sessions: dict[str, tuple[str, aiohttp.ClientSession]] = {}

    async def session(self, target: DirectTarget) -> aiohttp.ClientSession:
        """The pooled session of `target`'s member credential (it also dials upgrades: `upgrades.py`)."""
        fingerprint = _fingerprint(target.config)
        cached = self._sessions.get(target.cluster)
        if cached is not None and cached[0] == fingerprint and not cached[1].closed:
            return cached[1]
        if cached is not None:
            await cached[1].close()
        session = aiohttp.ClientSession(
            connector=aiohttp.TCPConnector(ssl=target.config.ssl_context(), limit=0),
            auto_decompress=False,
            timeout=aiohttp.ClientTimeout(total=None, connect=CONNECT_TIMEOUT),
            trace_configs=[handshake_trace()],
        )
        self._sessions[target.cluster] = (fingerprint, session)
        return session

    async def forward(
        self, request: web.Request, target: DirectTarget, path_and_query: str, headers: Headers
    ) -> web.StreamResponse:
        session = await self.session(target)
        outgoing = CIMultiDict(headers)
        outgoing.update(target.config.headers())
        if request.content_length is not None:
            outgoing["Content-Length"] = str(request.content_length)
        try:
            upstream = await session.request(
                request.method,
                target.config.server + path_and_query,
                headers=outgoing,
                data=request.content if request.body_exists else None,
                allow_redirects=False,
                server_hostname=target.config.tls_server_name,
                skip_auto_headers=("Accept-Encoding", "User-Agent", "Content-Type"),
            )
        except (aiohttp.ClientError, OSError, TimeoutError) as exc:
            reason = str(exc) or type(exc).__name__
            message = f"error trying to reach cluster {target.cluster}: {reason}"
            raise errors.ServiceUnavailable(message) from exc
        async with upstream:
            raw_headers = upstream.raw_headers
            pairs = [(name.decode("latin-1"), value.decode("latin-1")) for name, value in raw_headers]
            headers_back = CIMultiDict(response_headers(pairs))
            response = web.StreamResponse(status=upstream.status, headers=headers_back)
            if upstream.content_length is not None:
                response.content_length = upstream.content_length
            await response.prepare(request)
            try:
                async for chunk in upstream.content.iter_any():
                    await response.write(chunk)
            except (aiohttp.ClientPayloadError, aiohttp.ClientConnectionError) as exc:
                # Headers are sent: the client sees the stream end, as with a member that hangs up.
                log.info("clusterproxy.member_stream_ended", cluster=target.cluster, error=str(exc))
                return response
            await response.write_eof()
        return response

    async def forget(self, cluster: str) -> None:
        cached = self._sessions.pop(cluster, None)
        if cached is not None:
            await cached[1].close()

    async def close(self) -> None:
        for _, session in self._sessions.values():
            await session.close()
        self._sessions.clear()
