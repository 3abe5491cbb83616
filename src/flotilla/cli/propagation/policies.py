"""The PropagationPolicies the CLI writes for the user: `apply --all-clusters` and `promote`.

karmadactl generates one policy per object, selecting exactly that object: a PropagationPolicy in
the object's namespace, or a ClusterPropagationPolicy for a cluster-scoped object. The name is
Karmada's `GeneratePolicyName`: the object's name (`:` turned into `.`, as RBAC names may hold
colons that CRD names may not), `-`, and the 32-bit FNV-1a hash of the namespace followed by Go's
spelling of the GroupVersionKind (`apps/v1, Kind=Deployment`, `/v1, Kind=ConfigMap` for the core
group), written in decimal and mapped into the vowel-free alphabet. The same object therefore gets
the same policy name from karmadactl and from Flotilla, and applying again updates that policy.

- `apply --all-clusters` places on every cluster: an empty `clusterAffinity` selects all of them,
  and without `replicaScheduling` every cluster gets the full replica count (Duplicated).
  `apply --cluster a,b` lists the clusters instead.
- `promote` places on the one member the object came from, with `conflictResolution: Overwrite` so
  the member object is adopted in place rather than reported as a conflict, and
  `preserveResourcesOnDeletion` so deleting the template later does not delete a workload that
  existed before Flotilla managed it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from flotilla.api.karmada import constants
from flotilla.api.karmada.constants import ConflictResolution
from flotilla.api.karmada.names import fnv32a, safe_encode
from flotilla.api.scheme import GroupVersionKind

KARMADA_GROUPS = frozenset({constants.POLICY_GROUP, constants.WORK_GROUP, constants.CLUSTER_GROUP})
"""Groups Karmada never propagates: no policy is generated for their objects."""


def go_gvk_string(gvk: GroupVersionKind) -> str:
    """apimachinery's `GroupVersionKind.String()`: `apps/v1, Kind=Deployment`, `/v1, Kind=Pod`."""
    return f"{gvk.group}/{gvk.version}, Kind={gvk.kind}"


def policy_name(namespace: str, name: str, gvk: GroupVersionKind) -> str:
    """The name karmadactl gives the policy it generates for object `namespace/name` of `gvk`."""
    digest = fnv32a(namespace + go_gvk_string(gvk))
    return f"{name.replace(':', '.')}-{safe_encode(str(digest))}".lower()


def propagates(gvk: GroupVersionKind) -> bool:
    """Whether objects of `gvk` can be propagated (Karmada's own kinds cannot)."""
    return gvk.group not in KARMADA_GROUPS


def policy_for(
    gvk: GroupVersionKind,
    name: str,
    namespace: str,
    *,
    policy: str,
    placement: dict[str, Any],
    select_namespace: bool = True,
    **spec: Any,
) -> dict[str, Any]:
    """A (Cluster)PropagationPolicy named `policy` selecting exactly one object, with `placement`.

    A namespaced object (non-empty `namespace`) gets a PropagationPolicy in that namespace, a
    cluster-scoped one a ClusterPropagationPolicy. `select_namespace` writes the namespace into the
    selector too (as `karmadactl apply` does; `promote` leaves it implied by the policy's own).
    Extra keyword arguments are further spec fields, in Karmada's spelling.
    """
    selector: dict[str, Any] = {"apiVersion": gvk.api_version, "kind": gvk.kind, "name": name}
    if namespace and select_namespace:
        selector["namespace"] = namespace
    kind = constants.PROPAGATION_POLICY if namespace else constants.CLUSTER_PROPAGATION_POLICY
    metadata: dict[str, Any] = {"name": policy}
    if namespace:
        metadata["namespace"] = namespace
    return {
        "apiVersion": kind.api_version,
        "kind": kind.kind,
        "metadata": metadata,
        "spec": {"resourceSelectors": [selector], "placement": placement, **spec},
    }


def placement_on(cluster_names: Sequence[str] | None) -> dict[str, Any]:
    """A placement on the named clusters, or on every cluster when `cluster_names` is None."""
    if cluster_names is None:
        return {"clusterAffinity": {}}
    return {"clusterAffinity": {"clusterNames": list(cluster_names)}}


def apply_policy(
    gvk: GroupVersionKind, name: str, namespace: str, cluster_names: Sequence[str] | None
) -> dict[str, Any]:
    """The policy `apply --all-clusters` (None) or `apply --cluster a,b` writes beside an object."""
    return policy_for(
        gvk,
        name,
        namespace,
        policy=policy_name(namespace, name, gvk),
        placement=placement_on(cluster_names),
    )


def promotion_policy(
    gvk: GroupVersionKind,
    name: str,
    namespace: str,
    cluster: str,
    *,
    policy: str = "",
    dependencies: bool = False,
) -> dict[str, Any]:
    """The policy `promote` writes: the object stays on `cluster`, adopted there in place."""
    spec: dict[str, Any] = {
        "conflictResolution": str(ConflictResolution.OVERWRITE),
        "preserveResourcesOnDeletion": True,
    }
    if dependencies:
        spec["propagateDeps"] = True
    return policy_for(
        gvk,
        name,
        namespace,
        policy=policy or policy_name(namespace, name, gvk),
        placement=placement_on([cluster]),
        select_namespace=False,
        **spec,
    )
