"""The scheduler controller against a real `flotilla apiserver`: bindings in, results and conditions out.

Clusters (with the status a cluster controller would report) and bindings are created by hand on
one hub per module; each test runs its own controller (informers, work queue, a frozen clock) and
uses cluster names and labels of its own, so tests do not see each other's objects.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest

from flotilla.api.karmada import constants
from flotilla.api.karmada.federatedquota import FEDERATED_RESOURCE_QUOTA
from flotilla.api.objectkeys import ObjectKey
from flotilla.api.scheme import GroupVersionKind
from flotilla.client import Client, load_kubeconfig
from flotilla.runtime.hubcontroller import ControllerContext
from flotilla.runtime.informers import SharedInformers
from flotilla.runtime.members import MemberClients
from flotilla.scheduler.core.errors import FitError, UnschedulableError, scheduled_condition
from flotilla.scheduler.core.generic import ScheduleResult
from flotilla.scheduler.core.inputs import TargetCluster
from flotilla.scheduler.scheduler import (
    FAILED_CLUSTERS_NOTE,
    FIELD_MANAGER,
    SchedulerController,
    applied_placement,
    awaits_result,
    is_responsible,
    result_differs,
    scheduled_status,
)
from tests.support.clock import ManualClock
from tests.support.processes import ServerProcess
from tests.support.waiting import eventually_async

POLICY_LABEL = {constants.PROPAGATION_POLICY_PERMANENT_ID_LABEL: "policy-id"}
API_ENABLEMENTS = [
    {"groupVersion": "apps/v1", "resources": [{"name": "deployments", "kind": "Deployment"}]},
    {
        "groupVersion": "rbac.authorization.k8s.io/v1",
        "resources": [{"name": "clusterroles", "kind": "ClusterRole"}],
    },
]
NOW = "2026-01-01T00:00:00Z"
EVENT = GroupVersionKind("", "v1", "Event")
EARLIER = "2025-12-31T00:00:00Z"


# --- the pure parts ----------------------------------------------------------------------------------


def test_is_responsible_follows_karmadas_binding_filter() -> None:
    """Only policy-claimed bindings for the default scheduler, with scheduling not suspended, are taken."""
    claimed = {"metadata": {"labels": POLICY_LABEL}, "spec": {}}
    assert is_responsible(claimed)
    assert not is_responsible({"metadata": {}, "spec": {}})
    assert not is_responsible({**claimed, "spec": {"schedulerName": "another-scheduler"}})
    assert not is_responsible({**claimed, "spec": {"suspension": {"scheduling": True}}})
    assert is_responsible({**claimed, "spec": {"schedulerName": "default-scheduler"}})


def test_awaits_result_until_a_success_observes_the_generation() -> None:
    """A binding waits for a result until Scheduled is True for its current generation."""
    done: dict[str, Any] = {
        "metadata": {"generation": 3},
        "status": {"schedulerObservedGeneration": 3, "conditions": [{"type": "Scheduled", "status": "True"}]},
    }
    assert not awaits_result(done)
    assert awaits_result({**done, "metadata": {"generation": 4}})
    assert awaits_result(
        {**done, "status": {**done["status"], "conditions": [{"type": "Scheduled", "status": "False"}]}}
    )
    assert awaits_result({"metadata": {"generation": 1}})


def test_scheduled_status_keeps_the_transition_time_while_the_status_holds() -> None:
    """A success after a success keeps lastTransitionTime; a failure after it moves it."""
    binding = _scheduled_binding()
    success = ScheduleResult((TargetCluster("a", 1),))
    again = scheduled_status(binding, scheduled_condition(None), NOW, result=success, refresh_time=False)
    failed = scheduled_status(
        binding, scheduled_condition(UnschedulableError("short")), NOW, result=None, refresh_time=False
    )
    assert again["conditions"][0]["lastTransitionTime"] == EARLIER
    assert failed["conditions"][0]["lastTransitionTime"] == NOW
    assert failed["conditions"][0]["reason"] == "Unschedulable"


def test_scheduled_status_carries_over_what_a_failure_does_not_change() -> None:
    """Apply drops fields a manager stops sending, so a failure re-sends the last success's fields."""
    binding = _scheduled_binding()
    failed = scheduled_status(
        binding, scheduled_condition(FitError(0, {})), NOW, result=None, refresh_time=True
    )
    assert failed["schedulerObservedGeneration"] == 2
    assert failed["lastScheduledTime"] == EARLIER
    assert failed["schedulerObservingAffinityName"] == "first"


