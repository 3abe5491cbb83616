"""The official `kubernetes` Python client against a real `flotilla apiserver` process."""

from __future__ import annotations

import threading
import time
import uuid
from typing import Any

import pytest
from kubernetes import client, watch
from kubernetes.client.exceptions import ApiException
from kubernetes.dynamic import DynamicClient

from tests.support.waiting import eventually


@pytest.fixture
def core(api_client: client.ApiClient) -> client.CoreV1Api:
    return client.CoreV1Api(api_client)


@pytest.fixture
def ns(core: client.CoreV1Api) -> str:
    name = f"py-{uuid.uuid4().hex[:8]}"
    core.create_namespace(client.V1Namespace(metadata=client.V1ObjectMeta(name=name)))
    return name


def test_typed_crud_on_core_and_apps_kinds(
    api_client: client.ApiClient, core: client.CoreV1Api, ns: str
) -> None:
    """Create, read, replace, patch and delete ConfigMaps and Deployments through the typed APIs."""
    apps = client.AppsV1Api(api_client)
    created = core.create_namespaced_config_map(
        ns, client.V1ConfigMap(metadata=client.V1ObjectMeta(name="cfg"), data={"a": "1"})
    )
    assert created.metadata.uid and created.metadata.resource_version
    read = core.read_namespaced_config_map("cfg", ns)
    read.data["b"] = "2"
    replaced = core.replace_namespaced_config_map("cfg", ns, read)
    assert int(replaced.metadata.resource_version) > int(created.metadata.resource_version)
    patched = core.patch_namespaced_config_map("cfg", ns, {"data": {"c": "3"}})
    assert patched.data == {"a": "1", "b": "2", "c": "3"}
    core.delete_namespaced_config_map("cfg", ns)
    with pytest.raises(ApiException) as missing:
        core.read_namespaced_config_map("cfg", ns)
    assert missing.value.status == 404

    body = client.V1Deployment(
        metadata=client.V1ObjectMeta(name="web"),
        spec=client.V1DeploymentSpec(
            replicas=2,
            selector=client.V1LabelSelector(match_labels={"app": "web"}),
            template=client.V1PodTemplateSpec(
                metadata=client.V1ObjectMeta(labels={"app": "web"}),
                spec=client.V1PodSpec(containers=[client.V1Container(name="web", image="nginx")]),
            ),
        ),
    )
    deployment = apps.create_namespaced_deployment(ns, body)
    assert deployment.metadata.generation == 1
    assert deployment.spec.template.spec.containers[0].image_pull_policy == "Always"
    scaled = apps.patch_namespaced_deployment_scale("web", ns, {"spec": {"replicas": 4}})
    assert scaled.spec.replicas == 4
    assert apps.read_namespaced_deployment("web", ns).metadata.generation == 2
    status = apps.read_namespaced_deployment_status("web", ns)
    status.status = client.V1DeploymentStatus(replicas=4, observed_generation=2)
    updated = apps.replace_namespaced_deployment_status("web", ns, status)
    assert updated.status.replicas == 4
    assert updated.metadata.generation == 2


def test_conflicting_update_raises_409(core: client.CoreV1Api, ns: str) -> None:
    """Replacing with a stale resourceVersion is refused with 409 Conflict."""
    core.create_namespaced_config_map(ns, client.V1ConfigMap(metadata=client.V1ObjectMeta(name="c")))
    stale = core.read_namespaced_config_map("c", ns)
    core.patch_namespaced_config_map("c", ns, {"data": {"x": "1"}})
    with pytest.raises(ApiException) as conflict:
        core.replace_namespaced_config_map("c", ns, stale)
    assert conflict.value.status == 409
    assert "the object has been modified" in conflict.value.body


def test_pagination_with_limit_and_continue(core: client.CoreV1Api, ns: str) -> None:
    """limit/continue pages through a list once, in order, even while it changes."""
    for i in range(7):
        core.create_namespaced_config_map(ns, client.V1ConfigMap(metadata=client.V1ObjectMeta(name=f"p{i}")))
    names: list[str] = []
    token = None
    pages = 0
    while True:
        page = core.list_namespaced_config_map(ns, limit=3, _continue=token)
        names += [item.metadata.name for item in page.items]
        pages += 1
        if pages == 1:
            core.create_namespaced_config_map(
                ns, client.V1ConfigMap(metadata=client.V1ObjectMeta(name="p99"))
            )
        token = page.metadata._continue
        if not token:
            break
    assert pages == 3
    assert names == [f"p{i}" for i in range(7)]


