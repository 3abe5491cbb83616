"""Member HPAs without the fight: a member's own scaling survives the hub, and the hub shows the sum.

One federation for the module: a hub, `m1` and `m2` in one `flotilla sim`, a controller manager
with its default controllers (the marker and the syncer among them). A Deployment of 4 replicas
(100m CPU requested per pod) is divided 2+2 by static weights. Each simulated member runs kube's
HPA controller on its copy of the propagated HPA, every second here (the sim config), counting a
Ready pod's CPU at once; `flotilla sim load` gives a member's copy its load, so a member's HPA
scales from load as a real one would.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.integration.federation import (
    Federation,
    condition,
    deployment,
    member_deployments,
    members_named,
    propagation_policy,
    replicas_on,
    resource_selector,
    static_weights,
)
from tests.support.kubectl import Kubectl
from tests.support.processes import flotilla
from tests.support.waiting import eventually

pytestmark = pytest.mark.kubectl

MEMBERS = ("m1", "m2")
RETAIN = "resourcetemplate.karmada.io/retain-replicas"
MEMBER_HPA = {"syncPeriodSeconds": 1, "cpuInitializationPeriodSeconds": 0}
"""The members' HPA controllers: a look every second; a Ready pod's CPU counts at once."""


@pytest.fixture(scope="module")
def federation(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Federation]:
    root = tmp_path_factory.mktemp("member-hpa")
    sim_config = {"horizontalPodAutoscaler": MEMBER_HPA}
    with Federation(root, members_named(*MEMBERS), sim_config=sim_config) as federation:
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
    documents = [deployment(name, 4, requests={"cpu": "100m"})]
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


def load(federation: Federation, ns: str, name: str, cluster: str, cpu: str) -> None:
    """Set the total CPU deployment `name` uses in `cluster` (divided among its ready pods there)."""
    flotilla(
        *("sim", "load", f"deployment/{name}", "-n", ns, "--cluster", cluster),
        *("--data-dir", str(federation.sim.data_dir), "--cpu", cpu),
    )


def member_hpa_status(member: Kubectl, ns: str, name: str) -> dict[str, Any]:
    found: dict[str, Any] = member.json("get", "hpa", name, "-n", ns).get("status") or {}
    return found


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
    federation: Federation, hub: Kubectl, members: dict[str, Kubectl], ns: str
) -> None:
    """The propagated HPA marks the template; a load on m1 makes m1's own HPA scale its copy 2 → 4,
    which stays at 4 through a re-apply while the template's replicas become 4 + 2; the hub's HPA sums
    the members' HPA statuses; without the HPA the hub's division of the total wins again."""
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
    eventually(
        lambda: {m: member_hpa_status(members[m], ns, "web").get("currentReplicas") for m in MEMBERS},
        until=lambda current: current == {"m1": 2, "m2": 2},
        timeout=30,
        what="each member's HPA looking at its own copy",
    )

    # 200m over m1's two pods of 100m is 100% of requests against a 50% target: m1's HPA asks for
    # 4, where 200m over four pods is the target exactly. m2, idle, is held by its stabilization.
    load(federation, ns, "web", "m1", "200m")
    eventually(
        lambda: replicas_on(members, ns, "web"),
        until=lambda found: found == {"m1": 4, "m2": 2},
        timeout=30,
        what="m1's HPA scaling its copy to 4",
    )
    events = members["m1"].json(
        "get", "events", "-n", ns, "--field-selector", "involvedObject.name=web,reason=SuccessfulRescale"
    )
    assert any(
        event["message"].startswith("New size: 4; reason: cpu resource utilization")
        for event in events["items"]
    ), events["items"]
    eventually(
        lambda: template(hub, ns, "web")["spec"]["replicas"],
        until=lambda replicas: replicas == 6,
        timeout=30,
        what="the template's replicas at the members' sum",
    )
    relabel_and_wait_for_reapply(hub, members, ns, "web", "1")
    assert replicas_on(members, ns, "web") == {"m1": 4, "m2": 2}, (
        "the re-applied Works kept the members' replicas"
    )
    assert template(hub, ns, "web")["spec"]["replicas"] == 6

    eventually(
        lambda: hub.json("get", "hpa", "web", "-n", ns).get("status", {}),
        until=lambda status: (status.get("currentReplicas"), status.get("desiredReplicas")) == (6, 6),
        timeout=30,
        what="the hub's HPA status summed from the members' (4 + 2)",
    )
    eventually(
        lambda: members["m1"].json("get", "hpa", "web", "-n", ns),
        until=lambda found: (
            condition(found, "ScalingActive").get("reason") == "ValidMetricFound"
            and found["status"]["currentMetrics"][0]["resource"]["current"]["averageUtilization"] == 50
        ),
        timeout=30,
        what="m1's HPA at its target: 200m over four pods",
    )

    hub("delete", "hpa", "web", "-n", ns)
    eventually(
        lambda: RETAIN not in template(hub, ns, "web")["metadata"].get("labels", {}),
        timeout=30,
        what="the mark gone with the HPA",
    )
    eventually(
        lambda: not any(members[m].succeeds("get", "hpa", "web", "-n", ns) for m in MEMBERS),
        timeout=30,
        what="the members' HPAs gone with the hub's",
    )
    # A member HPA that outlived the mark by a moment may have scaled its copy once more; the next
    # re-apply, with no HPA left to answer it, leaves the hub's division.
    relabel_and_wait_for_reapply(hub, members, ns, "web", "2")
    eventually(
        lambda: replicas_on(members, ns, "web"),
        until=lambda found: found == {"m1": 3, "m2": 3},
        timeout=30,
        what="the hub's division of 6 applied to the members",
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