def test_scheduled_status_moves_time_and_generation_only_on_success() -> None:
    """A success observes the generation, names the affinity term, and refreshes the time if asked."""
    binding = _scheduled_binding(generation=5)
    success = ScheduleResult((TargetCluster("a", 1),), affinity_name="second")
    refreshed = scheduled_status(binding, scheduled_condition(None), NOW, result=success, refresh_time=True)
    kept = scheduled_status(binding, scheduled_condition(None), NOW, result=success, refresh_time=False)
    assert refreshed["schedulerObservedGeneration"] == 5
    assert refreshed["schedulerObservingAffinityName"] == "second"
    assert refreshed["lastScheduledTime"] == NOW
    assert kept["lastScheduledTime"] == EARLIER


def test_result_differs_reads_absent_replicas_as_zero() -> None:
    """`{name: a}` and `{name: a, replicas: 0}` are the same result; other replicas are not."""
    binding = {
        "metadata": {"annotations": {constants.APPLIED_PLACEMENT_ANNOTATION: '{"clusterAffinity":{}}'}},
        "spec": {"placement": {"clusterAffinity": {}}, "clusters": [{"name": "a", "replicas": 0}]},
    }
    assert not result_differs(binding, [{"name": "a"}])
    assert result_differs(binding, [{"name": "a", "replicas": 1}])


def test_result_differs_compares_the_recorded_placement_by_value() -> None:
    """Key order in the annotation does not matter; a different or unreadable placement does."""
    placement = {
        "clusterAffinity": {"clusterNames": ["a"]},
        "replicaScheduling": {"replicaSchedulingType": "Divided"},
    }
    annotations: dict[str, str] = {}
    binding = {"metadata": {"annotations": annotations}, "spec": {"placement": placement, "clusters": []}}
    annotations[constants.APPLIED_PLACEMENT_ANNOTATION] = applied_placement(binding)
    assert not result_differs(binding, [])
    annotations[constants.APPLIED_PLACEMENT_ANNOTATION] = json.dumps(dict(reversed(placement.items())))
    assert not result_differs(binding, [])
    annotations[constants.APPLIED_PLACEMENT_ANNOTATION] = '{"clusterAffinity":{}}'
    assert result_differs(binding, [])
    annotations[constants.APPLIED_PLACEMENT_ANNOTATION] = "{not json"
    assert result_differs(binding, [])


def _scheduled_binding(generation: int = 2) -> dict[str, Any]:
    return {
        "metadata": {"generation": generation},
        "status": {
            "schedulerObservedGeneration": 2,
            "lastScheduledTime": EARLIER,
            "schedulerObservingAffinityName": "first",
            "conditions": [
                {"type": "FullyApplied", "status": "True"},
                {
                    "type": "Scheduled",
                    "status": "True",
                    "reason": "Success",
                    "message": "Binding has been scheduled successfully.",
                    "lastTransitionTime": EARLIER,
                },
            ],
        },
    }


# --- against a hub -----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def hub_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    process = ServerProcess(tmp_path_factory.mktemp("hub")).start()
    yield process
    process.stop()


@pytest.fixture
async def hub(hub_server: ServerProcess) -> AsyncIterator[Client]:
    client = Client(load_kubeconfig(hub_server.kubeconfig, None), field_manager="test")
    yield client
    await client.close()


@pytest.fixture
async def scheduler(hub_server: ServerProcess) -> AsyncIterator[SchedulerController]:
    client = Client(load_kubeconfig(hub_server.kubeconfig, None), field_manager="flotilla-controller-manager")
    informers = SharedInformers(client)
    members = MemberClients(informers, field_manager="flotilla-controller-manager")
    controller = SchedulerController(ControllerContext(client, informers, members, clock=ManualClock()))
    controller.setup()
    informers.start()
    await informers.wait_synced(10)
    controller.start()
    yield controller
    await controller.stop()
    await informers.stop()
    await members.close()
    await client.close()


