"""Workload status on the hub that `kubectl wait` and kstatus read, folded from two members (issue #16).

One federation for the module: a hub, `east` and `west` in one `flotilla sim`, a controller
manager. Each test propagates its workload into its own namespace and judges the hub's copy the way
the ecosystem does: with the system kubectl's `wait` and `rollout status`, and with kstatus's rules
(`tests/unit/interpreter/kstatus.py`, what Helm's `--wait`, kpt, Flux and Argo CD compute).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.integration.federation import (
    Federation,
    condition,
    members_named,
    nginx_walkthrough,
    propagation_policy,
    replicas_on,
    resource_selector,
    static_weights,
)
from tests.support.kubectl import Kubectl
from tests.support.waiting import eventually
from tests.unit.interpreter.kstatus import CURRENT, IN_PROGRESS, kstatus

pytestmark = pytest.mark.kubectl

MEMBERS = ("east", "west")
TEMPLATE_GENERATION = "resourcetemplate.karmada.io/generation"


@pytest.fixture(scope="module")
def federation(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Federation]:
    root = tmp_path_factory.mktemp("workload-status")
    with Federation(root, members_named(*MEMBERS)) as federation:
        yield federation.start()


@pytest.fixture(scope="module")
def hub_api(federation: Federation) -> Iterator[Any]:
    """The official Python client against the hub, for watching a rollout event by event."""
    from kubernetes import client, config

    configuration = client.Configuration()
    config.load_kube_config(  # type: ignore[no-untyped-call]
        config_file=str(federation.hub.kubeconfig), client_configuration=configuration
    )
    with client.ApiClient(configuration) as api:
        yield api


def _propagated(workload: dict[str, Any], *, divided: bool) -> list[dict[str, Any]]:
    """The workload and a policy placing it on both members, split 1:1 or duplicated."""
    scheduling = (
        static_weights(dict.fromkeys(MEMBERS, 1)) if divided else {"replicaSchedulingType": "Duplicated"}
    )
    placement = {"clusterAffinity": {"clusterNames": list(MEMBERS)}, "replicaScheduling": scheduling}
    name, kind = workload["metadata"]["name"], workload["kind"]
    selector = resource_selector(kind, name, workload["apiVersion"])
    return [workload, propagation_policy(f"{name}-{kind.lower()}", [selector], placement)]


def _pod_template(app: str, image: str, **spec: Any) -> dict[str, Any]:
    return {
        "metadata": {"labels": {"app": app}},
        "spec": {"containers": [{"name": app, "image": image}], **spec},
    }


def _workload(kind: str, name: str, api_version: str = "apps/v1", **spec: Any) -> dict[str, Any]:
    return {"apiVersion": api_version, "kind": kind, "metadata": {"name": name}, "spec": spec}


def test_kubectl_wait_for_available_succeeds_for_a_deployment_split_over_two_members(
    hub: Kubectl, members: dict[str, Kubectl], ns: str
) -> None:
    """nginx split 1:1 over east and west: the hub's copy turns Available, rolled out, and Current."""
    hub.apply_yaml(nginx_walkthrough(*MEMBERS), "-n", ns)
    hub("wait", "--for=condition=Available", "deploy/nginx", "-n", ns, "--timeout=60s", timeout=90)
    assert replicas_on(members, ns, "nginx") == dict.fromkeys(MEMBERS, 1)
    available = condition(hub.json("get", "deploy", "nginx", "-n", ns), "Available")
    assert (available["status"], available["reason"]) == ("True", "MinimumReplicasAvailable")
    hub("rollout", "status", "deploy/nginx", "-n", ns, "--timeout=60s", timeout=90)
    deploy = eventually(
        lambda: hub.json("get", "deploy", "nginx", "-n", ns),
        until=lambda obj: kstatus(obj) == CURRENT,
        what="kstatus Current for the hub's nginx",
    )
    progressing = condition(deploy, "Progressing")
    assert (progressing["status"], progressing["reason"]) == ("True", "NewReplicaSetAvailable")
    assert deploy["status"]["observedGeneration"] == deploy["metadata"]["generation"]
    assert deploy["status"]["readyReplicas"] == deploy["status"]["availableReplicas"] == 2
    for time_field in ("lastUpdateTime", "lastTransitionTime"):
        assert available[time_field] and progressing[time_field]


def _members_run_generation(members: dict[str, Kubectl], ns: str, name: str, generation: int) -> None:
    """Every member copy was rendered from template `generation` and its controller observed it."""
    for cluster, kubectl in members.items():
        copy = kubectl.json("get", "deploy", name, "-n", ns)
        assert copy["metadata"]["annotations"][TEMPLATE_GENERATION] == str(generation), cluster
        assert copy["status"]["observedGeneration"] == copy["metadata"]["generation"], cluster


