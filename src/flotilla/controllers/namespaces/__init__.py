"""Namespace auto-propagation: hub Namespaces reach every member cluster without a policy.

`works` decides which Namespaces go and builds the Work that carries one to a cluster; the
`namespace` controller (`controller`) keeps one such Work per cluster.
"""

from flotilla.controllers.namespaces.controller import NamespaceSyncController

__all__ = ["NamespaceSyncController"]