@pytest.fixture
def prefix() -> str:
    return f"t{uuid.uuid4().hex[:6]}"


async def test_divided_binding_gets_its_result_condition_and_event(
    hub: Client, scheduler: SchedulerController, prefix: str
) -> None:
    """Two equal clusters split two replicas; status, annotation, ownership and Event follow Karmada's."""
    await make_cluster(hub, f"{prefix}-a")
    await make_cluster(hub, f"{prefix}-b")
    placement = divided([f"{prefix}-a", f"{prefix}-b"])
    await hub.create(binding(f"{prefix}-web", replicas=2, placement=placement))

    done = await eventually_async(lambda: get_binding(hub, f"{prefix}-web"), until=is_scheduled)

    assert targets(done) == {f"{prefix}-a": 1, f"{prefix}-b": 1}
    condition = condition_of(done)
    assert (condition["status"], condition["reason"]) == ("True", "Success")
    assert condition["message"] == "Binding has been scheduled successfully."
    assert done["status"]["schedulerObservedGeneration"] == done["metadata"]["generation"]
    assert done["status"]["lastScheduledTime"] == NOW
    annotation = done["metadata"]["annotations"][constants.APPLIED_PLACEMENT_ANNOTATION]
    assert annotation.startswith("{") and f"{prefix}-a" in annotation
    owned = [
        entry["fieldsV1"]
        for entry in done["metadata"]["managedFields"]
        if entry["manager"] == FIELD_MANAGER and not entry.get("subresource")
    ]
    assert owned and "f:clusters" in owned[0]["f:spec"]
    event = await eventually_async(lambda: events_about(hub, f"{prefix}-web"))
    assert event[0]["reason"] == "ScheduleBindingSucceed"
    assert event[0]["type"] == "Normal"
    assert f"{prefix}-a:1" in event[0]["message"]


async def test_no_cluster_fit_writes_an_empty_result_and_a_warning(
    hub: Client, scheduler: SchedulerController, prefix: str
) -> None:
    """No cluster passes the filters: spec.clusters is emptied, reason NoClusterFit, a Warning Event."""
    await make_cluster(hub, f"{prefix}-a")
    await hub.create(binding(f"{prefix}-web", replicas=2, placement=divided([f"{prefix}-missing"])))

    done = await eventually_async(
        lambda: get_binding(hub, f"{prefix}-web"), until=lambda b: scheduled(b) is not None
    )

    condition = condition_of(done)
    assert (condition["status"], condition["reason"]) == ("False", "NoClusterFit")
    assert condition["message"].startswith("0/")
    assert done["spec"]["clusters"] == []
    assert "schedulerObservedGeneration" not in done["status"]
    warning = await eventually_async(lambda: events_about(hub, f"{prefix}-web"))
    assert (warning[0]["type"], warning[0]["reason"]) == ("Warning", "ScheduleBindingFailed")


async def test_a_result_the_quota_refuses_sets_scheduled_false_quota_exceeded(
    hub: Client, scheduler: SchedulerController, prefix: str
) -> None:
    """A FederatedResourceQuota of 1 CPU refuses 50 x 100m: no result, Scheduled=False with reason
    QuotaExceeded and the refusal's message (Karmada's `getConditionByError`), a Warning Event."""
    await make_cluster(hub, f"{prefix}-a")
    quota = {
        "apiVersion": "policy.karmada.io/v1alpha1",
        "kind": "FederatedResourceQuota",
        "metadata": {"name": f"{prefix}-quota", "namespace": "default"},
        "spec": {"overall": {"cpu": "1"}},
    }
    await hub.create(quota)
    try:
        await hub.create(binding(f"{prefix}-web", replicas=50, placement=divided([f"{prefix}-a"])))
        done = await eventually_async(
            lambda: get_binding(hub, f"{prefix}-web"), until=lambda b: scheduled(b) is not None
        )
    finally:
        await hub.delete(FEDERATED_RESOURCE_QUOTA, f"{prefix}-quota", namespace="default")

    condition = condition_of(done)
    assert (condition["status"], condition["reason"]) == ("False", "QuotaExceeded")
    assert condition["message"].startswith(f'resourcebindings.work.karmada.io "{prefix}-web" is forbidden: ')
    assert f"exceeded quota: {prefix}-quota, requested: cpu=5" in condition["message"]
    assert not done["spec"].get("clusters")
    warning = await eventually_async(lambda: events_about(hub, f"{prefix}-web"))
    assert (warning[0]["type"], warning[0]["reason"]) == ("Warning", "ScheduleBindingFailed")


