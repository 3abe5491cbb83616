"""RBAC binding tables: `NAME ROLE AGE`, plus wide `USERS GROUPS SERVICEACCOUNTS`.

Roles and ClusterRoles have no printer in Kubernetes; they get the default `NAME CREATED AT` table.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from flotilla.api.duration import since
from flotilla.apiserver.registry.tables.descriptions import swagger_doc
from flotilla.apiserver.registry.tables.model import AGE, NAME, Cell, Column, Printer, wide
from flotilla.apiserver.registry.tables.objects import created, name, objects, text


def subjects(binding: dict[str, Any]) -> tuple[str, str, str]:
    """The USERS, GROUPS and SERVICEACCOUNTS cells; service accounts as `namespace/name`."""
    users, groups, service_accounts = [], [], []
    for subject in objects(binding, "subjects"):
        kind = text(subject, "kind")
        if kind == "ServiceAccount":
            service_accounts.append(f"{text(subject, 'namespace')}/{text(subject, 'name')}")
        elif kind == "User":
            users.append(text(subject, "name"))
        elif kind == "Group":
            groups.append(text(subject, "name"))
    return ", ".join(users), ", ".join(groups), ", ".join(service_accounts)


def _binding_row(binding: dict[str, Any], now: datetime) -> list[Cell]:
    users, groups, service_accounts = subjects(binding)
    role = f"{text(binding, 'roleRef', 'kind')}/{text(binding, 'roleRef', 'name')}"
    return [name(binding), role, since(created(binding), now), users, groups, service_accounts]


def _binding_printer(kind: str, role_doc: str) -> Printer:
    return Printer(
        (
            NAME,
            Column("Role", "string", description=swagger_doc(role_doc)),
            AGE,
            wide("Users", f"Users in the {kind}"),
            wide("Groups", f"Groups in the {kind}"),
            wide("ServiceAccounts", f"ServiceAccounts in the {kind}"),
        ),
        _binding_row,
    )


ROLE_BINDING = _binding_printer("roleBinding", "RoleBinding.roleRef")
CLUSTER_ROLE_BINDING = _binding_printer("clusterRoleBinding", "ClusterRoleBinding.roleRef")
