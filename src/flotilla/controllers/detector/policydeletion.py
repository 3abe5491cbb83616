"""What deleting a propagation policy waits for: its claims released, then its finalizer removed.

Karmada's webhook gives every new PropagationPolicy the finalizer
`karmada.io/propagation-policy-controller` and every ClusterPropagationPolicy
`karmada.io/cluster-propagation-policy-controller` (the API server's built-in admission does the
same here; OverridePolicies get none). So a deleted policy stays, with its `deletionTimestamp`, until
the detector has taken its claim — the permanent-id label and the name annotations — off every
template it claimed and off their bindings (the bindings themselves stay: workloads keep running
where they are). Then the detector removes the finalizer and the API server deletes the policy.

Because the finalizer is on the object, a policy deleted while the controller manager is down is
cleaned up when it comes back: the informer lists it, still there and marked for deletion.

This module holds the pure parts: the queue key of a policy, whether one awaits the cleanup, which
templates carry its claim, and the patches. Each release patch names the resourceVersion the
detector read (a merge patch with `metadata.resourceVersion` is conditional), so a template or
binding changed meanwhile — claimed by another policy, say — answers 409 and the cleanup runs
again on fresh caches instead of removing someone else's claim. The finalizer goes by a JSON patch
that tests the entry before removing it.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from flotilla.api.karmada import constants
from flotilla.api.objectkeys import KindKey
from flotilla.api.objects import metadata_of
from flotilla.api.scheme import GroupVersionKind
from flotilla.controllers.detector.binding import spec_of
from flotilla.controllers.detector.claims import claim_patch

POLICY_FINALIZERS: Mapping[GroupVersionKind, str] = {
    constants.PROPAGATION_POLICY: constants.PROPAGATION_POLICY_CONTROLLER_FINALIZER,
    constants.CLUSTER_PROPAGATION_POLICY: constants.CLUSTER_PROPAGATION_POLICY_CONTROLLER_FINALIZER,
}
"""The finalizer each policy kind carries until its claims are released (Karmada's names)."""

CLAIM_LABELS: Mapping[GroupVersionKind, str] = {
    constants.PROPAGATION_POLICY: constants.PROPAGATION_POLICY_PERMANENT_ID_LABEL,
    constants.CLUSTER_PROPAGATION_POLICY: constants.CLUSTER_PROPAGATION_POLICY_PERMANENT_ID_LABEL,
}
"""The label by which a template or binding says which policy of each kind claims it."""


@dataclass(frozen=True, slots=True)
class PolicyKey(KindKey):
    """The queue key of a (Cluster)PropagationPolicy being deleted."""


def policy_key(gvk: GroupVersionKind, policy: Mapping[str, Any]) -> PolicyKey:
    return PolicyKey.of(gvk, policy)


def _finalizers(obj: Mapping[str, Any]) -> list[Any]:
    finalizers = metadata_of(obj).get("finalizers")
    return list(finalizers) if isinstance(finalizers, list) else []


def awaits_cleanup(gvk: GroupVersionKind, policy: Mapping[str, Any]) -> bool:
    """Is the policy being deleted, with the detector's finalizer still on it?"""
    finalizer = POLICY_FINALIZERS.get(gvk)
    return (
        finalizer is not None
        and bool(metadata_of(policy).get("deletionTimestamp"))
        and finalizer in _finalizers(policy)
    )


def permanent_id(gvk: GroupVersionKind, obj: Mapping[str, Any]) -> str:
    """The policy's permanent id, or the id of the policy of that kind claiming `obj` ("" if none)."""
    labels = metadata_of(obj).get("labels")
    value = labels.get(CLAIM_LABELS[gvk]) if isinstance(labels, Mapping) else None
    return str(value or "")


def selected_kinds(policy: Mapping[str, Any]) -> Iterator[tuple[GroupVersionKind, str | None]]:
    """Each distinct (kind, namespace) the policy's selectors name; the namespace is None for "all".

    A PropagationPolicy selects only in its own namespace; a ClusterPropagationPolicy's selector in
    the namespace it names, or in every namespace (and among cluster-scoped objects) if none."""
    policy_namespace = str(metadata_of(policy).get("namespace") or "")
    seen: set[tuple[GroupVersionKind, str | None]] = set()
    for selector in spec_of(policy).get("resourceSelectors") or ():
        if not isinstance(selector, Mapping):
            continue
        namespace = policy_namespace or str(selector.get("namespace") or "") or None
        kind = (GroupVersionKind.of(selector), namespace)
        if kind not in seen:
            seen.add(kind)
            yield kind


def release_patch(obj: Mapping[str, Any]) -> dict[str, Any] | None:
    """A merge patch taking every policy claim off `obj`, valid only at the resourceVersion read."""
    patch = claim_patch(obj, None)
    if patch is None:
        return None
    patch["metadata"]["resourceVersion"] = str(metadata_of(obj).get("resourceVersion") or "")
    return patch


def finalizer_removal(gvk: GroupVersionKind, policy: Mapping[str, Any]) -> list[dict[str, Any]] | None:
    """JSON patch operations removing the detector's finalizer (tested first); None if it is gone."""
    finalizer = POLICY_FINALIZERS[gvk]
    finalizers = _finalizers(policy)
    if finalizer not in finalizers:
        return None
    path = f"/metadata/finalizers/{finalizers.index(finalizer)}"
    return [{"op": "test", "path": path, "value": finalizer}, {"op": "remove", "path": path}]
