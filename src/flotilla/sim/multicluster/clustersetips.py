"""Clusterset IPs: a virtual IP per IP family for every `ClusterSetIP` ServiceImport of the member.

The MCS specification leaves the clusterset IP to the implementation; a simulated member allocates
it as kube's Service IP allocator does a ClusterIP, from ranges of its own (`CLUSTERSET_CIDRS`,
apart from the Service range 10.96.0.0/12), one address per family the import lists
(`spec.ipFamilies`, IPv4 when it lists none), and writes them into `spec.ips` with a merge patch as
its own field manager — the MCS controller applies the rest of the spec and never owns `ips`, so
neither undoes the other. A `Headless` import gets no IP (one it had is taken away). An address
already held by another import is never handed out again; the first one tried is derived from the
import's namespace and name, so a re-created import tends to get its old address back.
"""

from __future__ import annotations

import hashlib
import ipaddress
from collections.abc import Iterable, Mapping
from typing import Any

import structlog

from flotilla.api import multicluster
from flotilla.api.objectkeys import ObjectKey
from flotilla.sim.controllers.framework.controller import SimController

log = structlog.get_logger("flotilla.sim.multicluster")

CLUSTERSET_CIDRS = {"IPv4": "10.112.0.0/16", "IPv6": "fd00:10:112::/112"}
"""Where clusterset IPs come from, per family (distinct from the Service and pod ranges)."""


class RangeFull(RuntimeError):
    """Every address of a clusterset range is taken."""


def allocate(key: str, family: str, used: Iterable[str], *, cidr: str = "") -> str:
    """An address of `family`'s range (or `cidr`) not in `used`, the first tried derived from `key`."""
    network = ipaddress.ip_network(cidr or CLUSTERSET_CIDRS[family])
    taken = set(used)
    # Leave out the network's first and last address, as kube's allocator does.
    size = network.num_addresses - 2
    start = int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "big") % size
    for step in range(size):
        address = str(network[1 + (start + step) % size])
        if address not in taken:
            return address
    raise RangeFull(f"no clusterset {family} address left in {network}")


def family_of(address: str) -> str:
    try:
        return "IPv6" if ipaddress.ip_address(address).version == 6 else "IPv4"
    except ValueError:
        return ""


def in_range(address: str) -> bool:
    family = family_of(address)
    return bool(family) and ipaddress.ip_address(address) in ipaddress.ip_network(CLUSTERSET_CIDRS[family])


def wanted_ips(service_import: Mapping[str, Any], used: Iterable[str]) -> list[str]:
    """The `spec.ips` an import should have: its own valid ones kept, the missing families allocated."""
    spec = service_import.get("spec") or {}
    if spec.get("type") != multicluster.ServiceImportType.CLUSTER_SET_IP:
        return []
    families = [f for f in spec.get("ipFamilies") or ["IPv4"] if f in CLUSTERSET_CIDRS][:2] or ["IPv4"]
    current = [str(ip) for ip in spec.get("ips") or () if in_range(str(ip))]
    meta = service_import.get("metadata") or {}
    key = f"{meta.get('namespace', '')}/{meta.get('name', '')}"
    taken = set(used) - set(current)
    result = []
    for family in families:
        held = next((ip for ip in current if family_of(ip) == family), None)
        address = held if held is not None else allocate(key, family, taken)
        taken.add(address)
        result.append(address)
    return result


class ClusterSetIPAllocator(SimController):
    NAME = "clusterset-ip-allocator"
    KIND = multicluster.SERVICE_IMPORT
    WORKERS = 1
    """One worker: two imports allocated at once could otherwise pick the same free address."""

    async def reconcile(self, key: ObjectKey) -> float | None:
        service_import = self.client.peek(self.KIND, key.name, namespace=key.namespace)
        if service_import is None or (service_import.get("metadata") or {}).get("deletionTimestamp"):
            return None
        used = [
            str(ip)
            for other in self.client.list(self.KIND)
            if ObjectKey.of(other) != key
            for ip in (other.get("spec") or {}).get("ips") or ()
        ]
        wanted = wanted_ips(service_import, used)
        if wanted == list((service_import.get("spec") or {}).get("ips") or []):
            return None
        await self.client.patch(
            self.KIND, key.name, {"spec": {"ips": wanted or None}}, namespace=key.namespace
        )
        log.info("sim.clusterset_ips", namespace=key.namespace, name=key.name, ips=wanted)
        return None
