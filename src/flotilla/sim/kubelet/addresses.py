"""Pod IP addresses: each node hands out addresses from its pod CIDR, each in use by one pod at a time.

What the CNI plugin's host-local IPAM does on a real node. The allocator learns the addresses pods
already have from the watch cache (`observe`), so a restarted process does not hand them out twice,
and records an address the moment it is chosen, before the status carrying it is written. The
first address of the range is the node's gateway and never handed out.
"""

from __future__ import annotations

import ipaddress

from flotilla.api.objectkeys import ObjectKey


class PodAddresses:
    def __init__(self) -> None:
        self._owners: dict[str, dict[str, ObjectKey]] = {}
        """node name → address → the pod using it."""
        self._addresses: dict[ObjectKey, tuple[str, str]] = {}
        """pod → (node name, address)."""

    def observe(self, node_name: str, pod: ObjectKey, address: str) -> None:
        """A pod on `node_name` uses `address` (read from its status)."""
        current = self._addresses.get(pod)
        if current == (node_name, address):
            return
        self.release(pod)
        self._owners.setdefault(node_name, {})[address] = pod
        self._addresses[pod] = (node_name, address)

    def release(self, pod: ObjectKey) -> None:
        """The pod stopped (or is gone): its address is free again."""
        current = self._addresses.pop(pod, None)
        if current is None:
            return
        node_name, address = current
        owners = self._owners.get(node_name, {})
        if owners.get(address) == pod:
            del owners[address]

    def address_of(self, pod: ObjectKey) -> str:
        current = self._addresses.get(pod)
        return current[1] if current else ""

    def allocate(self, node_name: str, cidr: str, pod: ObjectKey) -> str:
        """An address for `pod` from `cidr` ("" when the range is used up or unreadable)."""
        current = self._addresses.get(pod)
        if current is not None and current[0] == node_name:
            return current[1]
        try:
            network = ipaddress.ip_network(cidr, strict=False)
        except ValueError:
            return ""
        taken = self._owners.get(node_name, {})
        hosts = network.hosts()
        next(hosts, None)  # the gateway
        for host in hosts:
            address = str(host)
            if address not in taken:
                self.observe(node_name, pod, address)
                return address
        return ""
