"""FederatedResourceQuota on simulated members: assignments delivered, usage reported, over-quota refused.

One federation for the module: a hub, `m1` and `m2` in one `flotilla sim`, a controller manager
with its default controllers. Deployments ask 500m CPU per replica and are divided 1:1 over both
members, so the numbers in the refusals are easy to check by hand.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from tests.integration.federation import (
    Federation,
    deployment,
    members_named,
    propagation_policy,
    resource_selector,
    static_weights,
)
from tests.support.kubectl import Kubectl
from tests.support.waiting import eventually

pytestmark = pytest.mark.kubectl

MEMBERS = ("m1", "m2")
QUOTA = "team-a"


@pytest.fixture(scope="module")
def federation(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Federation]:
    root = tmp_path_factory.mktemp("federated-quota")
    with Federation(root, members_named(*MEMBERS)) as federation:
        yield federation.start()


def federated_quota(overall: dict[str, str], assignments: dict[str, dict[str, str]]) -> dict[str, Any]:
    return {
        "apiVersion": "policy.karmada.io/v1alpha1",
        "kind": "FederatedResourceQuota",
        "metadata": {"name": QUOTA},
        "spec": {
            "overall": overall,
            "staticAssignments": [{"clusterName": c, "hard": hard} for c, hard in assignments.items()],
        },
    }


def divided(name: str, replicas: int) -> list[dict[str, Any]]:
    """Deployment `name` of `replicas` replicas of 500m CPU each, divided 1:1 over both members."""
    placement = {
        "clusterAffinity": {"clusterNames": list(MEMBERS)},
        "replicaScheduling": static_weights(dict.fromkeys(MEMBERS, 1)),
    }
    return [
        deployment(name, replicas, requests={"cpu": "500m"}),
        propagation_policy(name, [resource_selector("Deployment", name)], placement),
    ]


@pytest.fixture(scope="module")
def hub_api(federation: Federation) -> Iterator[Any]:
    """The official Python client against the hub, to read the refusal's Status as a program does."""
    from kubernetes import client, config

    configuration = client.Configuration()
    config.load_kube_config(  # type: ignore[no-untyped-call]
        config_file=str(federation.hub.kubeconfig), client_configuration=configuration
    )
    with client.ApiClient(configuration) as api:
        yield api


def duplicated(name: str, replicas: int, members: tuple[str, ...] = MEMBERS) -> list[dict[str, Any]]:
    """Deployment `name` of `replicas` replicas of 500m CPU each, copied whole to `members`."""
    placement = {
        "clusterAffinity": {"clusterNames": list(members)},
        "replicaScheduling": {"replicaSchedulingType": "Duplicated"},
    }
    return [
        deployment(name, replicas, requests={"cpu": "500m"}),
        propagation_policy(name, [resource_selector("Deployment", name)], placement),
    ]


def quota_status(hub: Kubectl, ns: str) -> dict[str, Any]:
    status: dict[str, Any] = hub.json("get", "federatedresourcequota", QUOTA, "-n", ns).get("status") or {}
    return status


def member_quota(member: Kubectl, ns: str) -> dict[str, Any] | None:
    found: dict[str, Any] | None = member.json_or_none("get", "resourcequota", QUOTA, "-n", ns)
    return found


def test_static_assignments_become_member_quotas_and_the_status_aggregates_them(
    hub: Kubectl, members: dict[str, Kubectl], ns: str
) -> None:
    """Each assigned member gets ResourceQuota team-a with its hard limits; the hub's status lists
    both members' hard and used, and overallUsed the bindings' 4 x 500m; an assignment removed
    takes its member's ResourceQuota away."""
    hub.apply_yaml(
        federated_quota({"cpu": "10", "pods": "20"}, {"m1": {"cpu": "6"}, "m2": {"cpu": "4"}}), "-n", ns
    )
    eventually(
        lambda: {m: (member_quota(members[m], ns) or {}).get("spec", {}).get("hard") for m in MEMBERS},
        until=lambda hard: hard == {"m1": {"cpu": "6"}, "m2": {"cpu": "4"}},
        timeout=30,
        what="a ResourceQuota with the assigned limits in each member",
    )
    hub.apply_yaml(divided("web", 4), "-n", ns)
    status = eventually(
        lambda: quota_status(hub, ns),
        until=lambda s: (
            s.get("overallUsed") == {"cpu": "2"}
            and [(a["clusterName"], a.get("used")) for a in s.get("aggregatedStatus", [])]
            == [("m1", {"cpu": "1"}), ("m2", {"cpu": "1"})]
        ),
        timeout=30,
        what="overallUsed 2 CPUs and each member using 1",
    )
    assert status["overall"] == {"cpu": "10", "pods": "20"}
    assert [a.get("hard") for a in status["aggregatedStatus"]] == [{"cpu": "6"}, {"cpu": "4"}]
    columns = hub("get", "federatedresourcequotas", QUOTA, "-n", ns)
    assert "OVERALL_USED" in columns.splitlines()[0], columns

    hub.apply_yaml(federated_quota({"cpu": "10", "pods": "20"}, {"m1": {"cpu": "6"}}), "-n", ns)
    eventually(
        lambda: member_quota(members["m2"], ns) is None,
        timeout=30,
        what="m2's ResourceQuota removed with its assignment",
    )
    assert member_quota(members["m1"], ns) is not None


