"""The DNS wire format of a member's answers: record types, SRV fields, NXDOMAIN, and garbage ignored."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from dnslib import QTYPE, RCODE, DNSRecord

from flotilla.sim.multicluster.dns.server import answer_packet


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
