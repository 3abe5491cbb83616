"""Cluster failover: workloads leave a cluster with a NoExecute taint, and the old copy goes when it is safe.

A member that fails takes its replicas with it unless something moves them. Karmada's answer, kept
here with its API unchanged, has two controllers that meet only in a binding's spec. The taint
manager (`taintmanager.py`) evicts a cluster from every ResourceBinding and ClusterResourceBinding
that does not tolerate the cluster's NoExecute taints — at once, or when `tolerationSeconds` run out
(`noexecute.py`) — by taking it out of `spec.clusters` and recording a graceful eviction task
(`eviction.py`); the scheduler then places the replicas elsewhere. The graceful eviction controller
(`gracefuleviction.py`) drops each task once the binding is healthy on its new clusters, when its
grace period runs out, or when a person confirms (`assessment.py`); the binding controller keeps the
evicted cluster's Work while a non-`Directly` task names it, so the old copy serves until then and is
removed through its task, never otherwise. Both are level-based over the binding's spec and the
Cluster's taints, so a restart resumes mid-failover; every eviction and every dropped task is an
Event on the binding and on its template, and counted on `/metrics` (`metrics.py`).
"""