def test_assignments_over_the_overall_are_refused(hub: Kubectl, ns: str) -> None:
    """Assignments adding up past the overall, or naming a cluster twice, answer 422 at their fields."""
    result = hub.run(
        "apply",
        "-n",
        ns,
        "-f",
        "-",
        input=json.dumps(federated_quota({"cpu": "4"}, {"m1": {"cpu": "3"}, "m2": {"cpu": "2"}})),
        check=False,
    )
    assert result.returncode != 0
    assert 'spec.overall[cpu]: Invalid value: "4": overall is less than assignments' in result.stderr


def test_writes_that_would_pass_the_overall_quota_are_refused_with_the_numbers(hub: Kubectl, ns: str) -> None:
    """With 2 CPUs overall: 5 x 500m is refused at apply, 3 pass; scaling to 5 is refused (1 more
    on 1500m held), to 4 passes, down to 1 passes; a binding raised by hand is refused too."""
    hub.apply_yaml(federated_quota({"cpu": "2"}, {}), "-n", ns)
    refused = hub.run("apply", "-n", ns, "-f", "-", input=json.dumps(divided("web", 5)[0]), check=False)
    assert refused.returncode != 0
    assert "exceeded quota: team-a, requested: cpu=2500m, used: cpu=0, limited: cpu=2" in refused.stderr
    assert "(QuotaExceeded)" in refused.stderr, refused.stderr
    assert not hub.succeeds("get", "deploy", "web", "-n", ns), "nothing half-applied"

    hub.apply_yaml(divided("web", 3), "-n", ns)
    eventually(
        lambda: quota_status(hub, ns).get("overallUsed"),
        until=lambda used: used == {"cpu": "1500m"},
        timeout=30,
        what="the 3 replicas scheduled and counted",
    )
    scaled = hub.run("scale", "deploy", "web", "-n", ns, "--replicas=5", check=False)
    assert scaled.returncode != 0
    assert "exceeded quota: team-a, requested: cpu=1, used: cpu=1500m, limited: cpu=2" in scaled.stderr
    assert hub.json("get", "deploy", "web", "-n", ns)["spec"]["replicas"] == 3

    hub("label", "deploy", "web", "-n", ns, "unrelated=change")
    hub("scale", "deploy", "web", "-n", ns, "--replicas=4")
    eventually(
        lambda: quota_status(hub, ns).get("overallUsed"),
        until=lambda used: used == {"cpu": "2"},
        timeout=30,
        what="4 replicas counted: the quota is full",
    )
    raised = hub.run(
        "patch",
        "rb",
        "web-deployment",
        "-n",
        ns,
        "--type=merge",
        "-p",
        '{"spec":{"clusters":[{"name":"m1","replicas":3},{"name":"m2","replicas":2}]}}',
        check=False,
    )
    assert raised.returncode != 0
    assert "exceeded quota: team-a, requested: cpu=500m, used: cpu=2, limited: cpu=2" in raised.stderr
    hub("scale", "deploy", "web", "-n", ns, "--replicas=1")


def test_a_duplicated_workload_is_charged_once_per_cluster_and_refused_with_a_403_status(
    hub: Kubectl, hub_api: Any, ns: str
) -> None:
    """2 x 500m copied to both members holds 2 CPUs, the whole quota; scaling to 3 through the Python
    client asks 2 x 500m more and gets a 403 Status with reason QuotaExceeded."""
    from kubernetes import client
    from kubernetes.client.rest import ApiException

    hub.apply_yaml([federated_quota({"cpu": "2"}, {}), *duplicated("dup", 2)], "-n", ns)
    eventually(
        lambda: quota_status(hub, ns).get("overallUsed"),
        until=lambda used: used == {"cpu": "2"},
        timeout=30,
        what="2 replicas on each of 2 members counted",
    )
    with pytest.raises(ApiException) as refused:
        client.AppsV1Api(hub_api).patch_namespaced_deployment_scale("dup", ns, {"spec": {"replicas": 3}})
    status = json.loads(str(refused.value.body))
    assert (refused.value.status, status["code"], status["reason"]) == (403, 403, "QuotaExceeded")
    assert status["message"] == (
        'deployments.apps "dup" is forbidden: '
        "exceeded quota: team-a, requested: cpu=1, used: cpu=2, limited: cpu=2"
    )
    assert status["details"] == {"name": "dup", "group": "apps", "kind": "deployments"}


