"""A tiny DNS server per simulated member, on loopback over UDP and TCP, answering from `records`.

Why a DNS server rather than an HTTP API: what the MCS specification pins down is DNS names and
record types, and a test (or `dig @127.0.0.1 -p PORT`) then checks exactly what a pod's resolver
would get — record types, NXDOMAIN, SRV targets — with any DNS client. The wire format is dnslib's;
each query is answered from the member's watch cache at once (no cache of its own, so answers follow
the objects). As any DNS server, it truncates a UDP answer larger than the client takes (512 bytes,
or the EDNS0 size it offers) and sets TC, and answers the same question in full over TCP on the same
port — a headless service of many pods needs it. Its address (`127.0.0.1:<port>`) is in the sim's
state file under each cluster.
"""

from __future__ import annotations

import asyncio
import contextlib
import struct
from collections.abc import Mapping, Sequence
from typing import Any, cast

import structlog
from dnslib import AAAA, QTYPE, RCODE, RR, SRV, TXT, A, DNSError, DNSRecord

from flotilla.api import multicluster
from flotilla.apiserver.localclient import LocalClient
from flotilla.sim.multicluster.dns.records import TTL, Answer, MemberObjects, Record, resolve

log = structlog.get_logger("flotilla.sim.multicluster")

TCP_PORT_ATTEMPTS = 20
"""Tries at a UDP port whose TCP port of the same number is free too, when any port will do."""

UDP_PAYLOAD = 512
"""What a UDP answer may take without EDNS0 (RFC 1035)."""
OPT = 41


class LocalObjects:
    """The member's objects, read from its watch cache (read-only)."""

    def __init__(self, client: LocalClient) -> None:
        self.client = client

    def service_import(self, namespace: str, name: str) -> Mapping[str, Any] | None:
        return self.client.peek(multicluster.SERVICE_IMPORT, name, namespace=namespace)

    def service(self, namespace: str, name: str) -> Mapping[str, Any] | None:
        return self.client.peek(multicluster.SERVICE, name, namespace=namespace)

    def endpoint_slices(self, namespace: str) -> Sequence[Mapping[str, Any]]:
        return self.client.list(multicluster.ENDPOINT_SLICE, namespace=namespace)


def _resource_record(record: Record) -> Any:
    rdata: Any
    if record.type == "A":
        rdata = A(record.value)
    elif record.type == "AAAA":
        rdata = AAAA(record.value)
    elif record.type == "SRV":
        rdata = SRV(priority=0, weight=100, port=record.port, target=record.value + ".")
    else:
        rdata = TXT(record.value)
    return RR(record.name + ".", getattr(QTYPE, record.type), rdata=rdata, ttl=TTL)


def answer_packet(objects: MemberObjects, packet: bytes, *, udp: bool = False) -> bytes | None:
    """The reply to one DNS query packet (None: not a query worth answering); over UDP, truncated
    with TC set when larger than the client takes."""
    try:
        request = DNSRecord.parse(packet)
    except DNSError:
        return None
    reply = request.reply()
    for question in request.questions:
        answer: Answer = resolve(objects, str(question.qname), QTYPE.get(question.qtype, ""))
        if not answer.exists:
            reply.header.rcode = RCODE.NXDOMAIN
        for record in answer.records:
            reply.add_answer(_resource_record(record))
    packed: bytes = reply.pack()
    if udp:
        limit = max([UDP_PAYLOAD, *(int(rr.rclass) for rr in request.ar if rr.rtype == OPT)])
        if len(packed) > limit:
            truncated: bytes = reply.truncate().pack()
            return truncated
    return packed


class _Datagrams(asyncio.DatagramProtocol):
    def __init__(self, objects: MemberObjects) -> None:
        self.objects = objects
        self.transport: asyncio.DatagramTransport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # uvloop's UDP transport is not a subclass of asyncio's, though it has its methods.
        self.transport = cast(asyncio.DatagramTransport, transport)

    def datagram_received(self, data: bytes, addr: tuple[str | Any, int]) -> None:
        reply = answer_packet(self.objects, data, udp=True)
        if reply is not None and self.transport is not None:
            self.transport.sendto(reply, addr)


class DNSServer:
    """The member's DNS on `host`:`port`, UDP and TCP (0: any free port; `address` says which)."""

    def __init__(self, objects: MemberObjects, *, host: str = "127.0.0.1", port: int = 0) -> None:
        self.objects = objects
        self.host = host
        self.port = port
        self._transport: asyncio.DatagramTransport | None = None
        self._tcp: asyncio.Server | None = None

    @classmethod
    def of_member(cls, client: LocalClient, *, host: str = "127.0.0.1") -> DNSServer:
        return cls(LocalObjects(client), host=host)

    @property
    def address(self) -> str:
        return f"{self.host}:{self.port}" if self._transport is not None else ""

    async def start(self) -> None:
        loop = asyncio.get_running_loop()
        # With any port asked for, the kernel picks a free UDP port whose TCP twin may be taken by
        # someone else: pick again (a few times) rather than serve without TCP.
        attempts = TCP_PORT_ATTEMPTS if self.port == 0 else 1
        for attempt in range(attempts):
            transport, _ = await loop.create_datagram_endpoint(
                lambda: _Datagrams(self.objects), local_addr=(self.host, self.port)
            )
            port = int(transport.get_extra_info("sockname")[1])
            try:
                self._tcp = await asyncio.start_server(self._serve_tcp, self.host, port)
            except OSError:
                if attempt + 1 < attempts:
                    transport.close()
                    continue
                # The TCP port of the same number is taken: UDP alone still answers (truncated when large).
                log.warning("sim.dns_tcp_unavailable", host=self.host, port=port)
            self._transport = transport
            self.port = port
            break
        log.info("sim.dns_serving", address=self.address)

    async def _serve_tcp(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(asyncio.IncompleteReadError, ConnectionError):
            while True:
                (length,) = struct.unpack("!H", await reader.readexactly(2))
                reply = answer_packet(self.objects, await reader.readexactly(length))
                if reply is None:
                    break
                writer.write(struct.pack("!H", len(reply)) + reply)
                await writer.drain()
        writer.close()

    async def stop(self) -> None:
        if self._tcp is not None:
            self._tcp.close()
            await self._tcp.wait_closed()
            self._tcp = None
        if self._transport is not None:
            self._transport.close()
            self._transport = None
