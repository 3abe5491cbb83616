"""What every namespace gets: the `default` ServiceAccount and the `kube-root-ca.crt` ConfigMap.

kube-controller-manager's serviceaccount controller creates `default` in each active namespace
(and again if it is deleted); its root-ca-cert-publisher keeps a ConfigMap `kube-root-ca.crt`
holding the cluster CA (`ca.crt`) in each, restoring it when someone changes or deletes it. Pods
mount both through their projected service account volume. Terminating namespaces are left
alone: nothing new can be created in them.
"""

from __future__ import annotations

from typing import Any

import structlog

from flotilla.api.objectkeys import ObjectKey
from flotilla.apiserver import errors
from flotilla.apiserver.localclient import CacheEvent, LocalClient
from flotilla.runtime.clock import Clock
from flotilla.sim.controllers.framework.controller import SimController
from flotilla.sim.controllers.framework.kinds import CONFIG_MAP, NAMESPACE, SERVICE_ACCOUNT
from flotilla.sim.spec import ClusterSpec

log = structlog.get_logger("flotilla.sim.controllers")

DEFAULT_SERVICE_ACCOUNT = "default"
ROOT_CA_CONFIG_MAP = "kube-root-ca.crt"
ROOT_CA_KEY = "ca.crt"
DESCRIPTION_ANNOTATION = "kubernetes.io/description"
ROOT_CA_DESCRIPTION = (
    "Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints "
    "such as the internal service IP or kubernetes.default.svc. No other usage is guaranteed across "
    "distributions of Kubernetes clusters."
)


class ServiceAccountsController(SimController):
    NAME = "serviceaccount-controller"
    KIND = NAMESPACE
    WORKERS = 1

    def __init__(
        self, client: LocalClient, spec: ClusterSpec, clock: Clock, *, root_ca_pem: str = ""
    ) -> None:
        super().__init__(client, spec, clock)
        self.root_ca_pem = root_ca_pem

    def watch(self) -> None:
        self.client.on_change(SERVICE_ACCOUNT, self._namespace_of(DEFAULT_SERVICE_ACCOUNT))
        self.client.on_change(CONFIG_MAP, self._namespace_of(ROOT_CA_CONFIG_MAP))

    def _namespace_of(self, name: str) -> Any:
        def handler(event: CacheEvent) -> None:
            if event.object.name == name:
                self.enqueue(ObjectKey("", event.object.namespace))

        return handler

    async def reconcile(self, key: ObjectKey) -> float | None:
        namespace_name = key.name
        namespace = self.client.peek(NAMESPACE, namespace_name)
        if namespace is None or _terminating(namespace):
            return None
        try:
            await self._ensure_service_account(namespace_name)
            await self._ensure_root_ca(namespace_name)
        except errors.Forbidden:
            return None  # the namespace began terminating meanwhile
        return None

    async def _ensure_service_account(self, namespace: str) -> None:
        if self.client.peek(SERVICE_ACCOUNT, DEFAULT_SERVICE_ACCOUNT, namespace=namespace) is not None:
            return
        body = {
            "apiVersion": "v1",
            "kind": "ServiceAccount",
            "metadata": {"name": DEFAULT_SERVICE_ACCOUNT, "namespace": namespace},
        }
        try:
            await self.client.create(SERVICE_ACCOUNT, body)
        except errors.AlreadyExists:
            return
        log.info("serviceaccount.created", namespace=namespace, name=DEFAULT_SERVICE_ACCOUNT)

    async def _ensure_root_ca(self, namespace: str) -> None:
        current = self.client.get(CONFIG_MAP, ROOT_CA_CONFIG_MAP, namespace=namespace)
        data = {ROOT_CA_KEY: self.root_ca_pem}
        if current is None:
            body = {
                "apiVersion": "v1",
                "kind": "ConfigMap",
                "metadata": {
                    "name": ROOT_CA_CONFIG_MAP,
                    "namespace": namespace,
                    "annotations": {DESCRIPTION_ANNOTATION: ROOT_CA_DESCRIPTION},
                },
                "data": data,
            }
            try:
                await self.client.create(CONFIG_MAP, body)
            except errors.AlreadyExists:
                return
            return
        annotations = current["metadata"].get("annotations") or {}
        if current.get("data") == data and annotations.get(DESCRIPTION_ANNOTATION) == ROOT_CA_DESCRIPTION:
            return
        current["data"] = data
        current["metadata"]["annotations"] = {**annotations, DESCRIPTION_ANNOTATION: ROOT_CA_DESCRIPTION}
        await self.client.update(CONFIG_MAP, current)


def _terminating(namespace: dict[str, Any]) -> bool:
    return (
        bool(namespace["metadata"].get("deletionTimestamp"))
        or (namespace.get("status") or {}).get("phase") == "Terminating"
    )