def test_observed_generation_lags_until_every_member_observed_the_update(
    hub: Kubectl, members: dict[str, Kubectl], ns: str, hub_api: Any
) -> None:
    """After a new image the hub is InProgress; observedGeneration reaches the new generation only
    once both members run it, and the rollout ends Current with NewReplicaSetAvailable."""
    from kubernetes import client, watch

    hub.apply_yaml(nginx_walkthrough(*MEMBERS), "-n", ns)
    eventually(
        lambda: kstatus(hub.json("get", "deploy", "nginx", "-n", ns)) == CURRENT, what="first rollout Current"
    )
    patch = '{"spec":{"template":{"spec":{"containers":[{"name":"nginx","image":"nginx:1.27"}]}}}}'
    updated = hub.json("patch", "deploy", "nginx", "-n", ns, "-p", patch)
    generation = updated["metadata"]["generation"]
    assert updated["status"]["observedGeneration"] == generation - 1
    assert kstatus(updated) == IN_PROGRESS

    seen: list[dict[str, Any]] = []
    caught_up = False
    stream = watch.Watch().stream(  # type: ignore[no-untyped-call]
        client.AppsV1Api(hub_api).list_namespaced_deployment,
        ns,
        field_selector="metadata.name=nginx",
        resource_version=updated["metadata"]["resourceVersion"],
        timeout_seconds=60,
    )
    for event in stream:
        deploy = event["raw_object"]
        seen.append(deploy)
        if not caught_up and deploy["status"].get("observedGeneration") == generation:
            # Members only move forward: what holds now held when the hub caught up.
            _members_run_generation(members, ns, "nginx", generation)
            caught_up = True
        if kstatus(deploy) == CURRENT:
            break
    assert seen and kstatus(seen[-1]) == CURRENT, [d["status"] for d in seen]
    assert seen[-1]["status"]["observedGeneration"] == generation
    assert condition(seen[-1], "Progressing")["reason"] == "NewReplicaSetAvailable"
    for kubectl in members.values():
        image = kubectl.json("get", "deploy", "nginx", "-n", ns)["spec"]["template"]["spec"]["containers"][0]
        assert image["image"] == "nginx:1.27"


def test_kubectl_wait_for_complete_succeeds_for_a_job_on_two_members(
    hub: Kubectl, members: dict[str, Kubectl], ns: str
) -> None:
    """A Job run on both members is Complete on the hub once both copies completed."""
    job = _workload(
        "Job",
        "pi",
        "batch/v1",
        template=_pod_template("pi", "perl", restartPolicy="Never"),
        backoffLimit=0,
    )
    hub.apply_yaml(_propagated(job, divided=False), "-n", ns)
    hub("wait", "--for=condition=Complete", "job/pi", "-n", ns, "--timeout=60s", timeout=90)
    for cluster, kubectl in members.items():
        assert condition(kubectl.json("get", "job", "pi", "-n", ns), "Complete")["status"] == "True", cluster
    status = hub.json("get", "job", "pi", "-n", ns)
    assert status["status"]["succeeded"] == 2
    assert status["status"]["startTime"] <= status["status"]["completionTime"]
    assert condition(status, "Complete")["reason"] == "Completed"
    assert kstatus(status) == CURRENT


def test_stateful_set_and_daemon_set_reach_what_kstatus_calls_current(
    hub: Kubectl, members: dict[str, Kubectl], ns: str
) -> None:
    """A StatefulSet split 1:1 and a DaemonSet on both members: the fields kstatus reads line up."""
    stateful_set = _workload(
        "StatefulSet",
        "db",
        replicas=2,
        serviceName="db",
        selector={"matchLabels": {"app": "db"}},
        template=_pod_template("db", "postgres"),
    )
    daemon_set = _workload(
        "DaemonSet",
        "agent",
        selector={"matchLabels": {"app": "agent"}},
        template=_pod_template("agent", "fluentd"),
    )
    hub.apply_yaml(
        [*_propagated(stateful_set, divided=True), *_propagated(daemon_set, divided=False)], "-n", ns
    )
    db = eventually(
        lambda: hub.json("get", "statefulset", "db", "-n", ns),
        until=lambda obj: kstatus(obj) == CURRENT,
        what="kstatus Current for the hub's StatefulSet",
    )
    status = db["status"]
    assert status["observedGeneration"] == db["metadata"]["generation"]
    assert (
        status["replicas"],
        status["readyReplicas"],
        status["currentReplicas"],
        status["updatedReplicas"],
    ) == (
        2,
        2,
        2,
        2,
    )
    member_revisions = {
        kubectl.json("get", "sts", "db", "-n", ns)["status"]["updateRevision"] for kubectl in members.values()
    }
    assert status["currentRevision"] == status["updateRevision"] in member_revisions

    agent = eventually(
        lambda: hub.json("get", "daemonset", "agent", "-n", ns),
        until=lambda obj: kstatus(obj) == CURRENT,
        what="kstatus Current for the hub's DaemonSet",
    )
    status = agent["status"]
    assert status["observedGeneration"] == agent["metadata"]["generation"]
    counted = (
        "desiredNumberScheduled",
        "currentNumberScheduled",
        "updatedNumberScheduled",
        "numberAvailable",
        "numberReady",
    )
    assert [status[field] for field in counted] == [len(MEMBERS)] * len(counted)
