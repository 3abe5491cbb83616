"""The ClusterTaintPolicy controller: a Cluster's taints follow its conditions, as the policies say.

For every Cluster, each ClusterTaintPolicy that selects it (`targetClusters`, none: all; the same
ClusterAffinity matching override rules use) adds its taints, stamped `timeAdded`, while all its
`addOnConditions` hold on the Cluster's `status.conditions`, and removes them while all its
`removeOnConditions` hold; policies apply oldest first, add before remove, and an empty list of
conditions never fires (`policies.py`, pure). Taints are never removed because a policy was
deleted or stopped selecting a cluster, and the other taints on the list — the cluster
controller's health taints, users' own — are never touched: the new list is computed from the
current one and written against the resourceVersion it was read at, recomputed on 409
(`controller.py`). Karmada's `cluster-taint-policy-controller`, enabled as `clustertaintpolicy`.
"""

from flotilla.controllers.clustertaint.controller import ClusterTaintPolicyController

__all__ = ["ClusterTaintPolicyController"]
