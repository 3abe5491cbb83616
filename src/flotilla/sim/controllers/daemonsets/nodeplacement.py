"""Which nodes a pod may run on: node selector, required node affinity, taints and tolerations.

The DaemonSet controller decides per node whether its pod belongs there (kube's
`NodeShouldRunDaemonPod`): the node must match the template's `nodeSelector` and required node
affinity (`flotilla.api.nodeaffinity`), and every NoSchedule / NoExecute taint must be tolerated
(`flotilla.api.tolerations`). A pod already there may stay unless a NoExecute taint is not
tolerated.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from flotilla.api.nodeaffinity import RequiredNodeAffinity
from flotilla.api.tolerations import NO_EXECUTE, untolerated


def fits_node(pod_spec: Mapping[str, Any], node: Mapping[str, Any]) -> bool:
    """The node satisfies the pod's nodeSelector and required node affinity (kube's `nodeaffinity`)."""
    return RequiredNodeAffinity.of_pod_spec(pod_spec).matches(node)


def should_run(pod_spec: Mapping[str, Any], node: Mapping[str, Any]) -> tuple[bool, bool]:
    """(a new pod belongs on the node, an existing pod may stay there)."""
    if pod_spec.get("nodeName") and pod_spec["nodeName"] != (node.get("metadata") or {}).get("name"):
        return False, False
    if not fits_node(pod_spec, node):
        return False, False
    taints = (node.get("spec") or {}).get("taints")
    tolerations = pod_spec.get("tolerations")
    if untolerated(taints, tolerations) is None:
        return True, True
    return False, untolerated(taints, tolerations, (NO_EXECUTE,)) is None