async def test_unschedulable_binding_is_placed_once_capacity_grows(
    hub: Client, scheduler: SchedulerController, prefix: str
) -> None:
    """Too few pods fit: Unschedulable and no result; more allocatable pods on the cluster places it."""
    await make_cluster(hub, f"{prefix}-a", pods="2")
    placement = {
        "clusterAffinity": {"clusterNames": [f"{prefix}-a"]},
        "replicaScheduling": {
            "replicaSchedulingType": "Divided",
            "replicaDivisionPreference": "Weighted",
            "weightPreference": {"dynamicWeight": "AvailableReplicas"},
        },
    }
    await hub.create(binding(f"{prefix}-web", replicas=5, placement=placement))
    short = await eventually_async(
        lambda: get_binding(hub, f"{prefix}-web"), until=lambda b: scheduled(b) is not None
    )
    assert condition_of(short)["reason"] == "Unschedulable"
    assert not short["spec"].get("clusters")

    await set_cluster_status(hub, f"{prefix}-a", pods="20")

    done = await eventually_async(lambda: get_binding(hub, f"{prefix}-web"), until=is_scheduled)
    assert targets(done) == {f"{prefix}-a": 5}


async def test_duplicated_binding_follows_a_cluster_that_joins(
    hub: Client, scheduler: SchedulerController, prefix: str
) -> None:
    """A Duplicated binding selected by label reaches a matching cluster once it reports its APIs."""
    await make_cluster(hub, f"{prefix}-a", labels={"team": prefix})
    placement = {"clusterAffinity": {"labelSelector": {"matchLabels": {"team": prefix}}}}
    await hub.create(binding(f"{prefix}-web", replicas=2, placement=placement))
    await eventually_async(lambda: get_binding(hub, f"{prefix}-web"), until=is_scheduled)

    await make_cluster(hub, f"{prefix}-b", labels={"team": prefix})

    done = await eventually_async(
        lambda: get_binding(hub, f"{prefix}-web"), until=lambda b: len(targets(b)) == 2, what="second cluster"
    )
    assert targets(done) == {f"{prefix}-a": 2, f"{prefix}-b": 2}


async def test_binding_moves_off_a_cluster_being_deleted(
    hub: Client, scheduler: SchedulerController, prefix: str
) -> None:
    """A divided binding on a cluster that starts deleting is placed again on the clusters left."""
    hold = "test.flotilla.io/hold"
    await make_cluster(hub, f"{prefix}-a", finalizers=[hold])
    await make_cluster(hub, f"{prefix}-b")
    await hub.create(binding(f"{prefix}-web", replicas=2, placement=divided([f"{prefix}-a", f"{prefix}-b"])))
    await eventually_async(lambda: get_binding(hub, f"{prefix}-web"), until=lambda b: len(targets(b)) == 2)

    await hub.delete(constants.CLUSTER, f"{prefix}-a")
    try:
        done = await eventually_async(
            lambda: get_binding(hub, f"{prefix}-web"), until=lambda b: targets(b) == {f"{prefix}-b": 2}
        )
    finally:
        await hub.patch(constants.CLUSTER, f"{prefix}-a", {"metadata": {"finalizers": None}})
    assert condition_of(done)["status"] == "True"


