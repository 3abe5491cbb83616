"""Which nodes a pod may run on: node selector, required node affinity, taints and tolerations.

The DaemonSet controller decides per node whether its pod belongs there (kube's
`NodeShouldRunDaemonPod`): the node must match the template's `nodeSelector` and required node
affinity (`nodeSelectorTerms` are ORed; within a term, `matchExpressions` on labels and
`matchFields` on `metadata.name` are ANDed), and every NoSchedule / NoExecute taint must be
tolerated. A pod already there may stay unless a NoExecute taint is not tolerated.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from flotilla.api.tolerations import NO_EXECUTE, taints_of, tolerations_of, untolerated_taint


def _labels(node: Mapping[str, Any]) -> Mapping[str, str]:
    labels: Mapping[str, str] = (node.get("metadata") or {}).get("labels") or {}
    return labels


def _requirement_matches(requirement: Mapping[str, Any], values: Mapping[str, str]) -> bool:
    key = requirement.get("key", "")
    operator = requirement.get("operator", "")
    wanted = [str(value) for value in requirement.get("values") or ()]
    present = key in values
    if operator == "In":
        return present and values[key] in wanted
    if operator == "NotIn":
        return not present or values[key] not in wanted
    if operator == "Exists":
        return present
    if operator == "DoesNotExist":
        return not present
    if operator in ("Gt", "Lt") and present and len(wanted) == 1:
        try:
            actual, bound = int(values[key]), int(wanted[0])
        except ValueError:
            return False
        return actual > bound if operator == "Gt" else actual < bound
    return False


def term_matches(term: Mapping[str, Any], node: Mapping[str, Any]) -> bool:
    """One node selector term; an empty term matches no node (as in kube)."""
    expressions = term.get("matchExpressions") or []
    field_requirements = term.get("matchFields") or []
    if not expressions and not field_requirements:
        return False
    labels = _labels(node)
    fields = {"metadata.name": str((node.get("metadata") or {}).get("name", ""))}
    return all(_requirement_matches(r, labels) for r in expressions) and all(
        _requirement_matches(r, fields) for r in field_requirements
    )


def required_terms(pod_spec: Mapping[str, Any]) -> list[Mapping[str, Any]] | None:
    """The required node selector terms of a pod spec (None when it has no required affinity)."""
    node_affinity = (pod_spec.get("affinity") or {}).get("nodeAffinity") or {}
    required = node_affinity.get("requiredDuringSchedulingIgnoredDuringExecution")
    if required is None:
        return None
    return list(required.get("nodeSelectorTerms") or [])


def fits_node(pod_spec: Mapping[str, Any], node: Mapping[str, Any]) -> bool:
    """The node satisfies the pod's nodeSelector and required node affinity."""
    labels = _labels(node)
    for key, value in (pod_spec.get("nodeSelector") or {}).items():
        if labels.get(key) != value:
            return False
    terms = required_terms(pod_spec)
    return terms is None or any(term_matches(term, node) for term in terms)


def should_run(pod_spec: Mapping[str, Any], node: Mapping[str, Any]) -> tuple[bool, bool]:
    """(a new pod belongs on the node, an existing pod may stay there)."""
    if pod_spec.get("nodeName") and pod_spec["nodeName"] != (node.get("metadata") or {}).get("name"):
        return False, False
    if not fits_node(pod_spec, node):
        return False, False
    taints = taints_of((node.get("spec") or {}).get("taints"))
    tolerations = tolerations_of(pod_spec.get("tolerations"))
    if untolerated_taint(taints, tolerations) is None:
        return True, True
    return False, untolerated_taint(taints, tolerations, (NO_EXECUTE,)) is None
