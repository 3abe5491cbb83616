"""The objects a simulated kubelet registers: addresses and pod ranges per node."""

from __future__ import annotations

from flotilla.sim.nodes.objects import internal_ip, pod_cidr


def test_addresses_and_pod_ranges_are_unique_per_node_index() -> None:
    """InternalIPs and pod CIDRs never repeat across a thousand nodes."""
    assert len({internal_ip(i) for i in range(1000)}) == 1000
    assert len({pod_cidr(i) for i in range(1000)}) == 1000
    assert pod_cidr(0) == "10.244.0.0/24" and pod_cidr(256) == "10.245.0.0/24"
