from datetime import UTC, datetime
from typing import Any

import pytest

from flotilla.apiserver.registry.tables.core import (
    CONFIG_MAP,
    ENDPOINTS,
    NAMESPACE,
    NODE,
    POD_TEMPLATE,
    REPLICATION_CONTROLLER,
    RESOURCE_QUOTA,
    SECRET,
    SERVICE,
    SERVICE_ACCOUNT,
)

NOW = datetime(2025, 3, 1, 12, 0, 0, tzinfo=UTC)
CREATED = "2025-02-27T12:00:00Z"


def meta(name: str, **extra: Any) -> dict[str, Any]:
    return {"name": name, "namespace": "default", "creationTimestamp": CREATED, **extra}


def service(spec: dict[str, Any], status: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"metadata": meta("web"), "spec": spec, "status": status or {}}


def test_cluster_ip_service_row() -> None:
    """A ClusterIP service prints its IP, `<none>` external IP, `port/protocol` and selector."""
    obj = service(
        {
            "type": "ClusterIP",
            "clusterIP": "10.96.12.7",
            "clusterIPs": ["10.96.12.7"],
            "ports": [{"port": 80, "protocol": "TCP", "targetPort": 8080}],
            "selector": {"app": "web"},
        }
    )
    assert SERVICE.cells(obj, NOW) == ["web", "ClusterIP", "10.96.12.7", "<none>", "80/TCP", "2d", "app=web"]


def test_node_port_service_shows_node_ports_and_defaults_protocol() -> None:
    """Node ports print as `port:nodePort/protocol`; a port without protocol is TCP."""
    obj = service(
        {
            "type": "NodePort",
            "clusterIPs": ["10.96.0.9"],
            "ports": [
                {"port": 80, "nodePort": 30080, "protocol": "TCP"},
                {"port": 53, "nodePort": 30053, "protocol": "UDP"},
                {"port": 9090},
            ],
        }
    )
    assert SERVICE.cells(obj, NOW)[1:5] == [
        "NodePort",
        "10.96.0.9",
        "<none>",
        "80:30080/TCP,53:30053/UDP,9090/TCP",
    ]


@pytest.mark.parametrize(
    ("status", "external_ips", "expected"),
    [
        ({}, [], "<pending>"),
        (
            {"loadBalancer": {"ingress": [{"ip": "5.6.7.8"}, {"hostname": "lb.example"}, {"ip": "1.2.3.4"}]}},
            [],
            "1.2.3.4,5.6.7.8,lb.example",
        ),
        ({"loadBalancer": {"ingress": [{"ip": "1.2.3.4"}]}}, ["9.9.9.9"], "1.2.3.4,9.9.9.9"),
        ({}, ["9.9.9.9"], "9.9.9.9"),
    ],
)
def test_load_balancer_external_ip(status: dict[str, Any], external_ips: list[str], expected: str) -> None:
    """LoadBalancer services show sorted ingress addresses, then external IPs; `<pending>` until allocated."""
    obj = service({"type": "LoadBalancer", "clusterIPs": ["10.0.0.1"], "externalIPs": external_ips}, status)
    assert SERVICE.cells(obj, NOW)[3] == expected


def test_headless_and_external_name_services() -> None:
    """A headless service shows cluster IP `None`; an ExternalName one its name and `<none>` ports."""
    headless = service(
        {"clusterIP": "None", "clusterIPs": ["None"], "ports": [{"port": 5432, "protocol": "TCP"}]}
    )
    assert SERVICE.cells(headless, NOW)[1:5] == ["ClusterIP", "None", "<none>", "5432/TCP"]
    external = service({"type": "ExternalName", "externalName": "db.example.com"})
    assert SERVICE.cells(external, NOW)[1:5] == ["ExternalName", "<none>", "db.example.com", "<none>"]


def test_endpoints_list_three_addresses_then_count_the_rest() -> None:
    """ENDPOINTS shows `ip:port` pairs, IPv6 in brackets, three of them and `+ N more...`."""
    obj = {
        "metadata": meta("web"),
        "subsets": [
            {"addresses": [{"ip": "10.0.0.1"}, {"ip": "fd00::2"}], "ports": [{"port": 80}, {"port": 443}]},
        ],
    }
    assert ENDPOINTS.cells(obj, NOW) == ["web", "10.0.0.1:80,[fd00::2]:80,10.0.0.1:443 + 1 more...", "2d"]


def test_endpoints_without_subsets_or_ports() -> None:
    """No subsets prints `<none>`; addresses without ports print bare IPs."""
    assert ENDPOINTS.cells({"metadata": meta("web")}, NOW)[1] == "<none>"
    headless = {"metadata": meta("db"), "subsets": [{"addresses": [{"ip": "10.0.0.5"}]}]}
    assert ENDPOINTS.cells(headless, NOW)[1] == "10.0.0.5"


def node(
    conditions: list[dict[str, Any]], labels: dict[str, str] | None = None, unschedulable: bool = False
) -> dict[str, Any]:
    return {
        "metadata": {"name": "node-1", "creationTimestamp": "2025-02-01T12:00:00Z", "labels": labels or {}},
        "spec": {"unschedulable": unschedulable},
        "status": {
            "conditions": conditions,
            "addresses": [
                {"type": "Hostname", "address": "node-1"},
                {"type": "InternalIP", "address": "172.18.0.2"},
            ],
            "nodeInfo": {
                "kubeletVersion": "v1.32.0",
                "osImage": "Debian GNU/Linux 12 (bookworm)",
                "kernelVersion": "6.8.0-45-generic",
                "containerRuntimeVersion": "containerd://1.7.24",
            },
        },
    }


