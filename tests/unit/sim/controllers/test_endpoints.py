"""EndpointSlices and Endpoints follow the pods a Service selects, and their readiness."""

from __future__ import annotations

from typing import Any

from flotilla.apiserver.embedded import EmbeddedAPI
from flotilla.apiserver.localclient import LocalClient
from flotilla.sim.controllers.endpoints import (
    MANAGED_BY,
    MANAGED_BY_LABEL,
    SERVICE_NAME_LABEL,
    EndpointsController,
    resolve_port,
)
from flotilla.sim.controllers.framework.kinds import ENDPOINT_SLICE, ENDPOINTS, POD, SERVICE
from tests.support.waiting import eventually_async
from tests.unit.sim.controllers.fakekubelet import set_ready
from tests.unit.sim.controllers.harness import running


def service(selector: dict[str, str] | None = None, **spec: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": "web", "namespace": "default", "labels": {"team": "a"}},
        "spec": {"ports": [{"name": "http", "port": 80, "targetPort": "http"}], **spec},
    }
    if selector is not None:
        body["spec"]["selector"] = selector
    return body


def pod(name: str, **metadata: Any) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "default", "labels": {"app": "web"}, **metadata},
        "spec": {
            "containers": [
                {"name": "main", "image": "nginx", "ports": [{"name": "http", "containerPort": 8080}]}
            ]
        },
    }


def slices(client: LocalClient) -> list[dict[str, Any]]:
    return client.list(ENDPOINT_SLICE, namespace="default")


def endpoints(client: LocalClient) -> dict[str, Any]:
    return client.get(ENDPOINTS, "web", namespace="default") or {}


def slice_endpoints(client: LocalClient) -> list[dict[str, Any]]:
    return [endpoint for found in slices(client) for endpoint in found.get("endpoints") or []]


async def test_pods_become_endpoints_once_they_have_an_ip_and_ready_ones_are_ready(
    api: EmbeddedAPI, client: LocalClient
) -> None:
    """No IP: not an endpoint. Running unready: listed not ready. Ready: ready in both objects."""
    first = await client.create(POD, pod("web-1"))
    async with running(api, EndpointsController):
        created = await client.create(SERVICE, service({"app": "web"}))
        await eventually_async(lambda: len(slices(client)) == 1 and bool(endpoints(client)))
        [placeholder] = slices(client)
        assert placeholder["endpoints"] == [] and placeholder["addressType"] == "IPv4"
        labels = placeholder["metadata"]["labels"]
        assert (
            labels[SERVICE_NAME_LABEL] == "web"
            and labels[MANAGED_BY_LABEL] == MANAGED_BY
            and labels["team"] == "a"
        )
        assert placeholder["metadata"]["name"].startswith("web-")
        assert placeholder["metadata"]["ownerReferences"][0]["uid"] == created["metadata"]["uid"]
        assert "subsets" not in endpoints(client)
        await set_ready(client, first, ready=False)
        await eventually_async(lambda: len(slice_endpoints(client)) == 1)
        [endpoint] = slice_endpoints(client)
        assert endpoint["conditions"] == {"ready": False, "serving": False, "terminating": False}
        assert endpoint["targetRef"]["name"] == "web-1" and endpoint["targetRef"]["kind"] == "Pod"
        assert slices(client)[0]["ports"] == [{"name": "http", "port": 8080, "protocol": "TCP"}]
        await eventually_async(lambda: "notReadyAddresses" in (endpoints(client).get("subsets") or [{}])[0])
        ip = (client.get(POD, "web-1", namespace="default") or {})["status"]["podIP"]
        await set_ready(client, first)
        await eventually_async(lambda: slice_endpoints(client)[0]["conditions"]["ready"] is True)
        await eventually_async(lambda: "addresses" in (endpoints(client).get("subsets") or [{}])[0])
        [subset] = endpoints(client)["subsets"]
        assert subset["addresses"][0]["ip"] == ip and "notReadyAddresses" not in subset
        assert subset["ports"] == [{"name": "http", "port": 8080, "protocol": "TCP"}]


async def test_a_terminating_pod_is_terminating_in_slices_and_gone_from_endpoints(
    api: EmbeddedAPI, client: LocalClient
) -> None:
    """A pod being deleted stays in its slice as serving but not ready, and leaves the Endpoints."""
    held = await client.create(POD, pod("web-1", finalizers=["example.com/hold"]))
    await set_ready(client, held)
    async with running(api, EndpointsController):
        await client.create(SERVICE, service({"app": "web"}))
        await eventually_async(lambda: "addresses" in (endpoints(client).get("subsets") or [{}])[0])
        await client.delete(POD, "web-1", namespace="default")
        await eventually_async(lambda: slice_endpoints(client)[0]["conditions"]["terminating"] is True)
        assert slice_endpoints(client)[0]["conditions"] == {
            "ready": False,
            "serving": True,
            "terminating": True,
        }
        await eventually_async(lambda: "subsets" not in endpoints(client))
        await client.patch(POD, "web-1", {"metadata": {"finalizers": None}}, namespace="default")
        await eventually_async(lambda: slice_endpoints(client) == [])


async def test_a_service_without_selector_is_left_alone(api: EmbeddedAPI, client: LocalClient) -> None:
    """No selector: no slices and no Endpoints are made for it."""
    await client.create(SERVICE, service())
    selected = service({"app": "web"})
    selected["metadata"]["name"] = "selected"
    await client.create(SERVICE, selected)
    await set_ready(client, await client.create(POD, pod("web-1")))
    async with running(api, EndpointsController):
        await eventually_async(lambda: client.get(ENDPOINTS, "selected", namespace="default") is not None)
        assert all(s["metadata"]["labels"][SERVICE_NAME_LABEL] == "selected" for s in slices(client))
        assert not endpoints(client)


async def test_deleting_the_service_deletes_its_endpoints(api: EmbeddedAPI, client: LocalClient) -> None:
    """The Endpoints object and the slices go with their Service."""
    async with running(api, EndpointsController):
        await client.create(SERVICE, service({"app": "web"}))
        await eventually_async(lambda: bool(endpoints(client)) and len(slices(client)) == 1)
        await client.delete(SERVICE, "web", namespace="default")
        await eventually_async(lambda: not endpoints(client) and not slices(client))


async def test_pods_that_stop_matching_leave_the_endpoints(api: EmbeddedAPI, client: LocalClient) -> None:
    """Relabelling a pod out of the selector removes its endpoint."""
    first = await client.create(POD, pod("web-1"))
    await set_ready(client, first)
    async with running(api, EndpointsController):
        await client.create(SERVICE, service({"app": "web"}))
        await eventually_async(lambda: len(slice_endpoints(client)) == 1)
        await client.patch(POD, "web-1", {"metadata": {"labels": {"app": "other"}}}, namespace="default")
        await eventually_async(lambda: slice_endpoints(client) == [] and "subsets" not in endpoints(client))


def test_named_target_ports_resolve_from_the_pods_container_ports() -> None:
    """A named targetPort takes the container port of that name and protocol; numbers pass through."""
    found = pod("web-1")
    assert resolve_port({"port": 80, "targetPort": "http"}, found) == 8080
    assert resolve_port({"port": 80, "targetPort": "http", "protocol": "UDP"}, found) is None
    assert resolve_port({"port": 80, "targetPort": 9000}, found) == 9000
    assert resolve_port({"port": 80}, found) == 80