async def test_scaling_reschedules_and_observes_the_new_generation(
    hub: Client, scheduler: SchedulerController, prefix: str
) -> None:
    """More replicas on the binding are divided again and the new generation is marked observed."""
    await make_cluster(hub, f"{prefix}-a")
    await make_cluster(hub, f"{prefix}-b")
    await hub.create(binding(f"{prefix}-web", replicas=2, placement=divided([f"{prefix}-a", f"{prefix}-b"])))
    await eventually_async(lambda: get_binding(hub, f"{prefix}-web"), until=is_scheduled)

    await hub.patch(
        constants.RESOURCE_BINDING, f"{prefix}-web", {"spec": {"replicas": 6}}, namespace="default"
    )

    done = await eventually_async(
        lambda: get_binding(hub, f"{prefix}-web"),
        until=lambda b: b["status"].get("schedulerObservedGeneration") == b["metadata"]["generation"],
    )
    assert targets(done) == {f"{prefix}-a": 3, f"{prefix}-b": 3}
    assert is_scheduled(done)


async def test_a_round_that_changes_nothing_writes_nothing(
    hub: Client, scheduler: SchedulerController, prefix: str
) -> None:
    """Reconciling a settled Duplicated binding again (it always reschedules) leaves it untouched."""
    await make_cluster(hub, f"{prefix}-a", labels={"team": prefix})
    placement = {"clusterAffinity": {"labelSelector": {"matchLabels": {"team": prefix}}}}
    await hub.create(binding(f"{prefix}-web", replicas=1, placement=placement))
    await eventually_async(lambda: get_binding(hub, f"{prefix}-web"), until=is_scheduled)
    await scheduler.loop.stop()  # no round in the background races the one below
    settled = await get_binding(hub, f"{prefix}-web")
    bindings = scheduler.ctx.informers.get(constants.RESOURCE_BINDING)
    await eventually_async(
        lambda: revision_of(bindings.get(f"{prefix}-web", namespace="default")) == revision_of(settled),
        what="the scheduler's cache holds the settled binding",
    )

    await scheduler.reconcile(ObjectKey("default", f"{prefix}-web"))

    again = await get_binding(hub, f"{prefix}-web")
    assert again["metadata"]["resourceVersion"] == settled["metadata"]["resourceVersion"]


async def test_a_no_execute_toleration_runs_out_by_the_schedulers_clock(
    hub: Client, scheduler: SchedulerController, prefix: str
) -> None:
    """b's NoExecute taint was added 10s before the clock's now: a 5s toleration no longer admits b, a
    60s one still does (the round's time comes from the injected clock)."""
    added = "2025-12-31T23:59:50Z"
    await make_cluster(hub, f"{prefix}-a")
    await make_cluster(
        hub, f"{prefix}-b", taints=[{"key": "outage", "effect": "NoExecute", "timeAdded": added}]
    )
    for seconds in (5, 60):
        toleration = {
            "key": "outage",
            "operator": "Exists",
            "effect": "NoExecute",
            "tolerationSeconds": seconds,
        }
        placement = {"clusterAffinity": {"clusterNames": [f"{prefix}-a", f"{prefix}-b"]}}
        placement["clusterTolerations"] = [toleration]
        await hub.create(binding(f"{prefix}-web{seconds}", replicas=1, placement=placement))
    short = await eventually_async(lambda: get_binding(hub, f"{prefix}-web5"), until=is_scheduled)
    assert targets(short) == {f"{prefix}-a": 1}
    long = await eventually_async(lambda: get_binding(hub, f"{prefix}-web60"), until=is_scheduled)
    assert targets(long) == {f"{prefix}-a": 1, f"{prefix}-b": 1}


async def test_a_cluster_the_application_failed_on_is_the_last_resort(
    hub: Client, scheduler: SchedulerController, prefix: str
) -> None:
    """With the failed-on record for a: a binding that may go to a or b goes to b; one that may go only
    to a goes there, and its Event says why."""
    await make_cluster(hub, f"{prefix}-a")
    await make_cluster(hub, f"{prefix}-b")
    failed_on = {
        constants.APPLICATION_FAILED_ON_ANNOTATION: json.dumps({f"{prefix}-a": "2025-12-31T00:00:00Z"})
    }
    for name, clusters in (("both", [f"{prefix}-a", f"{prefix}-b"]), ("only", [f"{prefix}-a"])):
        body = binding(
            f"{prefix}-{name}", replicas=1, placement={"clusterAffinity": {"clusterNames": clusters}}
        )
        body["metadata"]["annotations"] = failed_on
        await hub.create(body)
    both = await eventually_async(lambda: get_binding(hub, f"{prefix}-both"), until=is_scheduled)
    assert targets(both) == {f"{prefix}-b": 1}
    only = await eventually_async(lambda: get_binding(hub, f"{prefix}-only"), until=is_scheduled)
    assert targets(only) == {f"{prefix}-a": 1}
    [event] = await eventually_async(lambda: events_about(hub, f"{prefix}-only"))
    assert event["reason"] == "ScheduleBindingSucceed"
    assert event["message"].endswith(f"Result: {{{prefix}-a:1}}{FAILED_CLUSTERS_NOTE}")


