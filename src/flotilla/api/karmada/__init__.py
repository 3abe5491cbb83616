"""Karmada's API kinds as typed models, with the names and keys Karmada's components agree on.

`constants` holds the kinds, resources, labels, annotations, finalizers and enumerated values;
`policy`, `work` and `cluster` the pydantic models of the policy.karmada.io, work.karmada.io and
cluster.karmada.io kinds, with `taintpolicy` (ClusterTaintPolicy) and `rebalancer`
(apps.karmada.io's WorkloadRebalancer) beside them; `clustertaints` how a Cluster's shared taint
list is edited; `names` the names Karmada derives (bindings, Works, execution namespaces).
Objects travel as plain JSON dicts: `Model.from_object(obj)` reads one, `model.to_object()`
writes it back with Karmada's field names and nothing lost.
"""

from flotilla.api.karmada.cluster import Cluster
from flotilla.api.karmada.model import KarmadaModel
from flotilla.api.karmada.policy import (
    ClusterOverridePolicy,
    ClusterPropagationPolicy,
    OverridePolicy,
    PropagationPolicy,
)
from flotilla.api.karmada.rebalancer import WorkloadRebalancer
from flotilla.api.karmada.taintpolicy import ClusterTaintPolicy
from flotilla.api.karmada.work import ClusterResourceBinding, ResourceBinding, Work

__all__ = [
    "Cluster",
    "ClusterOverridePolicy",
    "ClusterPropagationPolicy",
    "ClusterResourceBinding",
    "ClusterTaintPolicy",
    "KarmadaModel",
    "OverridePolicy",
    "PropagationPolicy",
    "ResourceBinding",
    "Work",
    "WorkloadRebalancer",
]
