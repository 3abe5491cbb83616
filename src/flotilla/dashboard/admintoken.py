"""A sign-in token for the local hub's administrator: `flotilla dashboard token`.

The dashboard has no credential of its own, so someone must hand the browser a token. For a local
hub (`flotilla up`) the helper does what an operator would do with kubectl: a ServiceAccount
`admin` in namespace `flotilla-dashboard`, bound to `cluster-admin`, and a TokenRequest for it
(`kubectl create token`). It runs with the kubeconfig's own (admin) credentials, once, and prints
the token; the dashboard never uses those credentials for a user's request.
"""

from __future__ import annotations

import contextlib

from flotilla.api.scheme import GroupVersionKind
from flotilla.client import AlreadyExists, Client

NAMESPACE = "flotilla-dashboard"
SERVICE_ACCOUNT = "admin"
CLUSTER_ROLE_BINDING = "flotilla-dashboard-admin"
DEFAULT_EXPIRATION_SECONDS = 24 * 3600

NAMESPACE_KIND = GroupVersionKind("", "v1", "Namespace")


async def admin_token(hub: Client, expiration_seconds: int = DEFAULT_EXPIRATION_SECONDS) -> str:
    """Ensure the dashboard's admin ServiceAccount and its cluster-admin binding; a fresh token for it."""
    for obj in (
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NAMESPACE}},
        {
            "apiVersion": "v1",
            "kind": "ServiceAccount",
            "metadata": {"name": SERVICE_ACCOUNT, "namespace": NAMESPACE},
        },
        {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "ClusterRoleBinding",
            "metadata": {"name": CLUSTER_ROLE_BINDING},
            "roleRef": {
                "apiGroup": "rbac.authorization.k8s.io",
                "kind": "ClusterRole",
                "name": "cluster-admin",
            },
            "subjects": [{"kind": "ServiceAccount", "name": SERVICE_ACCOUNT, "namespace": NAMESPACE}],
        },
    ):
        with contextlib.suppress(AlreadyExists):
            await hub.create(obj)
    request = {
        "apiVersion": "authentication.k8s.io/v1",
        "kind": "TokenRequest",
        "spec": {"expirationSeconds": expiration_seconds},
    }
    path = f"/api/v1/namespaces/{NAMESPACE}/serviceaccounts/{SERVICE_ACCOUNT}/token"
    answer = await hub.request("POST", path, body=request)
    return str(((answer or {}).get("status") or {}).get("token", ""))
