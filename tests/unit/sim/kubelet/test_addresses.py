"""Pod addresses from a node's pod CIDR: unique while in use, reused once released."""

from __future__ import annotations

from flotilla.api.objectkeys import ObjectKey
from flotilla.sim.kubelet.addresses import PodAddresses


def test_addresses_are_unique_per_node_and_skip_the_gateway() -> None:
    """The first pod gets .2 (.1 is the gateway); each pod keeps its address when asked again."""
    addresses = PodAddresses()
    first = addresses.allocate("n1", "10.244.0.0/24", ObjectKey("ns", "a"))
    second = addresses.allocate("n1", "10.244.0.0/24", ObjectKey("ns", "b"))
    assert (first, second) == ("10.244.0.2", "10.244.0.3")
    assert addresses.allocate("n1", "10.244.0.0/24", ObjectKey("ns", "a")) == first
    assert addresses.allocate("n2", "10.244.1.0/24", ObjectKey("ns", "c")) == "10.244.1.2"


def test_observed_addresses_are_not_handed_out_and_released_ones_are() -> None:
    """Addresses read from existing pods are taken; a released address is the next one given."""
    addresses = PodAddresses()
    addresses.observe("n1", ObjectKey("ns", "old"), "10.244.0.2")
    assert addresses.allocate("n1", "10.244.0.0/24", ObjectKey("ns", "new")) == "10.244.0.3"
    addresses.release(ObjectKey("ns", "old"))
    assert addresses.allocate("n1", "10.244.0.0/24", ObjectKey("ns", "newer")) == "10.244.0.2"


def test_an_exhausted_or_unreadable_range_gives_no_address() -> None:
    """A /30 has one usable address after the gateway; garbage gives none."""
    addresses = PodAddresses()
    assert addresses.allocate("n1", "10.0.0.0/30", ObjectKey("ns", "a")) == "10.0.0.2"
    assert addresses.allocate("n1", "10.0.0.0/30", ObjectKey("ns", "b")) == ""
    assert addresses.allocate("n1", "not-a-cidr", ObjectKey("ns", "c")) == ""
