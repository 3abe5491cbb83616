from datetime import UTC, datetime

from flotilla.apiserver.registry.tables.rbac import CLUSTER_ROLE_BINDING, ROLE_BINDING

NOW = datetime(2025, 3, 1, 12, 0, 0, tzinfo=UTC)


def test_role_binding_row_splits_subjects_by_kind() -> None:
    """ROLE is `Kind/name`; users, groups and `namespace/name` service accounts get wide columns."""
    binding = {
        "metadata": {
            "name": "read-pods",
            "namespace": "default",
            "creationTimestamp": "2025-03-01T11:00:00Z",
        },
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "pod-reader"},
        "subjects": [
            {"kind": "User", "name": "jane"},
            {"kind": "Group", "name": "devs"},
            {"kind": "ServiceAccount", "name": "ci", "namespace": "tools"},
            {"kind": "User", "name": "joe"},
        ],
    }
    assert ROLE_BINDING.cells(binding, NOW) == [
        "read-pods",
        "Role/pod-reader",
        "60m",
        "jane, joe",
        "devs",
        "tools/ci",
    ]


def test_cluster_role_binding_without_subjects() -> None:
    """A binding without subjects has empty subject columns, and its descriptions name the cluster kind."""
    binding = {"metadata": {"name": "admin"}, "roleRef": {"kind": "ClusterRole", "name": "cluster-admin"}}
    assert CLUSTER_ROLE_BINDING.cells(binding, NOW) == [
        "admin",
        "ClusterRole/cluster-admin",
        "<unknown>",
        "",
        "",
        "",
    ]
    assert CLUSTER_ROLE_BINDING.columns[3].description == "Users in the clusterRoleBinding"