def test_watch_stream_sees_changes_and_resumes_from_resource_version(core: client.CoreV1Api, ns: str) -> None:
    """watch.Watch().stream reports ADDED/MODIFIED/DELETED and resumes from a resourceVersion."""
    start = core.list_namespaced_config_map(ns).metadata.resource_version

    def writer() -> None:
        # From `start`, the watch gets these whether they happen before it opens (replayed) or after (live).
        core.create_namespaced_config_map(ns, client.V1ConfigMap(metadata=client.V1ObjectMeta(name="w")))
        core.patch_namespaced_config_map("w", ns, {"data": {"k": "v"}})
        core.delete_namespaced_config_map("w", ns)

    thread = threading.Thread(target=writer)
    thread.start()
    events: list[tuple[str, str]] = []
    last_rv = start
    stream = watch.Watch()
    for event in stream.stream(
        core.list_namespaced_config_map, ns, resource_version=start, timeout_seconds=10
    ):
        events.append((event["type"], event["object"].metadata.name))
        last_rv = event["object"].metadata.resource_version
        if len(events) == 3:
            stream.stop()
    thread.join()
    assert events == [("ADDED", "w"), ("MODIFIED", "w"), ("DELETED", "w")]
    core.create_namespaced_config_map(ns, client.V1ConfigMap(metadata=client.V1ObjectMeta(name="after")))
    resumed = watch.Watch()
    for event in resumed.stream(
        core.list_namespaced_config_map, ns, resource_version=last_rv, timeout_seconds=5
    ):
        assert (event["type"], event["object"].metadata.name) == ("ADDED", "after")
        resumed.stop()


def test_watch_ends_at_the_server_side_timeout(core: client.CoreV1Api, ns: str) -> None:
    """A watch with timeoutSeconds ends when the server closes it."""
    started = time.monotonic()
    items = list(
        watch.Watch().stream(
            core.list_namespaced_config_map,
            ns,
            timeout_seconds=1,
            _request_timeout=30,
            resource_version=core.list_namespaced_config_map(ns).metadata.resource_version,
        )
    )
    assert items == []
    assert 0.8 < time.monotonic() - started < 10


def crd_manifest(group: str) -> dict[str, Any]:
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": f"gadgets.{group}"},
        "spec": {
            "group": group,
            "scope": "Namespaced",
            "names": {"plural": "gadgets", "singular": "gadget", "kind": "Gadget", "shortNames": ["gd"]},
            "versions": [
                {
                    "name": "v1",
                    "served": True,
                    "storage": True,
                    "schema": {
                        "openAPIV3Schema": {
                            "type": "object",
                            "properties": {
                                "spec": {
                                    "type": "object",
                                    "properties": {"size": {"type": "integer", "default": 1}},
                                }
                            },
                        }
                    },
                }
            ],
        },
    }


def wait_established(api_client: client.ApiClient, name: str) -> None:
    extensions = client.ApiextensionsV1Api(api_client)

    def established() -> bool:
        crd = extensions.read_custom_resource_definition(name)
        conditions = {c.type: c.status for c in (crd.status.conditions or [])}
        return conditions.get("Established") == "True"

    eventually(established, timeout=10, what=f"{name} established")


def test_custom_objects_api_on_a_fresh_crd(api_client: client.ApiClient, ns: str) -> None:
    """A CRD created through the client is served at once to CustomObjectsApi, with defaults."""
    group = f"g{uuid.uuid4().hex[:6]}.example.com"
    client.ApiextensionsV1Api(api_client).create_custom_resource_definition(crd_manifest(group))
    wait_established(api_client, f"gadgets.{group}")
    objects = client.CustomObjectsApi(api_client)
    created = objects.create_namespaced_custom_object(
        group,
        "v1",
        ns,
        "gadgets",
        {"apiVersion": f"{group}/v1", "kind": "Gadget", "metadata": {"name": "g1"}, "spec": {}},
    )
    assert created["spec"]["size"] == 1
    objects.patch_namespaced_custom_object(group, "v1", ns, "gadgets", "g1", {"spec": {"size": 5}})
    listed = objects.list_namespaced_custom_object(group, "v1", ns, "gadgets")
    assert [(i["metadata"]["name"], i["spec"]["size"]) for i in listed["items"]] == [("g1", 5)]


def test_dynamic_client_discovers_builtin_and_custom_kinds(api_client: client.ApiClient, ns: str) -> None:
    """DynamicClient's discovery finds built-in kinds and a freshly created custom kind."""
    group = f"d{uuid.uuid4().hex[:6]}.example.com"
    client.ApiextensionsV1Api(api_client).create_custom_resource_definition(crd_manifest(group))
    wait_established(api_client, f"gadgets.{group}")
    dynamic = DynamicClient(api_client)
    configmaps = dynamic.resources.get(api_version="v1", kind="ConfigMap")
    configmaps.create(
        namespace=ns, body={"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "dyn"}}
    )
    assert [i.metadata.name for i in configmaps.get(namespace=ns).items] == ["dyn"]
    gadgets = dynamic.resources.get(api_version=f"{group}/v1", kind="Gadget")
    gadgets.create(
        namespace=ns,
        body={"apiVersion": f"{group}/v1", "kind": "Gadget", "metadata": {"name": "x"}, "spec": {}},
    )
    assert gadgets.get(namespace=ns, name="x").spec.size == 1
