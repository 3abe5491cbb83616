"""The DNS wire format of a member's answers: record types, SRV fields, NXDOMAIN, truncation over UDP and
the full answer over TCP, and garbage ignored."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from typing import Any

from dnslib import EDNS0, QTYPE, RCODE, DNSRecord

from flotilla.sim.multicluster.dns.server import DNSServer, answer_packet


class OneImport:
    def service_import(self, namespace: str, name: str) -> Mapping[str, Any] | None:
        if (namespace, name) != ("demo", "web"):
            return None
        ports = [{"name": "http", "port": 80, "protocol": "TCP"}]
        return {"spec": {"type": "ClusterSetIP", "ips": ["10.112.0.9", "fd00:10:112::9"], "ports": ports}}

    def service(self, namespace: str, name: str) -> Mapping[str, Any] | None:
        return None

    def endpoint_slices(self, namespace: str) -> Sequence[Mapping[str, Any]]:
        return []


def ask(name: str, kind: str) -> DNSRecord:
    reply = answer_packet(OneImport(), DNSRecord.question(name, kind).pack())
    assert reply is not None
    return DNSRecord.parse(reply)


def test_a_and_aaaa_answers_carry_the_family_of_each_clusterset_ip() -> None:
    assert [str(r.rdata) for r in ask("web.demo.svc.clusterset.local", "A").rr] == ["10.112.0.9"]
    assert [str(r.rdata) for r in ask("web.demo.svc.clusterset.local", "AAAA").rr] == ["fd00:10:112::9"]


def test_srv_answers_name_the_port_and_target() -> None:
    [record] = ask("_http._tcp.web.demo.svc.clusterset.local", "SRV").rr
    assert record.rtype == QTYPE.SRV
    assert (record.rdata.port, str(record.rdata.target)) == (80, "web.demo.svc.clusterset.local.")


def test_unknown_names_are_nxdomain_and_the_question_is_echoed() -> None:
    reply = ask("db.demo.svc.clusterset.local", "A")
    assert RCODE.get(reply.header.rcode) == "NXDOMAIN"
    assert str(reply.q.qname) == "db.demo.svc.clusterset.local."


def test_a_packet_that_is_not_dns_gets_no_answer() -> None:
    assert answer_packet(OneImport(), b"\x00\x01garbage") is None


class ManyPods(OneImport):
    """A headless service of 60 ready pods in one cluster."""

    def service_import(self, namespace: str, name: str) -> Mapping[str, Any] | None:
        return {"spec": {"type": "Headless", "ports": []}} if name == "db" else None

    def endpoint_slices(self, namespace: str) -> Sequence[Mapping[str, Any]]:
        labels = {
            "multicluster.kubernetes.io/service-name": "db",
            "multicluster.kubernetes.io/source-cluster": "member1",
        }
        endpoints = [{"addresses": [f"10.0.0.{i}"], "conditions": {"ready": True}} for i in range(1, 61)]
        return [{"metadata": {"name": "member1-db", "labels": labels}, "endpoints": endpoints}]


def test_a_udp_answer_too_large_for_the_client_is_truncated_unless_edns_offers_room() -> None:
    question = DNSRecord.question("db.demo.svc.clusterset.local", "A")
    plain = answer_packet(ManyPods(), question.pack(), udp=True)
    assert plain is not None
    truncated = DNSRecord.parse(plain)
    assert truncated.header.tc == 1 and truncated.rr == []
    question.add_ar(EDNS0(udp_len=4096))
    roomy = answer_packet(ManyPods(), question.pack(), udp=True)
    assert roomy is not None and len(DNSRecord.parse(roomy).rr) == 60


async def test_the_server_answers_over_udp_and_in_full_over_tcp() -> None:
    server = DNSServer(ManyPods())
    await server.start()
    try:
        question = DNSRecord.question("db.demo.svc.clusterset.local", "A")
        over_udp = await asyncio.to_thread(question.send, "127.0.0.1", server.port, False, 3)
        assert DNSRecord.parse(over_udp).header.tc == 1
        over_tcp = await asyncio.to_thread(question.send, "127.0.0.1", server.port, True, 3)
        assert len(DNSRecord.parse(over_tcp).rr) == 60
    finally:
        await server.stop()
