"""The cluster controller: member health and status, health taints, execution namespaces, removal.

`controller.py` is the reconciler (one per Cluster); `collection.py` probes a member and applies
its status (also run by a Pull cluster's agent for its own cluster); `probe.py` is everything it
asks of a member. The decisions are pure and tested on their own: `health.py` (the Ready condition
and its thresholds), `summary.py` (node and resource summaries), `apienablements.py` (served APIs),
`status.py` (the status to apply), `lease.py` (a Pull cluster's agent falling silent) and
`taints.py` (the NoSchedule taints that follow Ready).
"""

from flotilla.controllers.cluster.controller import ClusterController

__all__ = ["ClusterController"]
