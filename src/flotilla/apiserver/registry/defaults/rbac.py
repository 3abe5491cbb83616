"""Defaults of rbac.authorization.k8s.io/v1 bindings, as kube-apiserver sets them.

RoleBinding and ClusterRoleBinding: `roleRef.apiGroup` and user and group subjects' `apiGroup` are
RBAC's; a ServiceAccount subject's is the core group.
"""

from __future__ import annotations

from typing import Any

from flotilla.apiserver.registry.validation import fields

RBAC_GROUP = "rbac.authorization.k8s.io"


def default_role_binding(binding: dict[str, Any]) -> None:
    role_ref = fields.ensure_mapping(binding, "roleRef")
    if not role_ref.get("apiGroup"):
        role_ref["apiGroup"] = RBAC_GROUP
    for subject in fields.objects(binding, "subjects"):
        if not subject.get("apiGroup"):
            kind = fields.text(subject, "kind")
            if kind == "ServiceAccount":
                subject["apiGroup"] = ""
            elif kind in ("User", "Group"):
                subject["apiGroup"] = RBAC_GROUP
