"""WorkloadRebalancer end to end: a hub with every default controller and two simulated Push members.

A Divided Deployment weighted by available replicas is placed while `west` carries a user's
NoSchedule taint, so all its replicas go to `east`; the taint is then lifted, and the scheduler
(Steady mode) leaves the replicas where they are. A WorkloadRebalancer asks for a fresh schedule:
the binding's `rescheduleTriggeredAt` is set to the rebalancer's creation time and the replicas
are divided over both members again. Tests run in file order on shared processes.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from flotilla.api.times import timestamp
from tests.integration.federation import (
    Federation,
    deployment,
    members_named,
    propagation_policy,
    resource_selector,
)
from tests.support.kubectl import Kubectl
from tests.support.waiting import eventually

pytestmark = pytest.mark.kubectl

MEMBERS = ("east", "west")
USER_TAINT = {"key": "maintenance", "value": "planned", "effect": "NoSchedule"}
DYNAMIC_WEIGHT = {
    "replicaSchedulingType": "Divided",
    "replicaDivisionPreference": "Weighted",
    "weightPreference": {"dynamicWeight": "AvailableReplicas"},
}


@pytest.fixture(scope="module")
def federation(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Federation]:
    members = members_named(*MEMBERS, nodes=1, node_cpu="8")
    with Federation(tmp_path_factory.mktemp("rebalancer"), members) as federation:
        yield federation.start()


def rebalancer(name: str, workloads: list[dict[str, Any]], **spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "apps.karmada.io/v1alpha1",
        "kind": "WorkloadRebalancer",
        "metadata": {"name": name},
        "spec": {"workloads": workloads, **spec},
    }


def reference(name: str, namespace: str) -> dict[str, str]:
    return {"apiVersion": "apps/v1", "kind": "Deployment", "name": name, "namespace": namespace}


def placed(hub: Kubectl, ns: str, name: str) -> dict[str, int]:
    """The binding's scheduling result: replicas by cluster."""
    binding = hub.json_or_none("get", "resourcebinding", f"{name}-deployment", "-n", ns) or {}
    return {
        target["name"]: target.get("replicas", 0) for target in binding.get("spec", {}).get("clusters") or []
    }


def binding(hub: Kubectl, ns: str, name: str) -> dict[str, Any]:
    found: dict[str, Any] = hub.json("get", "resourcebinding", f"{name}-deployment", "-n", ns)
    return found


def place_on_east_only(hub: Kubectl, ns: str, name: str) -> dict[str, Any]:
    """Deploy `name` (4 replicas, 1 CPU each) while west is tainted; its binding once all are on east."""
    hub("patch", "cluster", "west", "--type=merge", "-p", json.dumps({"spec": {"taints": [USER_TAINT]}}))
    divided(hub, ns, name, 4)
    eventually(lambda: placed(hub, ns, name) == {"east": 4}, timeout=30, what=f"{name} all on east")
    hub("patch", "cluster", "west", "--type=merge", "-p", '{"spec":{"taints":null}}')
    return binding(hub, ns, name)


def divided(hub: Kubectl, ns: str, name: str, replicas: int) -> None:
    """Deployment `name` (1 CPU a replica) divided over both members by their available replicas."""
    placement = {"clusterAffinity": {"clusterNames": list(MEMBERS)}, "replicaScheduling": DYNAMIC_WEIGHT}
    hub.apply_yaml(
        [
            deployment(name, replicas, namespace=ns, requests={"cpu": "1"}),
            propagation_policy(name, [resource_selector("Deployment", name)], placement, namespace=ns),
        ]
    )


def after_last_schedule(found: dict[str, Any]) -> None:
    """Wait until the clock is past the binding's last schedule, in the whole seconds stamps carry.

    A reschedule is asked for only by a `rescheduleTriggeredAt` *later* than `lastScheduledTime`.
    """
    last = timestamp(found["status"]["lastScheduledTime"])
    assert last is not None
    eventually(
        lambda: datetime.now(UTC) >= last + timedelta(seconds=1),
        timeout=5,
        what="a second after the last schedule",
    )


