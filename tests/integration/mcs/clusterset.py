"""What the MCS integration tests share: a clusterset of simulated members, clients of them, and DNS queries.

The members are read with the official `kubernetes` client (one ApiClient per member, from the sim's
kubeconfig) rather than kubectl, so the many polls of a test cost no process each; writes go through
kubectl, as a user's would. DNS questions go over UDP to each member's resolver, whose address the
sim's state file (`sim.json`) gives, with dnslib's client.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from dnslib import QTYPE, RCODE, DNSRecord
from kubernetes import client, config
from kubernetes.client.rest import ApiException

from tests.integration.federation import FAST_CLUSTER_STATUS, Federation, MemberCluster

MEMBERS = ("member1", "member2", "member3")
MCS_GROUP = "multicluster.x-k8s.io"
MANAGER_ARGS = (
    *FAST_CLUSTER_STATUS,
    "--cluster-failure-threshold",
    "2",
    "--feature-gates=MultiClusterService=true",
)


PULL_MEMBER = "member3"
"""Registered in Pull mode: the controller manager reaches it through the hub's cluster proxy, so every
MCS test also shows a Pull member exporting and importing like the Push ones."""


def clusterset(root: Path) -> Iterator[Federation]:
    """A started hub with `MEMBERS` (one node each; member3 in Pull mode with its agent) and a controller
    manager with the MCS gate on."""
    members = [MemberCluster(name, sync_mode="Pull" if name == PULL_MEMBER else "Push") for name in MEMBERS]
    with Federation(root, members, manager_args=MANAGER_ARGS) as federation:
        federation.start()
        yield federation


class Member:
    """One member, through the official Python client."""

    def __init__(self, name: str, kubeconfig: Path, dns: str) -> None:
        self.name = name
        configuration = client.Configuration()
        # The kubernetes client ships without type hints.
        config.load_kube_config(  # type: ignore[no-untyped-call]
            config_file=str(kubeconfig), client_configuration=configuration
        )
        self.api = client.ApiClient(configuration)
        self.dns_host, port = dns.rsplit(":", 1)
        self.dns_port = int(port)

    def _plain(self, obj: Any) -> Any:
        return self.api.sanitize_for_serialization(obj)

    def custom(self, plural: str, namespace: str, name: str) -> dict[str, Any] | None:
        try:
            found: dict[str, Any] = client.CustomObjectsApi(self.api).get_namespaced_custom_object(
                MCS_GROUP, "v1beta1", namespace, plural, name
            )
        except ApiException as exc:
            if exc.status == 404:
                return None
            raise
        return found

    def service_import(self, namespace: str, name: str) -> dict[str, Any] | None:
        return self.custom("serviceimports", namespace, name)

    def service_export(self, namespace: str, name: str) -> dict[str, Any] | None:
        return self.custom("serviceexports", namespace, name)

    def endpoint_slices(self, namespace: str, selector: str) -> list[dict[str, Any]]:
        found = client.DiscoveryV1Api(self.api).list_namespaced_endpoint_slice(
            namespace, label_selector=selector
        )
        items: list[dict[str, Any]] = self._plain(found)["items"]
        return items

    def cluster_properties(self) -> dict[str, str]:
        found = client.CustomObjectsApi(self.api).list_cluster_custom_object(
            "about.k8s.io", "v1alpha1", "clusterproperties"
        )
        return {item["metadata"]["name"]: item["spec"]["value"] for item in found["items"]}

    def dns(self, name: str, kind: str = "A") -> tuple[str, list[str]]:
        """(RCODE name, answers as text) for `name`; an SRV answer reads `<port> <target>`."""
        question = DNSRecord.question(name, kind)
        reply = DNSRecord.parse(question.send(self.dns_host, self.dns_port, timeout=3))
        answers = []
        for record in reply.rr:
            if record.rtype == QTYPE.SRV:
                answers.append(f"{record.rdata.port} {str(record.rdata.target).rstrip('.')}")
            elif record.rtype == QTYPE.TXT:
                answers.append(b"".join(record.rdata.data).decode())
            else:
                answers.append(str(record.rdata))
        return RCODE.get(reply.header.rcode), sorted(answers)

    def close(self) -> None:
        self.api.close()


def members_of(federation: Federation) -> dict[str, Member]:
    state = json.loads((federation.sim.data_dir / "sim.json").read_text())
    return {
        name: Member(name, federation.sim.kubeconfig(name), state["clusters"][name]["dns"])
        for name in federation.members
    }


def condition(obj: dict[str, Any] | None, kind: str) -> tuple[str, str]:
    """(status, reason) of condition `kind` of `obj`, ("", "") when it has none."""
    for found in ((obj or {}).get("status") or {}).get("conditions") or ():
        if found["type"] == kind:
            return found["status"], found["reason"]
    return "", ""


def service(name: str, *ports: dict[str, Any], headless: bool = False, **spec: Any) -> dict[str, Any]:
    """A Service selecting the pods of `deployment(name)`."""
    body: dict[str, Any] = {"selector": {"app": name}, "ports": list(ports), **spec}
    if headless:
        body["clusterIP"] = "None"
    return {"apiVersion": "v1", "kind": "Service", "metadata": {"name": name}, "spec": body}


def deployment(name: str, replicas: int = 1) -> dict[str, Any]:
    """`replicas` pods labelled `app: NAME`, each named as the headless Service's subdomain wants."""
    pod_spec = {"subdomain": name, "containers": [{"name": "app", "image": "nginx"}]}
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app": name}},
            "template": {"metadata": {"labels": {"app": name}}, "spec": pod_spec},
        },
    }


def service_export(name: str, **spec: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "apiVersion": f"{MCS_GROUP}/v1beta1",
        "kind": "ServiceExport",
        "metadata": {"name": name},
    }
    if spec:
        body["spec"] = spec
    return body


def port(name: str, number: int, protocol: str = "TCP") -> dict[str, Any]:
    return {"name": name, "port": number, "protocol": protocol}


def stateful_set(name: str, replicas: int = 1) -> dict[str, Any]:
    """`replicas` pods `NAME-0…` governed by the headless Service `NAME` (so each has a hostname)."""
    return {
        "apiVersion": "apps/v1",
        "kind": "StatefulSet",
        "metadata": {"name": name},
        "spec": {
            "replicas": replicas,
            "serviceName": name,
            "selector": {"matchLabels": {"app": name}},
            "template": {
                "metadata": {"labels": {"app": name}},
                "spec": {"containers": [{"name": "app", "image": "nginx"}]},
            },
        },
    }
