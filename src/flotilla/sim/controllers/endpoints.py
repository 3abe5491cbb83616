"""The endpoints of Services: EndpointSlices and the legacy Endpoints object, from selected pods.

For each Service with a selector, the pods of its namespace that match it, have an IP and have
not finished become endpoints (kube's endpointslice and endpoint controllers, one reconciler):

- EndpointSlices (`<service>-xxxxx`, labelled `kubernetes.io/service-name` and managed by
  `endpointslice-controller.k8s.io`, owned by the Service), one address type per IP family of the
  Service, at most 100 endpoints each, one slice per distinct set of resolved ports. Each
  endpoint has the pod's IP, `ready` / `serving` / `terminating` conditions, nodeName, zone,
  hostname (for the Service named as the pod's subdomain) and a Pod targetRef. With no endpoint
  left, one empty slice stays.
- Endpoints, named as the Service: ready pods under `addresses`, others under
  `notReadyAddresses` (all ready with `publishNotReadyAddresses`; terminating pods left out unless
  that is set), grouped into subsets by identical ports.

Ports come from the Service's ports: a numeric `targetPort` as is, a named one resolved from the
pod's container port of that name and protocol (a pod without it gets no such port). Services
without a selector are left to whoever manages their endpoints; when a Service goes, so do its
Endpoints (its slices follow through their owner reference).
"""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping, Sequence
from typing import Any

import structlog

from flotilla.api.objectkeys import ObjectKey
from flotilla.api.selectors import label_selector_from_set
from flotilla.api.times import format_time
from flotilla.apiserver import errors
from flotilla.apiserver.localclient import CacheEvent
from flotilla.sim.controllers.framework.controller import SimController
from flotilla.sim.controllers.framework.kinds import ENDPOINT_SLICE, ENDPOINTS, NODE, POD, SERVICE
from flotilla.sim.controllers.podowners import ownership, pods
from flotilla.sim.controllers.podowners.podtemplates import canonical_json

log = structlog.get_logger("flotilla.sim.controllers")

SERVICE_NAME_LABEL = "kubernetes.io/service-name"
MANAGED_BY_LABEL = "endpointslice.kubernetes.io/managed-by"
MANAGED_BY = "endpointslice-controller.k8s.io"
HEADLESS_LABEL = "service.kubernetes.io/headless"
TRIGGER_TIME_ANNOTATION = "endpoints.kubernetes.io/last-change-trigger-time"
ZONE_LABEL = "topology.kubernetes.io/zone"
MAX_ENDPOINTS_PER_SLICE = 100

Pod = Mapping[str, Any]


def selector_of(service: Mapping[str, Any]) -> dict[str, str]:
    return dict((service.get("spec") or {}).get("selector") or {})


def pod_ips(pod: Pod) -> list[str]:
    status = pod.get("status") or {}
    found = [entry.get("ip", "") for entry in status.get("podIPs") or ()]
    if not found and status.get("podIP"):
        found = [status["podIP"]]
    return [ip for ip in found if ip]


def in_endpoints(pod: Pod, *, include_terminating: bool) -> bool:
    """kube's `ShouldPodBeInEndpoints`: not finished, has an IP, terminating only if asked."""
    if pods.is_finished(pod) or not pod_ips(pod):
        return False
    return include_terminating or not pods.is_terminating(pod)


def resolve_port(service_port: Mapping[str, Any], pod: Pod) -> int | None:
    """The pod port a Service port sends to (kube's `FindPort`); None when a named port is missing."""
    target = service_port.get("targetPort", service_port.get("port"))
    if isinstance(target, int):
        return target
    protocol = service_port.get("protocol", "TCP")
    for container in (pod.get("spec") or {}).get("containers") or ():
        for port in container.get("ports") or ():
            if port.get("name") == target and port.get("protocol", "TCP") == protocol:
                return int(port["containerPort"])
    try:
        return int(str(target))
    except ValueError:
        return None


