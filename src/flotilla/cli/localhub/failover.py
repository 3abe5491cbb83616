"""The failover `flotilla up` turns on: ClusterTaintPolicies that taint a dead member `NoExecute`.

Karmada ships with cluster failover off: its cluster controller only adds `NoSchedule` taints when a
member stops answering, so the replicas placed there are simply lost until someone writes a
ClusterTaintPolicy. A local hub should show what multi-cluster is for, so the first `up` of a data
dir creates two policies (Karmada's own API, nothing special about them):

- `flotilla-unreachable`: Ready `Unknown` (the member stopped answering) →
  `cluster.karmada.io/unreachable:NoExecute`;
- `flotilla-not-ready`: Ready `False` (the member answers but is unhealthy) →
  `cluster.karmada.io/not-ready:NoExecute`;

each removed again once Ready is `True`. The controller manager's taint manager then evicts the
member from every binding that does not tolerate the taint, and the scheduler places its replicas
on the other members. A workload that must stay put tolerates the taint in its policy's
`placement.clusterTolerations` (with `tolerationSeconds` to wait a while first).

They are created only if absent, and only by the first `up` of a data dir: deleting them turns this
off for good (a later `up` does not bring them back).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from flotilla.api.karmada import constants
from flotilla.client import APIStatusError, Client, load_kubeconfig

FIELD_MANAGER = "flotilla-up"


def taint_policy(name: str, status: str, taint_key: str) -> dict[str, Any]:
    """A ClusterTaintPolicy: `taint_key:NoExecute` on every cluster while Ready is `status`."""
    return {
        "apiVersion": constants.CLUSTER_TAINT_POLICY.api_version,
        "kind": constants.CLUSTER_TAINT_POLICY.kind,
        "metadata": {"name": name, "labels": {"app.kubernetes.io/managed-by": FIELD_MANAGER}},
        "spec": {
            "addOnConditions": [
                {
                    "conditionType": constants.CLUSTER_CONDITION_READY,
                    "operator": "In",
                    "statusValues": [status],
                }
            ],
            "removeOnConditions": [
                {
                    "conditionType": constants.CLUSTER_CONDITION_READY,
                    "operator": "In",
                    "statusValues": ["True"],
                }
            ],
            "taints": [{"key": taint_key, "effect": "NoExecute"}],
        },
    }


DEFAULT_TAINT_POLICIES = (
    taint_policy("flotilla-unreachable", "Unknown", constants.TAINT_CLUSTER_UNREACHABLE),
    taint_policy("flotilla-not-ready", "False", constants.TAINT_CLUSTER_NOT_READY),
)


async def install_failover_policies(kubeconfig: Path) -> list[str]:
    """Create the default ClusterTaintPolicies that are missing; the names created."""
    created = []
    async with Client(load_kubeconfig(kubeconfig), field_manager=FIELD_MANAGER, timeout=30) as client:
        for policy in DEFAULT_TAINT_POLICIES:
            try:
                await client.create(policy)
            except APIStatusError as exc:
                if exc.code != 409:
                    raise
                continue
            created.append(policy["metadata"]["name"])
    return created
