"""Authorization: may this user do this verb on this resource (or non-resource path)?

The middleware builds `AuthorizationAttributes` from every request and asks the server's
`Authorizer`; a denial is 403 Forbidden (401 for anonymous requests) with kube-apiserver's wording.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from flotilla.apiserver.admission.attributes import UserInfo

MASTERS_GROUP = "system:masters"


@dataclass(frozen=True, slots=True)
class AuthorizationAttributes:
    user: UserInfo
    verb: str
    resource_request: bool
    group: str = ""
    version: str = ""
    resource: str = ""
    subresource: str = ""
    namespace: str = ""
    name: str = ""
    path: str = ""


@dataclass(frozen=True, slots=True)
class Decision:
    allowed: bool
    reason: str = ""


class Authorizer(Protocol):
    def authorize(self, attributes: AuthorizationAttributes) -> Decision: ...


PUBLIC_PATHS = frozenset({"/healthz", "/livez", "/readyz", "/version"})


class AuthenticatedAuthorizer:
    """Until RBAC is configured: every authenticated user may do anything; anonymous users only
    read health and version endpoints."""

    def authorize(self, attributes: AuthorizationAttributes) -> Decision:
        if "system:authenticated" in attributes.user.groups:
            return Decision(True)
        if not attributes.resource_request and attributes.verb == "get":
            path = attributes.path
            if path in PUBLIC_PATHS or path.startswith(("/healthz/", "/livez/", "/readyz/")):
                return Decision(True)
        return Decision(False, "anonymous requests may only read health endpoints")