def endpoint_ports(service: Mapping[str, Any], pod: Pod) -> list[dict[str, Any]]:
    ports = []
    for service_port in (service.get("spec") or {}).get("ports") or ():
        number = resolve_port(service_port, pod)
        if number is None:
            continue
        port: dict[str, Any] = {
            "name": service_port.get("name", ""),
            "port": number,
            "protocol": service_port.get("protocol", "TCP"),
        }
        if service_port.get("appProtocol"):
            port["appProtocol"] = service_port["appProtocol"]
        ports.append(port)
    return ports


def _target_ref(pod: Pod) -> dict[str, Any]:
    meta = pod["metadata"]
    return {"kind": "Pod", "namespace": meta["namespace"], "name": meta["name"], "uid": meta["uid"]}


def _hostname(pod: Pod, service: Mapping[str, Any]) -> str:
    spec = pod.get("spec") or {}
    if spec.get("hostname") and spec.get("subdomain") == service["metadata"]["name"]:
        return str(spec["hostname"])
    return ""


def _family(ip: str) -> str:
    try:
        return "IPv6" if ipaddress.ip_address(ip).version == 6 else "IPv4"
    except ValueError:
        return ""


def slice_endpoint(
    pod: Pod, service: Mapping[str, Any], address_type: str, zone: str
) -> dict[str, Any] | None:
    """The EndpointSlice entry of a pod (kube's `podToEndpoint`), None without an IP of that family."""
    addresses = [ip for ip in pod_ips(pod) if _family(ip) == address_type][:1]
    if not addresses:
        return None
    serving = pods.is_ready(pod)
    terminating = pods.is_terminating(pod)
    publish = bool((service.get("spec") or {}).get("publishNotReadyAddresses"))
    endpoint: dict[str, Any] = {
        "addresses": addresses,
        "conditions": {
            "ready": publish or (serving and not terminating),
            "serving": serving,
            "terminating": terminating,
        },
        "targetRef": _target_ref(pod),
    }
    if pods.node_name(pod):
        endpoint["nodeName"] = pods.node_name(pod)
    if zone:
        endpoint["zone"] = zone
    hostname = _hostname(pod, service)
    if hostname:
        endpoint["hostname"] = hostname
    return endpoint


def desired_slices(
    service: Mapping[str, Any], selected: Sequence[Pod], zones: Mapping[str, str]
) -> list[dict[str, Any]]:
    """The slices' content (addressType, ports, endpoints), in a stable order; no metadata."""
    families = list((service.get("spec") or {}).get("ipFamilies") or ["IPv4"])
    slices: list[dict[str, Any]] = []
    for address_type in families:
        groups: dict[bytes, tuple[list[dict[str, Any]], list[dict[str, Any]]]] = {}
        for pod in selected:
            if not in_endpoints(pod, include_terminating=True):
                continue
            endpoint = slice_endpoint(pod, service, address_type, zones.get(pods.node_name(pod), ""))
            if endpoint is None:
                continue
            ports = endpoint_ports(service, pod)
            groups.setdefault(canonical_json(ports), (ports, []))[1].append(endpoint)
        for ports, endpoints in groups.values():
            endpoints.sort(key=lambda e: (e["targetRef"]["name"], e["addresses"][0]))
            for start in range(0, len(endpoints), MAX_ENDPOINTS_PER_SLICE):
                chunk = {
                    "addressType": address_type,
                    "endpoints": endpoints[start : start + MAX_ENDPOINTS_PER_SLICE],
                }
                if ports:
                    chunk["ports"] = ports
                slices.append(chunk)
        if not any(s["addressType"] == address_type for s in slices):
            slices.append({"addressType": address_type, "endpoints": []})
    return slices


