"""The metrics-server of a simulated cluster: `metrics.k8s.io/v1beta1` pods and nodes, from the cache.

Each request reads the running pods (phase Running, bound to a node) and the nodes from the API
server's cache, finds for each pod the load it shares by walking its controller owner chain
(Pod → ReplicaSet → Deployment, Pod → StatefulSet…; the top-most object carrying a load wins, a
load set by `flotilla sim load` before an annotation), divides the loads (`usage.py`) and writes
the items (`objects.py`). Usage is always computed over every pod of the namespace (nodes: of the
cluster), then label and field selectors pick what is shown, so a selector never changes a pod's
share. As metrics-server, it serves get and list, in one namespace or all, with `labelSelector`
and `fieldSelector` (`metadata.name`, `metadata.namespace`); a pod that is not running has no
metrics (404 when asked by name).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson
from aiohttp import web

from flotilla.api import resourcemetrics
from flotilla.api.fieldselectors import FieldSelector, check_metadata_field_selector, parse_field_selector
from flotilla.api.objects import controller_of
from flotilla.api.scheme import GroupVersionKind
from flotilla.api.selectors import LabelSelector, SelectorError, parse_label_selector
from flotilla.apiserver import errors
from flotilla.apiserver.localclient import LocalClient
from flotilla.runtime.clock import Clock
from flotilla.sim.metrics.loads import Load, LoadBook, LoadKey, annotated_load, workload_kind
from flotilla.sim.metrics.objects import metrics_list, node_metrics, pod_metrics
from flotilla.sim.metrics.usage import PodFacts, Usage, node_usages, pod_usages

POD = GroupVersionKind("", "v1", "Pod")
NODE = GroupVersionKind("", "v1", "Node")
MAX_OWNER_DEPTH = 4
"""Owner chains are short (Pod → ReplicaSet → Deployment; CronJob → Job → Pod): stop past this."""

_Owners = dict[tuple[str, str, str], Mapping[str, Any] | None]


def _meta(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    metadata = obj.get("metadata")
    return metadata if isinstance(metadata, Mapping) else {}


def _running(pod: Mapping[str, Any]) -> bool:
    return (pod.get("status") or {}).get("phase") == "Running" and bool(
        (pod.get("spec") or {}).get("nodeName")
    )


def _ready(pod: Mapping[str, Any]) -> bool:
    for condition in (pod.get("status") or {}).get("conditions") or ():
        if isinstance(condition, Mapping) and condition.get("type") == "Ready":
            return condition.get("status") == "True"
    return False


def _selectors(request: web.Request) -> tuple[LabelSelector, FieldSelector]:
    """The request's selectors; 400 with the parser's message for one that does not parse."""
    try:
        labels = parse_label_selector(request.query.get("labelSelector", ""))
        fields = parse_field_selector(request.query.get("fieldSelector", ""))
        check_metadata_field_selector(fields)
    except SelectorError as exc:
        raise errors.BadRequest(str(exc)) from exc
    return labels, fields


def _selected(obj: Mapping[str, Any], labels: LabelSelector, fields: FieldSelector) -> bool:
    metadata = _meta(obj)
    values = {
        "metadata.name": str(metadata.get("name", "")),
        "metadata.namespace": str(metadata.get("namespace", "")),
    }
    return labels.matches(metadata.get("labels") or {}) and fields.matches(values)


def _answer(body: dict[str, Any]) -> web.Response:
    return web.Response(body=orjson.dumps(body), content_type="application/json")


class MetricsServer:
    """Answers `metrics.k8s.io` requests of one simulated cluster."""

    def __init__(self, client: LocalClient, loads: LoadBook, clock: Clock) -> None:
        self.client = client
        self.loads = loads
        self.clock = clock

    def workload_exists(self, key: LoadKey) -> bool:
        """Whether the workload a load is set on exists in this cluster now."""
        kind, namespace, name = key
        return self.client.peek(workload_kind(kind), name, namespace=namespace) is not None

    # -- facts ------------------------------------------------------------------------------------

    def _owner(self, owners: _Owners, namespace: str, obj: Mapping[str, Any]) -> Mapping[str, Any] | None:
        reference = controller_of(obj)
        if reference is None:
            return None
        kind, name = str(reference.get("kind", "")), str(reference.get("name", ""))
        key = (kind, namespace, name)
        if key not in owners:
            owner = None
            try:
                gvk = GroupVersionKind.parse(str(reference.get("apiVersion", "")), kind)
                owner = self.client.peek(gvk, name, namespace=namespace)
            except (errors.NotFound, ValueError):
                owner = None
            if owner is not None and _meta(owner).get("uid") != reference.get("uid"):
                owner = None  # a stale reference: the owner was replaced
            owners[key] = owner
        return owners[key]

    def load_of(self, pod: Mapping[str, Any], owners: _Owners) -> tuple[LoadKey | None, Load | None]:
        """The workload whose load `pod` shares, and that load (None, None: none reaches it)."""
        namespace = str(_meta(pod).get("namespace", ""))
        chain: list[tuple[LoadKey, Mapping[str, Any]]] = [
            (("Pod", namespace, str(_meta(pod).get("name"))), pod)
        ]
        current: Mapping[str, Any] = pod
        for _ in range(MAX_OWNER_DEPTH):
            owner = self._owner(owners, namespace, current)
            if owner is None:
                break
            kind = str((controller_of(current) or {}).get("kind", ""))
            chain.append(((kind, namespace, str(_meta(owner).get("name", ""))), owner))
            current = owner
        for key, _ in reversed(chain):
            load = self.loads.get(key)
            if load is not None:
                return key, load
        for key, obj in reversed(chain):
            load = annotated_load(_meta(obj).get("annotations"))
            if load is not None:
                return key, load
        return None, None

    def _facts(self, pods: list[Mapping[str, Any]]) -> list[PodFacts]:
        owners: _Owners = {}
        facts = []
        for pod in pods:
            metadata = _meta(pod)
            load_key, load = self.load_of(pod, owners)
            facts.append(
                PodFacts(
                    namespace=str(metadata.get("namespace", "")),
                    name=str(metadata.get("name", "")),
                    node=str((pod.get("spec") or {}).get("nodeName", "")),
                    ready=_ready(pod),
                    load_key=load_key,
                    load=load,
                )
            )
        return facts

    def _running_pods(self, namespace: str) -> list[Mapping[str, Any]]:
        return [pod for pod in self.client.list(POD, namespace=namespace) if _running(pod)]

    # -- requests ---------------------------------------------------------------------------------

    async def serve_pods(
        self, request: web.Request, verb: str, namespace: str, name: str
    ) -> web.StreamResponse:
        pods = self._running_pods(namespace)
        usages = pod_usages(self._facts(pods))
        now = self.clock.now()
        if verb == "get":
            for pod in pods:
                if _meta(pod).get("name") == name:
                    return _answer(pod_metrics(pod, usages[(namespace, name)], now))
            raise errors.NotFound(
                f'podmetrics.{resourcemetrics.GROUP} "{namespace}/{name}" not found',
                name=name,
                group=resourcemetrics.GROUP,
                kind=resourcemetrics.POD_METRICS.plural,
            )
        labels, fields = _selectors(request)
        return _answer(self._pod_metrics_list(pods, usages, labels, fields))

    def pod_metrics_list(self, namespace: str, labels: LabelSelector) -> dict[str, Any]:
        """The PodMetricsList of `namespace`'s pods matching `labels`: what `GET …/pods?labelSelector=`
        answers, for the cluster's own HPA controller (in-process, no request)."""
        pods = self._running_pods(namespace)
        return self._pod_metrics_list(pods, pod_usages(self._facts(pods)), labels, FieldSelector())

    def _pod_metrics_list(
        self,
        pods: list[Mapping[str, Any]],
        usages: Mapping[tuple[str, str], Usage],
        labels: LabelSelector,
        fields: FieldSelector,
    ) -> dict[str, Any]:
        now = self.clock.now()
        items = []
        for pod in pods:
            if _selected(pod, labels, fields):
                metadata = _meta(pod)
                key = (str(metadata.get("namespace", "")), str(metadata.get("name", "")))
                items.append(pod_metrics(pod, usages[key], now))
        return metrics_list(resourcemetrics.POD_METRICS.kind, items)

    async def serve_nodes(
        self, request: web.Request, verb: str, namespace: str, name: str
    ) -> web.StreamResponse:
        nodes = self.client.list(NODE)
        pods = self._running_pods("")
        facts = self._facts(pods)
        totals = node_usages([str(_meta(node).get("name", "")) for node in nodes], facts, pod_usages(facts))
        now = self.clock.now()
        if verb == "get":
            for node in nodes:
                if _meta(node).get("name") == name:
                    return _answer(node_metrics(node, totals[name], now))
            raise errors.NotFound(
                f'nodemetrics.{resourcemetrics.GROUP} "{name}" not found',
                name=name,
                group=resourcemetrics.GROUP,
                kind=resourcemetrics.NODE_METRICS.plural,
            )
        labels, fields = _selectors(request)
        items = [
            node_metrics(node, totals[str(_meta(node).get("name", ""))], now)
            for node in nodes
            if _selected(node, labels, fields)
        ]
        return _answer(metrics_list(resourcemetrics.NODE_METRICS.kind, items))
