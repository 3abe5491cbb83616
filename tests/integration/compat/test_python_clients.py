"""Python clients people use, against the hub: the official client (sync and asyncio), lightkube, kr8s.

Each client does, through its own API, what its users' programs do: reads the server version (kr8s asks
`/version/` when it starts), creates a Deployment and waits until it is Available with the client's own
wait helper where it has one (the hub aggregates the members' status into conditions those helpers
read), guards a JSON patch with a test of metadata.resourceVersion, applies server-side, and watches.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.integration.compat.conftest import client_namespace
from tests.integration.compat.workloads import config_map, deployment
from tests.support.kubectl import Kubectl
from tests.support.waiting import eventually

pytestmark = pytest.mark.kubectl

WAIT_SECONDS = 90


def guarded_finalizer_patch(resource_version: str) -> list[dict[str, Any]]:
    """The JSON patch kopf and Helm send: test the resourceVersion read, then add a finalizer."""
    return [
        {"op": "test", "path": "/metadata/resourceVersion", "value": resource_version},
        {"op": "add", "path": "/metadata/finalizers", "value": ["compat.example.com/guard"]},
    ]


def finalizers(hub_admin: Kubectl, kind: str, name: str, namespace: str) -> list[str]:
    return list(hub_admin.json("get", kind, name, "-n", namespace)["metadata"].get("finalizers") or [])


# --- the official client ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def official(kubeconfig: Path) -> Iterator[Any]:
    from kubernetes import client, config

    configuration = client.Configuration()
    config.load_kube_config(  # type: ignore[no-untyped-call]
        config_file=str(kubeconfig), client_configuration=configuration
    )
    with client.ApiClient(configuration) as api:
        yield api


def test_official_client_deploys_waits_patches_and_watches(official: Any, hub_admin: Kubectl) -> None:
    """The official client: create, Available read back, guarded JSON patch, server-side apply, watch."""
    from kubernetes import client, watch

    namespace = client_namespace(hub_admin, "python-official")
    apps, core = client.AppsV1Api(official), client.CoreV1Api(official)
    assert client.VersionApi(official).get_code().major == "1"
    created = apps.create_namespaced_deployment(namespace, deployment("official"))
    eventually(
        lambda: apps.read_namespaced_deployment_status("official", namespace).to_dict(),
        until=lambda live: any(
            c["type"] == "Available" and c["status"] == "True"
            for c in (live.get("status") or {}).get("conditions") or ()
        ),
        timeout=WAIT_SECONDS,
        what="the official client reads Available",
    )
    live = apps.read_namespaced_deployment("official", namespace)
    apps.patch_namespaced_deployment(
        "official", namespace, guarded_finalizer_patch(live.metadata.resource_version)
    )
    assert finalizers(hub_admin, "deploy", "official", namespace) == ["compat.example.com/guard"]
    assert created.metadata.uid == live.metadata.uid
    applied = core.patch_namespaced_config_map(
        "official-applied",
        namespace,
        config_map("official-applied", key="value"),
        field_manager="official-compat",
        _content_type="application/apply-patch+yaml",
    )
    stream = watch.Watch().stream(
        core.list_namespaced_config_map,
        namespace,
        resource_version=live.metadata.resource_version,
        timeout_seconds=30,
    )
    seen = next(event for event in stream if event["object"].metadata.name == "official-applied")
    assert seen["type"] == "ADDED" and seen["object"].data == applied.data == {"key": "value"}


def test_official_asyncio_client_lists_and_watches(kubeconfig: Path, hub_admin: Kubectl) -> None:
    """kubernetes_asyncio lists at a resourceVersion and watches from it."""
    namespace = client_namespace(hub_admin, "python-asyncio")
    asyncio.run(_asyncio_client_round_trip(kubeconfig, namespace))


async def _asyncio_client_round_trip(kubeconfig: Path, namespace: str) -> None:
    from kubernetes_asyncio import client, config, watch

    configuration = client.Configuration()
    await config.load_kube_config(config_file=str(kubeconfig), client_configuration=configuration)
    async with client.ApiClient(configuration) as api:
        core = client.CoreV1Api(api)
        listed = await core.list_namespaced_config_map(namespace)
        await core.create_namespaced_config_map(namespace, config_map("async-made", key="v"))
        async with watch.Watch() as stream:
            async for event in stream.stream(
                core.list_namespaced_config_map,
                namespace,
                resource_version=listed.metadata.resource_version,
                timeout_seconds=30,
            ):
                if event["object"].metadata.name == "async-made":
                    assert event["type"] == "ADDED"
                    break
            else:
                raise AssertionError("kubernetes_asyncio's watch ended without the ConfigMap")


# --- lightkube ---------------------------------------------------------------------------------------


def test_lightkube_deploys_waits_patches_applies_and_watches(kubeconfig: Path, hub_admin: Kubectl) -> None:
    """lightkube: create, `wait(for_conditions=["Available"])`, guarded JSON patch, apply, watch."""
    from lightkube import Client
    from lightkube.codecs import from_dict
    from lightkube.config.kubeconfig import KubeConfig
    from lightkube.resources.apps_v1 import Deployment
    from lightkube.resources.core_v1 import ConfigMap
    from lightkube.types import PatchType

    namespace = client_namespace(hub_admin, "lightkube")
    kube = Client(config=KubeConfig.from_file(kubeconfig), field_manager="lightkube-compat")
    kube.create(from_dict(deployment("light")), namespace=namespace)
    kube.wait(Deployment, "light", for_conditions=["Available"], namespace=namespace)
    live = kube.get(Deployment, "light", namespace=namespace)
    assert live.metadata is not None and live.metadata.resourceVersion is not None
    kube.patch(
        Deployment,
        "light",
        guarded_finalizer_patch(live.metadata.resourceVersion),
        namespace=namespace,
        patch_type=PatchType.JSON,
    )
    assert finalizers(hub_admin, "deploy", "light", namespace) == ["compat.example.com/guard"]
    kube.apply(from_dict(config_map("light-applied", key="v")), namespace=namespace)
    for event, obj in kube.watch(
        ConfigMap, namespace=namespace, resource_version=live.metadata.resourceVersion
    ):
        if obj.metadata is not None and obj.metadata.name == "light-applied":
            assert event == "ADDED" and obj.data == {"key": "v"}
            break


# --- kr8s ------------------------------------------------------------------------------------------


async def test_kr8s_starts_deploys_waits_patches_and_watches(kubeconfig: Path, hub_admin: Kubectl) -> None:
    """kr8s (asyncio): version at start, create, `wait("condition=Available")`, guarded JSON patch, watch."""
    import kr8s.asyncio
    from kr8s.asyncio.objects import ConfigMap, Deployment

    namespace = client_namespace(hub_admin, "kr8s")
    api = await kr8s.asyncio.api(kubeconfig=str(kubeconfig), namespace=namespace)
    version = await api.version()
    assert version["major"] == "1", version
    made = await Deployment(deployment("kr8sd"), namespace=namespace, api=api)
    await made.create()
    await made.wait("condition=Available", timeout=WAIT_SECONDS)
    await made.refresh()
    await made.patch(guarded_finalizer_patch(made.metadata["resourceVersion"]), type="json")
    assert finalizers(hub_admin, "deploy", "kr8sd", namespace) == ["compat.example.com/guard"]
    watched = await ConfigMap(config_map("kr8s-watched", key="v"), namespace=namespace, api=api)
    await watched.create()
    # A watch without a resourceVersion opens with an ADDED event for every object that exists.
    event, data = await asyncio.wait_for(first_event(api, namespace, "kr8s-watched"), timeout=30)
    assert event == "ADDED" and json.loads(data) == {"key": "v"}


async def first_event(api: Any, namespace: str, name: str) -> tuple[str, str]:
    """The type and data of the first event of ConfigMap `name` that kr8s's watch yields."""
    async for event, obj in api.async_watch("configmaps", namespace=namespace):
        if obj.name == name:
            return str(event), json.dumps(obj.raw["data"])
    raise AssertionError("kr8s's watch ended without the ConfigMap")