def _quota_answers(calls: list[Any]) -> list[tuple[int, str]]:
    """Run the calls in parallel threads; each one's (HTTP status, reason), 201/200 as ("", ...)."""
    from concurrent.futures import ThreadPoolExecutor

    from kubernetes.client.rest import ApiException

    def answer(call: Any) -> tuple[int, str]:
        try:
            call()
        except ApiException as exc:
            return exc.status, str(json.loads(str(exc.body)).get("reason"))
        return 200, ""

    with ThreadPoolExecutor(max_workers=len(calls)) as pool:
        return list(pool.map(answer, calls))


def asked_cpu_millis(hub: Kubectl, ns: str) -> int:
    """What the namespace's Deployments ask: replicas x 500m each."""
    items = hub.json("get", "deployments", "-n", ns)["items"]
    return sum(500 * int(item["spec"]["replicas"]) for item in items)


def test_concurrent_growing_writes_never_take_the_namespace_over_its_quota(
    hub: Kubectl, hub_api: Any, ns: str
) -> None:
    """With 2 CPUs overall, 20 parallel creates of 500m Deployments admit exactly 4; then 20 parallel
    scales of those 4 to 2 replicas each fit none; every refusal is a 403 QuotaExceeded."""
    from kubernetes import client

    hub.apply_yaml(federated_quota({"cpu": "2"}, {}), "-n", ns)
    apps = client.AppsV1Api(hub_api)

    def create(index: int) -> Any:
        return lambda: apps.create_namespaced_deployment(
            ns, deployment(f"c{index}", 1, requests={"cpu": "500m"})
        )

    created = _quota_answers([create(index) for index in range(20)])
    assert sorted(set(created)) == [(200, ""), (403, "QuotaExceeded")], created
    assert created.count((200, "")) == 4, created
    assert asked_cpu_millis(hub, ns) == 2000

    hub("delete", "deployments", "--all", "-n", ns)
    hub.apply_yaml([deployment(f"s{index}", 1, requests={"cpu": "500m"}) for index in range(2)], "-n", ns)

    def scale(index: int) -> Any:
        body = {"spec": {"replicas": 2 + index // 2}}
        return lambda: apps.patch_namespaced_deployment_scale(f"s{index % 2}", ns, body)

    scaled = _quota_answers([scale(index) for index in range(20)])
    assert set(scaled) <= {(200, ""), (403, "QuotaExceeded")}, scaled
    assert (403, "QuotaExceeded") in scaled, scaled
    assert asked_cpu_millis(hub, ns) <= 2000


def test_a_result_the_quota_refuses_leaves_the_binding_scheduled_false_quota_exceeded(
    hub: Kubectl, ns: str
) -> None:
    """2 x 500m copied to m1 holds 1 CPU of 1500m; its policy widened to m2 asks 1 CPU more, so the
    scheduler's result is refused and the binding says Scheduled=False, QuotaExceeded, why."""
    hub.apply_yaml([federated_quota({"cpu": "1500m"}, {}), *duplicated("wide", 2, ("m1",))], "-n", ns)
    eventually(
        lambda: quota_status(hub, ns).get("overallUsed"),
        until=lambda used: used == {"cpu": "1"},
        timeout=30,
        what="2 replicas on m1 counted",
    )
    hub.apply_yaml(duplicated("wide", 2)[1], "-n", ns)

    def scheduled() -> dict[str, Any]:
        binding = hub.json("get", "rb", "wide-deployment", "-n", ns)
        conditions = (binding.get("status") or {}).get("conditions") or []
        return next((c for c in conditions if c["type"] == "Scheduled"), {})

    condition = eventually(
        scheduled, until=lambda c: c.get("reason") == "QuotaExceeded", timeout=30, what="QuotaExceeded"
    )
    assert condition["status"] == "False"
    assert condition["message"] == (
        'resourcebindings.work.karmada.io "wide-deployment" is forbidden: '
        "exceeded quota: team-a, requested: cpu=1, used: cpu=1, limited: cpu=1500m"
    )