def test_ready_control_plane_node_row() -> None:
    """A ready control-plane node prints roles from node-role labels and its system info."""
    obj = node(
        [{"type": "MemoryPressure", "status": "False"}, {"type": "Ready", "status": "True"}],
        {"node-role.kubernetes.io/control-plane": "", "kubernetes.io/hostname": "node-1"},
    )
    assert NODE.cells(obj, NOW) == [
        "node-1",
        "Ready",
        "control-plane",
        "28d",
        "v1.32.0",
        "172.18.0.2",
        "<none>",
        "Debian GNU/Linux 12 (bookworm)",
        "6.8.0-45-generic",
        "containerd://1.7.24",
    ]


@pytest.mark.parametrize(
    ("conditions", "unschedulable", "expected"),
    [
        ([{"type": "Ready", "status": "False"}], False, "NotReady"),
        ([{"type": "Ready", "status": "Unknown"}], True, "NotReady,SchedulingDisabled"),
        ([], False, "Unknown"),
        ([{"type": "Ready", "status": "True"}], True, "Ready,SchedulingDisabled"),
    ],
)
def test_node_status(conditions: list[dict[str, Any]], unschedulable: bool, expected: str) -> None:
    """Node STATUS comes from the Ready condition, with SchedulingDisabled for cordoned nodes."""
    assert NODE.cells(node(conditions, unschedulable=unschedulable), NOW)[1] == expected


def test_node_roles_merge_both_label_styles_sorted() -> None:
    """Roles come from `node-role.kubernetes.io/<role>` keys and the `kubernetes.io/role` value, sorted."""
    labels = {
        "node-role.kubernetes.io/worker": "",
        "kubernetes.io/role": "ingress",
        "node-role.kubernetes.io/": "x",
    }
    assert NODE.cells(node([], labels), NOW)[2] == "ingress,worker"
    assert NODE.cells(node([]), NOW)[2] == "<none>"


def test_bare_node_prints_unknown_system_info() -> None:
    """Missing node info prints `<unknown>` in the wide columns and `<none>` for addresses."""
    assert NODE.cells({"metadata": {"name": "n"}}, NOW)[4:] == [
        "",
        "<none>",
        "<none>",
        "<unknown>",
        "<unknown>",
        "<unknown>",
    ]


def test_namespace_configmap_secret_and_service_account_rows() -> None:
    """Simple kinds print their counts and defaults as kubectl shows them."""
    assert NAMESPACE.cells({"metadata": meta("team-a"), "status": {"phase": "Terminating"}}, NOW) == [
        "team-a",
        "Terminating",
        "2d",
    ]
    assert NAMESPACE.cells({"metadata": meta("team-b")}, NOW)[1] == "Active"
    config_map = {"metadata": meta("cfg"), "data": {"a": "1", "b": "2"}, "binaryData": {"c": "AA=="}}
    assert CONFIG_MAP.cells(config_map, NOW) == ["cfg", 3, "2d"]
    secret = {"metadata": meta("tls"), "type": "kubernetes.io/tls", "data": {"tls.crt": "", "tls.key": ""}}
    assert SECRET.cells(secret, NOW) == ["tls", "kubernetes.io/tls", 2, "2d"]
    assert SECRET.cells({"metadata": meta("s")}, NOW)[1:3] == ["Opaque", 0]
    assert SERVICE_ACCOUNT.cells({"metadata": meta("default")}, NOW) == ["default", 0, "2d"]


def test_resource_quota_splits_requests_and_limits_with_canonical_quantities() -> None:
    """REQUEST and LIMIT list `resource: used/hard` sorted by name, limits.* in the LIMIT column."""
    quota = {
        "metadata": meta("compute"),
        "status": {
            "hard": {"requests.cpu": "1", "requests.memory": "1024Mi", "limits.cpu": "2", "pods": "10"},
            "used": {"requests.cpu": "0.5", "requests.memory": "512Mi", "limits.cpu": "1"},
        },
    }
    assert RESOURCE_QUOTA.cells(quota, NOW) == [
        "compute",
        "pods: 0/10, requests.cpu: 500m/1, requests.memory: 512Mi/1Gi",
        "limits.cpu: 1/2",
        "2d",
    ]


def test_replication_controller_and_pod_template_rows() -> None:
    """RCs print replica counts, containers and a map selector; PodTemplates print pod labels and no age."""
    template = {
        "metadata": {"labels": {"app": "web"}},
        "spec": {
            "containers": [{"name": "web", "image": "nginx:1.27"}, {"name": "log", "image": "fluent-bit"}]
        },
    }
    controller = {
        "metadata": meta("web"),
        "spec": {"replicas": 3, "selector": {"app": "web"}, "template": template},
        "status": {"replicas": 3, "readyReplicas": 2},
    }
    assert REPLICATION_CONTROLLER.cells(controller, NOW) == [
        "web",
        3,
        3,
        2,
        "2d",
        "web,log",
        "nginx:1.27,fluent-bit",
        "app=web",
    ]
    assert POD_TEMPLATE.cells({"metadata": meta("t"), "template": template}, NOW) == [
        "t",
        "web,log",
        "nginx:1.27,fluent-bit",
        "app=web",
    ]
