"""Simulated nodes: what each node's kubelet registers and reports, and the node controller's taints.

`simulator.py` holds `NodeSimulator`, the component that registers a cluster's nodes, keeps their
leases and status alive, taints them as kube's node lifecycle controller does and plays the NotReady
fault.
"""