def desired_subsets(service: Mapping[str, Any], selected: Sequence[Pod]) -> list[dict[str, Any]]:
    """The Endpoints subsets: addresses grouped by identical port lists (kube's `RepackSubsets`)."""
    spec = service.get("spec") or {}
    publish = bool(spec.get("publishNotReadyAddresses"))
    groups: dict[bytes, dict[str, Any]] = {}
    for pod in selected:
        if not in_endpoints(pod, include_terminating=publish):
            continue
        address: dict[str, Any] = {"ip": pod_ips(pod)[0], "targetRef": _target_ref(pod)}
        if pods.node_name(pod):
            address["nodeName"] = pods.node_name(pod)
        hostname = _hostname(pod, service)
        if hostname:
            address["hostname"] = hostname
        ports = [{k: v for k, v in port.items() if v != ""} for port in endpoint_ports(service, pod)]
        if spec.get("ports") and not ports:
            continue
        ports.sort(key=lambda port: (port.get("name", ""), port["port"], port["protocol"]))
        subset = groups.setdefault(canonical_json(ports), {"ports": ports})
        section = "addresses" if publish or pods.is_ready(pod) else "notReadyAddresses"
        subset.setdefault(section, []).append(address)
    subsets = []
    for key in sorted(groups):
        subset = groups[key]
        for section in ("addresses", "notReadyAddresses"):
            if section in subset:
                subset[section].sort(key=lambda a: (a["ip"], a["targetRef"]["uid"]))
        if not subset["ports"]:
            del subset["ports"]
        subsets.append(subset)
    return subsets


