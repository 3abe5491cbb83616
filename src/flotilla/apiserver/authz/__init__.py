"""Authorization: may this user do this verb on this resource (or non-resource path)?

The middleware builds `AuthorizationAttributes` from every request and asks the server's
`Authorizer`; a denial is 403 Forbidden (401 for anonymous requests) with kube-apiserver's wording.

The authorizer is RBAC (`rbac.py`, rules matched by `rules.py`), fed by the default policy every
server creates at start (`bootstrappolicy.py`, `reconcile.py`) and by the ClusterRole aggregation
controller (`aggregation.py`). Writes of roles and bindings pass escalation prevention
(`escalation.py`), and clients ask questions through the review APIs (`reviews.py`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from flotilla.apiserver.users import UserInfo


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
