"""What the cluster failover tests share: tainting a member, reading bindings, Events and /metrics.

A NoExecute taint is put on a member's Cluster with `flotilla taint clusters` (karmadactl's verb), as
an operator — or a ClusterTaintPolicy — would; the tests do not depend on the ClusterTaintPolicy
kind. `tainted` removes what it added when the test ends, so tests on shared processes start from
untainted members.
"""

from __future__ import annotations

import re
import urllib.request
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

from tests.integration.federation import Federation, propagation_policy, resource_selector
from tests.support.kubectl import Kubectl

HEALTH_URL = re.compile(r"running \(health: (\S+)\)")


@contextmanager
def tainted(federation: Federation, cluster: str, *taints: str) -> Iterator[None]:
    """`flotilla taint clusters CLUSTER TAINT…` for the block, removed again at its end."""
    done = federation.flotilla("taint", "clusters", cluster, *taints)
    assert done.returncode == 0, done.stderr
    try:
        yield
    finally:
        removed = federation.flotilla("taint", "clusters", cluster, *(f"{taint}-" for taint in taints))
        assert removed.returncode == 0, removed.stderr


def binding(hub: Kubectl, ns: str, deployment: str) -> dict[str, Any]:
    """The ResourceBinding of Deployment `deployment`."""
    found: dict[str, Any] = hub.json("get", "resourcebinding", f"{deployment}-deployment", "-n", ns)
    return found


def targets(found: Mapping[str, Any]) -> dict[str, int]:
    """`spec.clusters` as cluster → replicas."""
    return {t["name"]: t.get("replicas", 0) for t in found["spec"].get("clusters") or []}


def tasks(found: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """`spec.gracefulEvictionTasks` by the cluster they evict from."""
    return {t["fromCluster"]: t for t in found["spec"].get("gracefulEvictionTasks") or []}


def event_items(hub: Kubectl, ns: str, reason: str, kind: str = "ResourceBinding") -> list[dict[str, Any]]:
    """The Events with `reason` about objects of `kind` in `ns`, oldest first."""
    items = hub.json("get", "events", "-n", ns)["items"]
    chosen = [e for e in items if e.get("reason") == reason and e["involvedObject"].get("kind") == kind]
    return sorted(chosen, key=lambda e: e.get("firstTimestamp") or "")


def events(hub: Kubectl, ns: str, reason: str, kind: str = "ResourceBinding") -> list[str]:
    """Messages of the Events with `reason` about objects of `kind` in `ns`, oldest first."""
    return [str(e["message"]) for e in event_items(hub, ns, reason, kind)]


def uid(member: Kubectl, *args: str) -> str | None:
    """The UID of the object `kubectl get ARGS` names on a member, None when it is not there."""
    found = member.json_or_none("get", *args)
    return None if found is None else str(found["metadata"]["uid"])


def metrics(federation: Federation) -> str:
    """The controller manager's /metrics text."""
    match = HEALTH_URL.search(federation.manager.log())
    assert match is not None, "the controller manager did not say where /metrics is"
    with urllib.request.urlopen(f"{match.group(1)}/metrics", timeout=10) as answer:
        return str(answer.read().decode())


def sample(text: str, name: str, **labels: str) -> float:
    """The value of the sample `name{labels}` in /metrics text (0 when absent)."""
    for line in text.splitlines():
        if not line.startswith(name + "{") and not line.startswith(name + " "):
            continue
        if all(f'{key}="{value}"' in line for key, value in labels.items()):
            return float(line.rsplit(" ", 1)[1])
    return 0.0


def deployment_policy(
    name: str, clusters: Sequence[str], placement: Mapping[str, Any] | None = None, **spec: Any
) -> dict[str, Any]:
    """A PropagationPolicy of Deployment `name` to `clusters`; `placement` adds placement fields, `spec`
    fields beside it (`failover`)."""
    chosen = {"clusterAffinity": {"clusterNames": list(clusters)}, **(placement or {})}
    return propagation_policy(name, [resource_selector("Deployment", name)], chosen, **spec)


DUPLICATED = {"replicaScheduling": {"replicaSchedulingType": "Duplicated"}}
"""Placement fields: every cluster runs every replica."""
