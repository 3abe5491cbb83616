"""Clusterset IPs: one per family, from a range of their own, never handed out twice, none for Headless."""

from __future__ import annotations

import ipaddress
from typing import Any

import pytest

from flotilla.sim.multicluster.clustersetips import CLUSTERSET_CIDRS, RangeFull, allocate, wanted_ips


def service_import(kind: str = "ClusterSetIP", **spec: Any) -> dict[str, Any]:
    return {"metadata": {"name": "web", "namespace": "demo"}, "spec": {"type": kind, "ports": [], **spec}}


def test_a_clusterset_ip_import_gets_an_ipv4_address_from_the_clusterset_range() -> None:
    [address] = wanted_ips(service_import(), [])
    assert ipaddress.ip_address(address) in ipaddress.ip_network(CLUSTERSET_CIDRS["IPv4"])
    assert ipaddress.ip_address(address) not in ipaddress.ip_network("10.96.0.0/12")


def test_one_address_per_ip_family() -> None:
    found = wanted_ips(service_import(ipFamilies=["IPv4", "IPv6"]), [])
    assert [ipaddress.ip_address(a).version for a in found] == [4, 6]


def test_a_headless_import_gets_none() -> None:
    assert wanted_ips(service_import("Headless", ips=["10.112.0.5"]), []) == []


def test_an_address_in_use_is_not_handed_out_again_and_an_own_one_is_kept() -> None:
    first = allocate("demo/web", "IPv4", [])
    assert allocate("demo/web", "IPv4", [first]) != first
    assert wanted_ips(service_import(ips=[first]), []) == [first]
    assert wanted_ips(service_import(), [first]) != [first]


def test_a_full_range_says_so() -> None:
    assert allocate("a", "IPv4", ["10.112.0.1"], cidr="10.112.0.0/30") == "10.112.0.2"
    with pytest.raises(RangeFull):
        allocate("a", "IPv4", ["10.112.0.1", "10.112.0.2"], cidr="10.112.0.0/30")
