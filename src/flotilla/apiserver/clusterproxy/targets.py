"""Where a proxied request goes: a Push member's endpoint with its credential, or a Pull member's tunnel.

A Push member is dialled at `spec.apiEndpoint`, trusting the CA of the Secret at `spec.secretRef`.
The credential is Karmada's: the `token` of the Secret at `spec.impersonatorSecretRef` (a member
identity allowed to impersonate); a Cluster without one is reached with the credential at
`spec.secretRef` (what `flotilla join` stores), which must then be allowed to impersonate. A Pull
member is reached only through its agent's tunnel.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass, replace
from typing import Any

from flotilla.api.karmada.constants import CLUSTER, CLUSTERS, ClusterSyncMode
from flotilla.apiserver import errors
from flotilla.apiserver.context import APIContext
from flotilla.client.kubeconfig import ClusterConfig
from flotilla.runtime.members import SECRET, MemberCredentialsError, member_config


@dataclass(frozen=True, slots=True)
class DirectTarget:
    cluster: str
    config: ClusterConfig


@dataclass(frozen=True, slots=True)
class TunnelTarget:
    cluster: str


def _secret(ctx: APIContext, reference: dict[str, Any] | None) -> dict[str, Any] | None:
    if not reference:
        return None
    found = ctx.lookup(SECRET, str(reference.get("namespace") or ""), str(reference.get("name") or ""))
    return dict(found) if found is not None else None


def proxy_target(ctx: APIContext, name: str) -> DirectTarget | TunnelTarget:
    """The route to member `name`; 404 when no such Cluster, 503 when it cannot be reached as configured."""
    cluster = ctx.lookup(CLUSTER, "", name)
    if cluster is None:
        raise errors.not_found(CLUSTERS, name)
    spec = cluster.get("spec") or {}
    if spec.get("syncMode") == ClusterSyncMode.PULL:
        return TunnelTarget(name)
    try:
        config = member_config(dict(cluster), _secret(ctx, spec.get("secretRef")))
    except MemberCredentialsError as exc:
        raise errors.ServiceUnavailable(f"cannot proxy to {exc}") from exc
    impersonator_ref = spec.get("impersonatorSecretRef")
    if impersonator_ref:
        impersonator = _secret(ctx, impersonator_ref)
        raw = ((impersonator or {}).get("data") or {}).get("token")
        if not raw:
            raise errors.ServiceUnavailable(
                f"cannot proxy to cluster {name}: the impersonator secret "
                f"{impersonator_ref.get('namespace', '')}/{impersonator_ref.get('name', '')} has no token"
            )
        token = base64.b64decode(raw).decode()
        config = replace(config, token=token, client_cert_pem=None, client_key_pem=None)
    return DirectTarget(name, config)
