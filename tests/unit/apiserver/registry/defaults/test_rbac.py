"""Role bindings get kube's defaults: RBAC's API group where a reference leaves it out."""

from __future__ import annotations

from flotilla.api.scheme import GroupVersionKind
from tests.unit.apiserver.registry.defaults.defaulting import defaulted

ROLE_BINDING = GroupVersionKind("rbac.authorization.k8s.io", "v1", "RoleBinding")


def test_bindings_get_rbac_api_groups() -> None:
    """roleRef and user/group subjects get RBAC's group; service accounts the core group."""
    binding = {
        "roleRef": {"kind": "Role", "name": "r"},
        "subjects": [
            {"kind": "User", "name": "u"},
            {"kind": "ServiceAccount", "name": "s", "namespace": "n"},
        ],
    }
    result = defaulted(ROLE_BINDING, binding)
    assert result["roleRef"]["apiGroup"] == "rbac.authorization.k8s.io"
    assert [subject["apiGroup"] for subject in result["subjects"]] == ["rbac.authorization.k8s.io", ""]
