"""Simulated nodes: what each node's kubelet registers and reports, and the node controller's taints.

`objects.py` is the Node and Lease a kubelet would write and the node's health; `taints.py` the
taints kube's node lifecycle controller keeps from cordon and readiness; `simulator.py` is
`NodeSimulator`, the component that registers a cluster's nodes, renews their leases on one timer,
taints them and plays the NotReady fault.
"""

from flotilla.sim.nodes.simulator import NodeSimulator

__all__ = ["NodeSimulator"]