class EndpointsController(SimController):
    NAME = "endpointslice-controller"
    KIND = SERVICE
    WORKERS = 4

    def watch(self) -> None:
        self.client.on_change(POD, self._on_pod_change)

    def _on_pod_change(self, event: CacheEvent) -> None:
        namespace = event.object.namespace
        label_sets = [event.object.metadata.get("labels") or {}]
        if event.prev is not None:
            label_sets.append(event.prev.metadata.get("labels") or {})
        for service in self.client.list(SERVICE, namespace=namespace):
            selector = selector_of(service)
            if selector and any(label_selector_from_set(selector).matches(labels) for labels in label_sets):
                self.enqueue(ObjectKey(namespace, service["metadata"]["name"]))

    async def reconcile(self, key: ObjectKey) -> float | None:
        namespace, name = key.namespace, key.name
        service = self.client.get(SERVICE, name, namespace=namespace)
        if service is None:
            await self._delete_endpoints(namespace, name)
            return None
        selector = selector_of(service)
        if not selector:
            return None
        matches = label_selector_from_set(selector).matches
        selected = [
            pod
            for pod in self.client.list(POD, namespace=namespace)
            if matches(pod["metadata"].get("labels") or {})
        ]
        zones = {
            node["metadata"]["name"]: (node["metadata"].get("labels") or {}).get(ZONE_LABEL, "")
            for node in self.client.list(NODE)
        }
        await self._sync_slices(service, desired_slices(service, selected, zones))
        await self._sync_endpoints(service, desired_subsets(service, selected))
        return None

    # -- EndpointSlices -------------------------------------------------------------------------

    def _slice_labels(self, service: Mapping[str, Any]) -> dict[str, str]:
        labels = {
            key: value
            for key, value in (service["metadata"].get("labels") or {}).items()
            if key not in (SERVICE_NAME_LABEL, MANAGED_BY_LABEL, HEADLESS_LABEL)
        }
        labels[SERVICE_NAME_LABEL] = service["metadata"]["name"]
        labels[MANAGED_BY_LABEL] = MANAGED_BY
        if (service.get("spec") or {}).get("clusterIP") == "None":
            labels[HEADLESS_LABEL] = ""
        return labels

    def _existing_slices(self, service: Mapping[str, Any]) -> list[dict[str, Any]]:
        meta = service["metadata"]
        return [
            dict(found)
            for found in self.client.list(ENDPOINT_SLICE, namespace=meta["namespace"])
            if (found["metadata"].get("labels") or {}).get(SERVICE_NAME_LABEL) == meta["name"]
            and (found["metadata"].get("labels") or {}).get(MANAGED_BY_LABEL) == MANAGED_BY
        ]

    async def _sync_slices(self, service: dict[str, Any], wanted: list[dict[str, Any]]) -> None:
        meta = service["metadata"]
        labels = self._slice_labels(service)
        reference = ownership.controller_reference(service, SERVICE)
        existing = self._existing_slices(service)
        # Reuse slices of the same address type and ports first, so unchanged slices stay unwritten.
        existing.sort(key=lambda s: s["metadata"]["name"])
        spare = list(existing)
        plans: list[tuple[dict[str, Any] | None, dict[str, Any]]] = []
        for content in wanted:
            match = next(
                (
                    s
                    for s in spare
                    if s.get("addressType") == content["addressType"]
                    and canonical_json(s.get("ports") or []) == canonical_json(content.get("ports") or [])
                ),
                None,
            ) or next((s for s in spare if s.get("addressType") == content["addressType"]), None)
            if match is not None:
                spare.remove(match)
            plans.append((match, content))
        for current, content in plans:
            if current is None:
                await self.client.create(
                    ENDPOINT_SLICE,
                    {
                        "apiVersion": "discovery.k8s.io/v1",
                        "kind": "EndpointSlice",
                        "metadata": {
                            "generateName": f"{meta['name']}-",
                            "namespace": meta["namespace"],
                            "labels": labels,
                            "ownerReferences": [reference],
                        },
                        **content,
                    },
                )
                continue
            if (
                (current.get("endpoints") or []) == content["endpoints"]
                and (current.get("ports") or []) == (content.get("ports") or [])
                and current["metadata"].get("labels") == labels
            ):
                continue
            updated = {key: value for key, value in current.items() if key not in ("endpoints", "ports")}
            updated["metadata"] = {**current["metadata"], "labels": labels}
            updated.update(content)
            await self.client.update(ENDPOINT_SLICE, updated)
        for leftover in spare:
            leftover_meta = leftover["metadata"]
            await self.client.delete(
                ENDPOINT_SLICE, leftover_meta["name"], namespace=leftover_meta["namespace"]
            )

    # -- Endpoints ------------------------------------------------------------------------------

    async def _sync_endpoints(self, service: dict[str, Any], subsets: list[dict[str, Any]]) -> None:
        meta = service["metadata"]
        labels = dict(meta.get("labels") or {})
        if (service.get("spec") or {}).get("clusterIP") == "None":
            labels[HEADLESS_LABEL] = ""
        current = self.client.get(ENDPOINTS, meta["name"], namespace=meta["namespace"])
        if current is None:
            body: dict[str, Any] = {
                "apiVersion": "v1",
                "kind": "Endpoints",
                "metadata": {"name": meta["name"], "namespace": meta["namespace"]},
            }
            if labels:
                body["metadata"]["labels"] = labels
            if subsets:
                body["subsets"] = subsets
                body["metadata"]["annotations"] = {TRIGGER_TIME_ANNOTATION: format_time(self.clock.now())}
            try:
                await self.client.create(ENDPOINTS, body)
            except errors.AlreadyExists:
                return  # created meanwhile: the event it caused brings us back
            return
        if (current.get("subsets") or []) == subsets and (current["metadata"].get("labels") or {}) == labels:
            return
        updated = {key: value for key, value in current.items() if key != "subsets"}
        updated["metadata"] = dict(current["metadata"])
        if labels:
            updated["metadata"]["labels"] = labels
        else:
            updated["metadata"].pop("labels", None)
        if subsets:
            updated["subsets"] = subsets
        if (current.get("subsets") or []) != subsets:
            annotations = dict(updated["metadata"].get("annotations") or {})
            annotations[TRIGGER_TIME_ANNOTATION] = format_time(self.clock.now())
            updated["metadata"]["annotations"] = annotations
        await self.client.update(ENDPOINTS, updated)

    async def _delete_endpoints(self, namespace: str, name: str) -> None:
        if self.client.peek(ENDPOINTS, name, namespace=namespace) is not None:
            await self.client.delete(ENDPOINTS, name, namespace=namespace)
        for leftover in self.client.list(ENDPOINT_SLICE, namespace=namespace):
            labels = leftover["metadata"].get("labels") or {}
            if labels.get(SERVICE_NAME_LABEL) == name and labels.get(MANAGED_BY_LABEL) == MANAGED_BY:
                await self.client.delete(ENDPOINT_SLICE, leftover["metadata"]["name"], namespace=namespace)
