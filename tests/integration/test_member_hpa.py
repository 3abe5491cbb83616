"""Member HPAs without the fight: a member's own scaling survives the hub, and the hub shows the sum.

One federation for the module: a hub, `m1` and `m2` in one `flotilla sim`, a controller manager
with its default controllers (the marker and the syncer among them). A Deployment of 4 replicas is
divided 2+2 by static weights. The simulated members run no HPA controller, so the test scales a
member's copy with `kubectl scale`, as that member's HPA would, and writes the member HPA's status
as its controller would.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from tests.integration.federation import (
    Federation,
    deployment,
    member_deployments,
    members_named,
    propagation_policy,
    replicas_on,
    resource_selector,
    static_weights,
)
from tests.support.kubectl import Kubectl
from tests.support.waiting import eventually

pytestmark = pytest.mark.kubectl

MEMBERS = ("m1", "m2")
RETAIN = "resourcetemplate.karmada.io/retain-replicas"


@pytest.fixture(scope="module")
def federation(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Federation]:
    root = tmp_path_factory.mktemp("member-hpa")
    with Federation(root, members_named(*MEMBERS)) as federation:
        yield federation.start()


def horizontal_pod_autoscaler(name: str) -> dict[str, Any]:
    return {
        "apiVersion": "autoscaling/v2",
        "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": name},
        "spec": {
            "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": name},
            "minReplicas": 1,
            "maxReplicas": 10,
            "metrics": [
                {
                    "type": "Resource",
                    "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 50}},
                }
            ],
        },
    }


def propagated(name: str, *, with_hpa: bool) -> list[dict[str, Any]]:
    """Deployment `name` of 4 replicas (and its HPA), divided 1:1 over both members by one policy."""
    selectors = [resource_selector("Deployment", name)]
    documents = [deployment(name, 4)]
    if with_hpa:
        selectors.append(resource_selector("HorizontalPodAutoscaler", name, "autoscaling/v2"))
        documents.append(horizontal_pod_autoscaler(name))
    placement = {
        "clusterAffinity": {"clusterNames": list(MEMBERS)},
        "replicaScheduling": static_weights(dict.fromkeys(MEMBERS, 1)),
    }
    return [*documents, propagation_policy(name, selectors, placement)]


def template(hub: Kubectl, ns: str, name: str) -> dict[str, Any]:
    found: dict[str, Any] = hub.json("get", "deploy", name, "-n", ns)
    return found


def labels_on(members: dict[str, Kubectl], ns: str, name: str, label: str) -> dict[str, str | None]:
    return {
        cluster: obj["metadata"].get("labels", {}).get(label)
        for cluster, obj in member_deployments(members, ns, name).items()
    }


def relabel_and_wait_for_reapply(
    hub: Kubectl, members: dict[str, Kubectl], ns: str, name: str, value: str
) -> None:
    """Change a template label, so each member's Work is applied again, and wait until both copies have it."""
    hub("label", "deploy", name, "-n", ns, f"revision={value}", "--overwrite")
    eventually(
        lambda: labels_on(members, ns, name, "revision") == dict.fromkeys(MEMBERS, value),
        timeout=30,
        what=f"both member copies re-applied with revision={value}",
    )