async def test_bindings_of_other_schedulers_or_unclaimed_are_left_alone(
    hub: Client, scheduler: SchedulerController, prefix: str
) -> None:
    """No policy label, another schedulerName or suspended scheduling: no result, no condition."""
    await make_cluster(hub, f"{prefix}-a")
    placement = divided([f"{prefix}-a"])
    await hub.create(binding(f"{prefix}-unclaimed", replicas=1, placement=placement, labels={}))
    await hub.create(binding(f"{prefix}-other", replicas=1, placement=placement, scheduler_name="custom"))
    await hub.create(binding(f"{prefix}-paused", replicas=1, placement=placement, suspended=True))
    await hub.create(binding(f"{prefix}-control", replicas=1, placement=placement))
    await eventually_async(lambda: get_binding(hub, f"{prefix}-control"), until=is_scheduled)

    for name in ("unclaimed", "other", "paused"):
        untouched = await get_binding(hub, f"{prefix}-{name}")
        assert "clusters" not in untouched["spec"], name
        assert scheduled(untouched) is None, name


async def test_cluster_resource_binding_is_scheduled(
    hub: Client, scheduler: SchedulerController, prefix: str
) -> None:
    """A ClusterResourceBinding (non-workload, no replicas) goes to every selected cluster."""
    await make_cluster(hub, f"{prefix}-a")
    await make_cluster(hub, f"{prefix}-b")
    body = binding(f"{prefix}-role", replicas=0, placement=divided([f"{prefix}-a", f"{prefix}-b"]))
    body["kind"] = "ClusterResourceBinding"
    del body["metadata"]["namespace"]
    body["metadata"]["labels"] = {constants.CLUSTER_PROPAGATION_POLICY_PERMANENT_ID_LABEL: "cpp-id"}
    body["spec"]["resource"] = {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "ClusterRole",
        "name": "r",
    }
    await hub.create(body)

    done = await eventually_async(
        lambda: hub.get(constants.CLUSTER_RESOURCE_BINDING, f"{prefix}-role"), until=is_scheduled
    )
    assert targets(done) == {f"{prefix}-a": 0, f"{prefix}-b": 0}


async def test_an_anti_affinity_group_created_at_once_lands_on_three_clusters(
    hub: Client, scheduler: SchedulerController, prefix: str
) -> None:
    """Three bindings of one anti-affinity group, created together, each for one of three clusters:
    concurrent rounds still spread them; a fourth fits nowhere until a peer's cluster is freed."""
    names = [f"{prefix}-a", f"{prefix}-b", f"{prefix}-c"]
    for name in names:
        await make_cluster(hub, name)
    one_cluster = {
        "clusterAffinity": {"clusterNames": names},
        "spreadConstraints": [{"spreadByField": "cluster", "minGroups": 1, "maxGroups": 1}],
    }
    groups = {"antiAffinityGroup": f"app.ha={prefix}"}
    workloads = [f"{prefix}-w{index}" for index in range(4)]
    await asyncio.gather(
        *(
            hub.create(binding(name, replicas=1, placement=one_cluster, groups=groups))
            for name in workloads[:3]
        )
    )
    placed = {}
    for name in workloads[:3]:
        done = await eventually_async(lambda name=name: get_binding(hub, name), until=is_scheduled)
        placed[name] = next(iter(targets(done)))
    assert sorted(placed.values()) == names

    await hub.create(binding(workloads[3], replicas=1, placement=one_cluster, groups=groups))
    stuck = await eventually_async(
        lambda: get_binding(hub, workloads[3]), until=lambda b: scheduled(b) is not None
    )
    assert condition_of(stuck)["reason"] == "NoClusterFit"
    assert (
        "3 cluster already has workload with the same anti-affinity group" in condition_of(stuck)["message"]
    )

    await hub.delete(constants.RESOURCE_BINDING, workloads[0], namespace="default")
    moved = await eventually_async(lambda: get_binding(hub, workloads[3]), until=is_scheduled)
    assert targets(moved) == {placed[workloads[0]]: 1}


