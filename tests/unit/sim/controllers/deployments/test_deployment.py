"""The Deployment controller with the ReplicaSet controller, the test standing in for the kubelet."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

from flotilla.api.conditions import find_condition
from flotilla.apiserver.embedded import EmbeddedAPI
from flotilla.apiserver.localclient import LocalClient
from flotilla.sim.controllers.deployments.deployment import DeploymentController
from flotilla.sim.controllers.deployments.revisions import DESIRED_REPLICAS, MAX_REPLICAS, REVISION
from flotilla.sim.controllers.framework.kinds import DEPLOYMENT, POD, REPLICA_SET
from flotilla.sim.controllers.podowners.podtemplates import POD_TEMPLATE_HASH_LABEL
from flotilla.sim.controllers.replicasets.replicaset import ReplicaSetController
from tests.support.waiting import eventually_async
from tests.unit.sim.controllers.fakekubelet import ready_all, run_pods_until
from tests.unit.sim.controllers.harness import pod_template, running


def deployment(name: str = "web", replicas: int = 3, **spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app": name}},
            "template": pod_template({"app": name}),
            **spec,
        },
    }


@contextlib.asynccontextmanager
async def controllers(api: EmbeddedAPI) -> AsyncIterator[None]:
    async with running(api, DeploymentController), running(api, ReplicaSetController):
        yield


def get(client: LocalClient, name: str = "web") -> dict[str, Any]:
    found = client.get(DEPLOYMENT, name, namespace="default")
    assert found is not None
    return found


def replica_sets(client: LocalClient) -> list[dict[str, Any]]:
    return sorted(
        client.list(REPLICA_SET, namespace="default"), key=lambda rs: rs["metadata"]["annotations"][REVISION]
    )


def rollout_finished(client: LocalClient, name: str = "web") -> bool:
    """What `kubectl rollout status` waits for."""
    found = get(client, name)
    status = found.get("status") or {}
    replicas = found["spec"]["replicas"]
    return bool(
        status.get("observedGeneration", 0) >= found["metadata"]["generation"]
        and status.get("updatedReplicas", 0) == replicas
        and status.get("replicas", 0) == replicas
        and status.get("availableReplicas", 0) == replicas
    )


def set_image(client: LocalClient, image: str, name: str = "web") -> Any:
    return client.patch(
        DEPLOYMENT,
        name,
        {"spec": {"template": {"spec": {"containers": [{"name": "main", "image": image}]}}}},
        namespace="default",
    )


async def test_a_deployment_gets_a_replica_set_named_after_its_template_hash(
    api: EmbeddedAPI, client: LocalClient
) -> None:
    """`web-<hash>`: the hash labels the selector, the template and so the pods; revision 1 everywhere."""
    async with controllers(api):
        created = await client.create(DEPLOYMENT, deployment())
        await eventually_async(lambda: len(client.list(POD, namespace="default")) == 3)
        [replica_set] = client.list(REPLICA_SET, namespace="default")
        template_hash = replica_set["spec"]["template"]["metadata"]["labels"][POD_TEMPLATE_HASH_LABEL]
        assert replica_set["metadata"]["name"] == f"web-{template_hash}"
        assert replica_set["spec"]["selector"]["matchLabels"] == {
            "app": "web",
            POD_TEMPLATE_HASH_LABEL: template_hash,
        }
        assert replica_set["metadata"]["ownerReferences"][0]["uid"] == created["metadata"]["uid"]
        annotations = replica_set["metadata"]["annotations"]
        assert annotations[REVISION] == "1"
        assert annotations[DESIRED_REPLICAS] == "3" and annotations[MAX_REPLICAS] == "4"
        assert all(
            pod["metadata"]["labels"][POD_TEMPLATE_HASH_LABEL] == template_hash
            for pod in client.list(POD, namespace="default")
        )
        await eventually_async(lambda: get(client)["metadata"].get("annotations", {}).get(REVISION) == "1")


async def test_a_rollout_completes_once_the_kubelet_reports_pods_ready(
    api: EmbeddedAPI, client: LocalClient
) -> None:
    """Status counts reach the desired replicas; Available and Progressing say the rollout is done."""
    async with controllers(api):
        await client.create(DEPLOYMENT, deployment())
        await eventually_async(
            lambda: (
                (find_condition((get(client).get("status") or {}).get("conditions"), "Available") or {}).get(
                    "reason"
                )
                == "MinimumReplicasUnavailable"
            )
        )
        assert len(client.list(POD, namespace="default")) == 3
        await run_pods_until(client, "default", lambda: rollout_finished(client))
        await eventually_async(
            lambda: (
                (find_condition(get(client)["status"].get("conditions"), "Progressing") or {}).get("reason")
                == "NewReplicaSetAvailable"
            )
        )
        status = get(client)["status"]
        assert status["readyReplicas"] == 3 and "unavailableReplicas" not in status
        available = find_condition(status["conditions"], "Available")
        assert available is not None and available["status"] == "True"
        assert available["reason"] == "MinimumReplicasAvailable"


async def test_a_rolling_update_stays_within_surge_and_unavailability(
    api: EmbeddedAPI, client: LocalClient
) -> None:
    """maxSurge 1, maxUnavailable 0: never more than 4 pods wanted, never fewer than 3 available."""
    strategy = {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 1, "maxUnavailable": 0}}
    async with controllers(api):
        await client.create(DEPLOYMENT, deployment(strategy=strategy))
        await run_pods_until(client, "default", lambda: rollout_finished(client))
        await set_image(client, "nginx:1.28")
        await eventually_async(lambda: len(client.list(REPLICA_SET, namespace="default")) == 2)
        old, new = replica_sets(client)
        assert new["metadata"]["annotations"][REVISION] == "2"
        assert new["spec"]["replicas"] == 1 and old["spec"]["replicas"] == 3
        observed: list[tuple[int, int]] = []

        def step() -> bool:
            sets = client.list(REPLICA_SET, namespace="default")
            observed.append(
                (
                    sum(rs["spec"]["replicas"] for rs in sets),
                    sum((rs.get("status") or {}).get("availableReplicas", 0) for rs in sets),
                )
            )
            return rollout_finished(client)

        await run_pods_until(client, "default", step)
        assert max(total for total, _ in observed) <= 4
        assert min(available for _, available in observed) >= 3
        old, new = replica_sets(client)
        assert old["spec"]["replicas"] == 0 and new["spec"]["replicas"] == 3
        assert get(client)["metadata"]["annotations"][REVISION] == "2"


async def test_a_recreate_deployment_removes_old_pods_before_creating_new_ones(
    api: EmbeddedAPI, client: LocalClient
) -> None:
    """The new ReplicaSet appears only once no pod of the old one is left."""
    async with controllers(api):
        await client.create(DEPLOYMENT, deployment(replicas=2, strategy={"type": "Recreate"}))
        await run_pods_until(client, "default", lambda: rollout_finished(client))
        first = {pod["metadata"]["name"] for pod in client.list(POD, namespace="default")}
        seen_overlap = False

        def step() -> bool:
            nonlocal seen_overlap
            names = {pod["metadata"]["name"] for pod in client.list(POD, namespace="default")}
            seen_overlap = seen_overlap or (bool(names & first) and bool(names - first))
            return rollout_finished(client) and not names & first

        await set_image(client, "nginx:1.28")
        await run_pods_until(client, "default", step)
        assert not seen_overlap
        assert len(client.list(REPLICA_SET, namespace="default")) == 2


async def test_scaling_a_deployment_scales_its_replica_set(api: EmbeddedAPI, client: LocalClient) -> None:
    """A replicas change reaches the ReplicaSet and its annotations."""
    async with controllers(api):
        await client.create(DEPLOYMENT, deployment())
        await run_pods_until(client, "default", lambda: rollout_finished(client))
        await client.patch(DEPLOYMENT, "web", {"spec": {"replicas": 5}}, namespace="default")
        await run_pods_until(client, "default", lambda: rollout_finished(client))
        [replica_set] = client.list(REPLICA_SET, namespace="default")
        assert replica_set["spec"]["replicas"] == 5
        assert replica_set["metadata"]["annotations"][DESIRED_REPLICAS] == "5"
        await client.patch(DEPLOYMENT, "web", {"spec": {"replicas": 1}}, namespace="default")
        await eventually_async(
            lambda: len(client.list(POD, namespace="default")) == 1 and rollout_finished(client)
        )


async def test_a_paused_deployment_does_not_roll(api: EmbeddedAPI, client: LocalClient) -> None:
    """Template changes wait for resume; the pause is recorded in the Progressing condition."""
    async with controllers(api):
        await client.create(DEPLOYMENT, deployment(replicas=1))
        await run_pods_until(client, "default", lambda: rollout_finished(client))
        await client.patch(DEPLOYMENT, "web", {"spec": {"paused": True}}, namespace="default")
        await set_image(client, "nginx:1.28")
        await eventually_async(
            lambda: (
                (find_condition(get(client)["status"]["conditions"], "Progressing") or {}).get("reason")
                == "DeploymentPaused"
            )
        )
        await eventually_async(
            lambda: get(client)["status"]["observedGeneration"] == get(client)["metadata"]["generation"]
        )
        assert len(client.list(REPLICA_SET, namespace="default")) == 1
        await client.patch(DEPLOYMENT, "web", {"spec": {"paused": False}}, namespace="default")
        await run_pods_until(
            client,
            "default",
            lambda: len(client.list(REPLICA_SET, namespace="default")) == 2 and rollout_finished(client),
        )


async def test_old_replica_sets_beyond_the_history_limit_are_deleted(
    api: EmbeddedAPI, client: LocalClient
) -> None:
    """revisionHistoryLimit 1: after three templates only the current and one old ReplicaSet remain."""
    async with controllers(api):
        await client.create(DEPLOYMENT, deployment(replicas=1, revisionHistoryLimit=1))
        await run_pods_until(client, "default", lambda: rollout_finished(client))
        for image in ("nginx:1.28", "nginx:1.29"):
            await set_image(client, image)
            await run_pods_until(client, "default", lambda: rollout_finished(client))
        await eventually_async(lambda: len(client.list(REPLICA_SET, namespace="default")) == 2)
        assert [rs["metadata"]["annotations"][REVISION] for rs in replica_sets(client)] == ["2", "3"]


async def test_rolling_back_reuses_the_old_replica_set_with_a_new_revision(
    api: EmbeddedAPI, client: LocalClient
) -> None:
    """Going back to an earlier template revives its ReplicaSet as revision 3, remembering revision 1."""
    async with controllers(api):
        await client.create(DEPLOYMENT, deployment(replicas=1))
        await run_pods_until(client, "default", lambda: rollout_finished(client))
        await set_image(client, "nginx:1.28")
        await run_pods_until(client, "default", lambda: rollout_finished(client))
        await set_image(client, "nginx:1.27")
        await run_pods_until(
            client,
            "default",
            lambda: rollout_finished(client) and get(client)["metadata"]["annotations"][REVISION] == "3",
        )
        first, current = replica_sets(client)
        assert current["spec"]["template"]["spec"]["containers"][0]["image"] == "nginx:1.27"
        assert current["metadata"]["annotations"]["deployment.kubernetes.io/revision-history"] == "1"
        assert current["spec"]["replicas"] == 1 and first["spec"]["replicas"] == 0
        await ready_all(client, client.list(POD, namespace="default"))