def test_a_member_keeps_what_its_hpa_chose_and_the_template_shows_the_sum(
    hub: Kubectl, members: dict[str, Kubectl], ns: str
) -> None:
    """The propagated HPA marks the template; m1 scaled to 5 stays at 5 through a re-apply, and the
    template's replicas become 5 + 2; the hub's HPA sums the members' HPA statuses; without the HPA
    the hub's division of the total wins again."""
    hub.apply_yaml(propagated("web", with_hpa=True), "-n", ns)
    eventually(
        lambda: template(hub, ns, "web")["metadata"].get("labels", {}).get(RETAIN),
        timeout=30,
        what="the template marked by the propagated HPA",
    )
    eventually(
        lambda: labels_on(members, ns, "web", RETAIN) == dict.fromkeys(MEMBERS, "true"),
        timeout=30,
        what="both member copies rendered with the mark",
    )
    eventually(lambda: replicas_on(members, ns, "web") == {"m1": 2, "m2": 2}, timeout=30, what="2 + 2")
    assert all(members[m].succeeds("get", "hpa", "web", "-n", ns) for m in MEMBERS), "the HPA reaches both"

    members["m1"]("scale", "deploy", "web", "-n", ns, "--replicas=5")  # what m1's HPA would do
    eventually(
        lambda: template(hub, ns, "web")["spec"]["replicas"],
        until=lambda replicas: replicas == 7,
        timeout=30,
        what="the template's replicas at the members' sum",
    )
    relabel_and_wait_for_reapply(hub, members, ns, "web", "1")
    assert replicas_on(members, ns, "web") == {"m1": 5, "m2": 2}, (
        "the re-applied Works kept the members' replicas"
    )
    assert template(hub, ns, "web")["spec"]["replicas"] == 7

    for cluster, (current, desired) in {"m1": (5, 5), "m2": (2, 3)}.items():
        status = json.dumps({"status": {"currentReplicas": current, "desiredReplicas": desired}})
        members[cluster](
            "patch", "hpa", "web", "-n", ns, "--subresource=status", "--type=merge", "-p", status
        )
    eventually(
        lambda: hub.json("get", "hpa", "web", "-n", ns).get("status", {}),
        until=lambda status: (status.get("currentReplicas"), status.get("desiredReplicas")) == (7, 8),
        timeout=30,
        what="the hub's HPA status summed from the members'",
    )

    hub("delete", "hpa", "web", "-n", ns)
    eventually(
        lambda: RETAIN not in template(hub, ns, "web")["metadata"].get("labels", {}),
        timeout=30,
        what="the mark gone with the HPA",
    )
    eventually(
        lambda: replicas_on(members, ns, "web"),
        until=lambda found: sorted(found.values()) == [3, 4],
        timeout=30,
        what="the hub's division of 7 applied to the members",
    )


def test_without_an_hpa_the_hubs_replicas_win_as_before(
    hub: Kubectl, members: dict[str, Kubectl], ns: str
) -> None:
    """An unmarked workload scaled in a member goes back to its share when its Work is applied again,
    and the template keeps its own replicas."""
    hub.apply_yaml(propagated("plain", with_hpa=False), "-n", ns)
    eventually(lambda: replicas_on(members, ns, "plain") == {"m1": 2, "m2": 2}, timeout=30, what="2 + 2")
    members["m1"]("scale", "deploy", "plain", "-n", ns, "--replicas=5")
    relabel_and_wait_for_reapply(hub, members, ns, "plain", "1")
    assert replicas_on(members, ns, "plain") == {"m1": 2, "m2": 2}
    found = template(hub, ns, "plain")
    assert found["spec"]["replicas"] == 4
    assert RETAIN not in found["metadata"].get("labels", {})


def test_a_deployment_created_after_its_propagated_hpa_is_marked(hub: Kubectl, ns: str) -> None:
    """The HPA informer's index finds the HPA naming a Deployment that appears later."""
    hpa, policy = (doc for doc in propagated("late", with_hpa=True) if doc["kind"] != "Deployment")
    hub.apply_yaml([hpa, policy], "-n", ns)
    eventually(
        lambda: hub.json("get", "hpa", "late", "-n", ns)["metadata"].get("labels", {}),
        until=lambda labels: "propagationpolicy.karmada.io/permanent-id" in labels,
        timeout=30,
        what="the HPA claimed by its policy",
    )
    hub.apply_yaml(deployment("late", 4), "-n", ns)
    eventually(
        lambda: template(hub, ns, "late")["metadata"].get("labels", {}).get(RETAIN),
        timeout=30,
        what="the Deployment marked on creation",
    )
