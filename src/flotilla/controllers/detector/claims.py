"""The claim a policy leaves on a template and on its binding, and the patches that set or clear it.

Karmada marks a claimed object with the policy's permanent id as a label and the policy's name
(and namespace) as annotations:

* PropagationPolicy: label `propagationpolicy.karmada.io/permanent-id`, annotations
  `propagationpolicy.karmada.io/name` and `propagationpolicy.karmada.io/namespace`;
* ClusterPropagationPolicy: label `clusterpropagationpolicy.karmada.io/permanent-id`, annotation
  `clusterpropagationpolicy.karmada.io/name`.

An object carries at most one claim, so setting one clears the other kind's keys. The patches are
JSON merge patches touching only these keys (`null` deletes), so the rest of a user's template is
never rewritten; `None` means the object already says what it should.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from flotilla.api.karmada import constants
from flotilla.api.karmada.policy import PropagationPolicy
from flotilla.controllers.detector.matching import Policy

CLAIM_LABELS = (
    constants.PROPAGATION_POLICY_PERMANENT_ID_LABEL,
    constants.CLUSTER_PROPAGATION_POLICY_PERMANENT_ID_LABEL,
)
CLAIM_ANNOTATIONS = (
    constants.PROPAGATION_POLICY_NAME_ANNOTATION,
    constants.PROPAGATION_POLICY_NAMESPACE_ANNOTATION,
    constants.CLUSTER_PROPAGATION_POLICY_NAME_ANNOTATION,
)


@dataclass(frozen=True, slots=True)
class Claim:
    """The labels and annotations that say which policy claims an object."""

    labels: dict[str, str] = field(default_factory=dict)
    annotations: dict[str, str] = field(default_factory=dict)


def claim_of(policy: Policy) -> Claim:
    """The claim `policy` puts on the templates and bindings it claims."""
    if isinstance(policy, PropagationPolicy):
        return Claim(
            {constants.PROPAGATION_POLICY_PERMANENT_ID_LABEL: policy.permanent_id},
            {
                constants.PROPAGATION_POLICY_NAME_ANNOTATION: policy.metadata.name,
                constants.PROPAGATION_POLICY_NAMESPACE_ANNOTATION: policy.metadata.namespace or "",
            },
        )
    return Claim(
        {constants.CLUSTER_PROPAGATION_POLICY_PERMANENT_ID_LABEL: policy.permanent_id},
        {constants.CLUSTER_PROPAGATION_POLICY_NAME_ANNOTATION: policy.metadata.name},
    )


def _string_map(obj: Mapping[str, Any], field_name: str) -> Mapping[str, Any]:
    metadata = obj.get("metadata")
    value = metadata.get(field_name) if isinstance(metadata, Mapping) else None
    return value if isinstance(value, Mapping) else {}


def is_claimed(obj: Mapping[str, Any]) -> bool:
    """Does the object carry any policy's claim (label or annotation)?"""
    labels = _string_map(obj, "labels")
    annotations = _string_map(obj, "annotations")
    return any(key in labels for key in CLAIM_LABELS) or any(key in annotations for key in CLAIM_ANNOTATIONS)


def _changes(current: Mapping[str, Any], keys: tuple[str, ...], wanted: Mapping[str, str]) -> dict[str, Any]:
    return {key: wanted.get(key) for key in keys if current.get(key) != wanted.get(key)}


def claim_patch(obj: Mapping[str, Any], policy: Policy | None) -> dict[str, Any] | None:
    """A merge patch giving `obj` the claim of `policy` (no claim at all for None); None if it has it."""
    claim = claim_of(policy) if policy is not None else Claim()
    metadata: dict[str, Any] = {}
    labels = _changes(_string_map(obj, "labels"), CLAIM_LABELS, claim.labels)
    if labels:
        metadata["labels"] = labels
    annotations = _changes(_string_map(obj, "annotations"), CLAIM_ANNOTATIONS, claim.annotations)
    if annotations:
        metadata["annotations"] = annotations
    return {"metadata": metadata} if metadata else None