def test_the_apps_karmada_io_group_is_discovered(hub: Kubectl) -> None:
    """`kubectl api-resources` lists WorkloadRebalancer, cluster-scoped, in its own group."""
    rows = [line.split() for line in hub("api-resources", "--api-group", "apps.karmada.io").splitlines()]
    assert rows[1][0] == "workloadrebalancers"
    assert rows[1][-3:] == ["apps.karmada.io/v1alpha1", "false", "WorkloadRebalancer"]


def test_a_rebalancer_reschedules_a_divided_workload_from_scratch(hub: Kubectl, ns: str) -> None:
    """The binding is triggered at the rebalancer's creation; the Fresh schedule uses west again."""
    found = place_on_east_only(hub, ns, "web")
    assert not found["spec"].get("rescheduleTriggeredAt")
    after_last_schedule(found)

    hub.apply_yaml(rebalancer("rebalance-web", [reference("web", ns), reference("missing", ns)]))
    done = eventually(
        lambda: hub.json("get", "workloadrebalancer", "rebalance-web"),
        until=lambda r: bool(r.get("status", {}).get("finishTime")),
        timeout=30,
        what="the rebalancer finished",
    )
    assert done["status"]["observedGeneration"] == 1
    assert done["status"]["observedWorkloads"] == [
        {"workload": reference("missing", ns), "result": "Failed", "reason": "ReferencedBindingNotFound"},
        {"workload": reference("web", ns), "result": "Successful"},
    ]
    created = done["metadata"]["creationTimestamp"]
    assert binding(hub, ns, "web")["spec"]["rescheduleTriggeredAt"] == created

    spread = eventually(
        lambda: placed(hub, ns, "web"),
        until=lambda counts: set(counts) == {"east", "west"},
        timeout=30,
        what="web divided over east and west again",
    )
    assert sum(spread.values()) == 4
    rescheduled = binding(hub, ns, "web")
    last = timestamp(rescheduled["status"]["lastScheduledTime"])
    triggered = timestamp(rescheduled["spec"]["rescheduleTriggeredAt"])
    assert last is not None and triggered is not None and last >= triggered


def test_a_changed_spec_resyncs_the_list_and_keeps_what_was_done(hub: Kubectl, ns: str) -> None:
    """A new workload is triggered; a succeeded one stays recorded, a failed one listed no more goes."""
    for name in ("api", "db"):
        divided(hub, ns, name, 2)
        eventually(
            lambda name=name: sum(placed(hub, ns, name).values()) == 2, timeout=30, what=f"{name} placed"
        )
    hub.apply_yaml(rebalancer("resync", [reference("api", ns), reference("missing", ns)]))
    first = eventually(
        lambda: hub.json("get", "workloadrebalancer", "resync"),
        until=lambda r: bool(r.get("status", {}).get("finishTime")),
        timeout=30,
        what="the first round finished",
    )
    api_trigger = binding(hub, ns, "api")["spec"]["rescheduleTriggeredAt"]
    assert api_trigger == first["metadata"]["creationTimestamp"]

    hub.apply_yaml(rebalancer("resync", [reference("db", ns)]))
    second = eventually(
        lambda: hub.json("get", "workloadrebalancer", "resync"),
        until=lambda r: r.get("status", {}).get("observedGeneration") == 2,
        timeout=30,
        what="the second generation observed",
    )
    assert second["status"]["observedWorkloads"] == [
        {"workload": reference("api", ns), "result": "Successful"},
        {"workload": reference("db", ns), "result": "Successful"},
    ]
    assert second["status"]["finishTime"] >= first["status"]["finishTime"]
    assert binding(hub, ns, "db")["spec"]["rescheduleTriggeredAt"] == first["metadata"]["creationTimestamp"]
    assert binding(hub, ns, "api")["spec"]["rescheduleTriggeredAt"] == api_trigger, "api not triggered again"


def test_a_finished_rebalancer_is_deleted_after_its_ttl(hub: Kubectl, ns: str) -> None:
    """ttlSecondsAfterFinished: gone once finished (here with a Failed workload) and the TTL passed;
    without a TTL a rebalancer stays."""
    hub.apply_yaml(rebalancer("short-lived", [reference("nothing", ns)], ttlSecondsAfterFinished=1))
    eventually(
        lambda: not hub.succeeds("get", "workloadrebalancer", "short-lived"),
        timeout=30,
        what="short-lived deleted after its TTL",
    )
    assert hub.succeeds("get", "workloadrebalancer", "rebalance-web"), "no TTL: kept"