# --- objects and waiting ---------------------------------------------------------------------------


async def make_cluster(
    hub: Client,
    name: str,
    *,
    labels: dict[str, str] | None = None,
    pods: str = "110",
    finalizers: list[str] | None = None,
    taints: list[dict[str, Any]] | None = None,
) -> None:
    metadata: dict[str, Any] = {"name": name, "labels": labels or {}}
    if finalizers:
        metadata["finalizers"] = finalizers
    spec: dict[str, Any] = {"syncMode": "Push", "apiEndpoint": "https://127.0.0.1:1"}
    if taints:
        spec["taints"] = taints
    await hub.create(
        {"apiVersion": constants.CLUSTER.api_version, "kind": "Cluster", "metadata": metadata, "spec": spec}
    )
    await set_cluster_status(hub, name, pods=pods)


async def set_cluster_status(hub: Client, name: str, *, pods: str) -> None:
    status = {
        "apiEnablements": API_ENABLEMENTS,
        "resourceSummary": {"allocatable": {"cpu": "8", "memory": "32Gi", "pods": pods}},
    }
    await hub.patch(constants.CLUSTER, name, {"status": status}, subresource="status")


def divided(cluster_names: list[str]) -> dict[str, Any]:
    return {
        "clusterAffinity": {"clusterNames": cluster_names},
        "replicaScheduling": {"replicaSchedulingType": "Divided", "replicaDivisionPreference": "Weighted"},
    }


def binding(
    name: str,
    *,
    replicas: int,
    placement: dict[str, Any],
    labels: dict[str, str] | None = None,
    scheduler_name: str = "",
    suspended: bool = False,
    groups: dict[str, str] | None = None,
) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "resource": {"apiVersion": "apps/v1", "kind": "Deployment", "namespace": "default", "name": name},
        "replicas": replicas,
        "replicaRequirements": {"resourceRequest": {"cpu": "100m"}},
        "placement": placement,
    }
    if scheduler_name:
        spec["schedulerName"] = scheduler_name
    if suspended:
        spec["suspension"] = {"scheduling": True}
    if groups:
        spec["workloadAffinityGroups"] = groups
    return {
        "apiVersion": constants.RESOURCE_BINDING.api_version,
        "kind": "ResourceBinding",
        "metadata": {
            "name": name,
            "namespace": "default",
            "labels": POLICY_LABEL if labels is None else labels,
        },
        "spec": spec,
    }


async def get_binding(hub: Client, name: str) -> dict[str, Any]:
    return await hub.get(constants.RESOURCE_BINDING, name, namespace="default")


async def events_about(hub: Client, name: str) -> list[dict[str, Any]]:
    items, _ = await hub.list(EVENT, namespace="default")
    return [item for item in items if item["involvedObject"].get("name") == name]


def scheduled(binding: dict[str, Any]) -> dict[str, Any] | None:
    for condition in (binding.get("status") or {}).get("conditions") or []:
        if condition["type"] == "Scheduled":
            found: dict[str, Any] = condition
            return found
    return None


def condition_of(binding: dict[str, Any]) -> dict[str, Any]:
    condition = scheduled(binding)
    assert condition is not None, "no Scheduled condition"
    return condition


def is_scheduled(binding: dict[str, Any]) -> bool:
    condition = scheduled(binding)
    return condition is not None and condition["status"] == "True"


def targets(binding: dict[str, Any]) -> dict[str, int]:
    return {item["name"]: item.get("replicas", 0) for item in binding["spec"].get("clusters") or []}


def revision_of(obj: dict[str, Any] | None) -> str:
    return str(((obj or {}).get("metadata") or {}).get("resourceVersion", ""))
