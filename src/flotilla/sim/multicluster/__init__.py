"""What a simulated member does as part of a clusterset: its identity, clusterset IPs, and DNS.

A real cluster taking part in the Multi-Cluster Services API runs an MCS implementation's agents
beside its API server: its ClusterProperty objects say who it is (KEP-2149), something allocates a
virtual IP for each imported service, and a DNS provider answers for `clusterset.local`. A
simulated member does the same from its own API objects, through its in-process client:

- `identity` seeds the ClusterProperties `cluster.clusterset.k8s.io` (the member's name) and
  `clusterset.k8s.io` (the clusterset's);
- `clustersetips` allocates `spec.ips` of every `ClusterSetIP` ServiceImport from a clusterset
  range distinct from the Service range, like kube's Service IP allocator;
- `dns` answers what the specification's DNS (schema 1.0.0) requires — `records` decides from the
  member's ServiceImports, EndpointSlices and Services (pure), `server` is a tiny DNS server (UDP
  and TCP) on loopback per member whose address the sim's state file gives.

The MCS controller in the controller manager writes the ServiceImports and EndpointSlices; none of
this reads the hub.
"""

from __future__ import annotations

from flotilla.sim.multicluster.clustersetips import ClusterSetIPAllocator
from flotilla.sim.multicluster.dns.server import DNSServer
from flotilla.sim.multicluster.identity import ClusterIdentity

__all__ = ["ClusterIdentity", "ClusterSetIPAllocator", "DNSServer"]
