"""Karmada's validation of its own kinds, as its validating webhook and Cluster registry apply it.

For now every rule is in `placement`, the former `karmada.py`; it is split by kind family next.
"""

from flotilla.apiserver.registry.validation.karmada.placement import (
    validate_cluster,
    validate_cluster_propagation_policy,
    validate_cluster_propagation_policy_update,
    validate_cluster_update,
    validate_override_policy,
    validate_override_policy_update,
    validate_propagation_policy,
    validate_propagation_policy_update,
    validate_resource_binding,
    validate_resource_binding_update,
    validate_work,
    validate_work_update,
)

__all__ = [
    "validate_cluster",
    "validate_cluster_propagation_policy",
    "validate_cluster_propagation_policy_update",
    "validate_cluster_update",
    "validate_override_policy",
    "validate_override_policy_update",
    "validate_propagation_policy",
    "validate_propagation_policy_update",
    "validate_resource_binding",
    "validate_resource_binding_update",
    "validate_work",
    "validate_work_update",
]
