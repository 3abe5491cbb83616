"""Objects and a dict-backed lookup for authenticator tests."""

from __future__ import annotations

import base64
from collections.abc import Mapping
from typing import Any

from flotilla.api.scheme import GroupVersionKind


class Objects:
    """An `ObjectLookup` over a dict the test fills."""

    def __init__(self) -> None:
        self.items: dict[tuple[str, str, str], dict[str, Any]] = {}

    def add(self, obj: dict[str, Any]) -> dict[str, Any]:
        meta = obj["metadata"]
        self.items[(obj["kind"], meta.get("namespace", ""), meta["name"])] = obj
        return obj

    def remove(self, kind: str, namespace: str, name: str) -> None:
        del self.items[(kind, namespace, name)]

    def __call__(self, kind: GroupVersionKind, namespace: str, name: str) -> Mapping[str, Any] | None:
        return self.items.get((kind.kind, namespace, name))


def service_account(name: str = "robot", namespace: str = "default", uid: str = "sa-uid") -> dict[str, Any]:
    return {"kind": "ServiceAccount", "metadata": {"name": name, "namespace": namespace, "uid": uid}}


def pod(name: str, account: str = "robot", uid: str = "pod-uid", node: str = "") -> dict[str, Any]:
    spec: dict[str, Any] = {"serviceAccountName": account}
    if node:
        spec["nodeName"] = node
    return {"kind": "Pod", "metadata": {"name": name, "namespace": "default", "uid": uid}, "spec": spec}


def bootstrap_secret(token_id: str, token_secret: str, **data: str) -> dict[str, Any]:
    values = {"token-id": token_id, "token-secret": token_secret, **data}
    return {
        "kind": "Secret",
        "apiVersion": "v1",
        "type": "bootstrap.kubernetes.io/token",
        "metadata": {"name": f"bootstrap-token-{token_id}", "namespace": "kube-system"},
        "data": {k: base64.b64encode(v.encode()).decode() for k, v in values.items()},
    }
