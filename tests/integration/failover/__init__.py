"""Failover end to end: cluster taints, taint-based eviction, application failover, rebalancing."""
