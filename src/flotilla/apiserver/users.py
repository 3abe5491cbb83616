"""Who sends a request: the user as authentication found it (kube's `user.Info`), and the well-known
groups authorization treats specially.

Every layer of the API server speaks of users — authentication makes them, authorization and
admission judge them, the write pipeline records them as field managers and CSR requesters — so they
live below all of them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

MASTERS_GROUP = "system:masters"
"""The cluster's super-users: allowed everything, never limited."""
AUTHENTICATED_GROUP = "system:authenticated"
UNAUTHENTICATED_GROUP = "system:unauthenticated"


@dataclass(frozen=True, slots=True)
class UserInfo:
    username: str
    groups: tuple[str, ...] = ()
    uid: str = ""
    extra: dict[str, list[str]] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        body: dict[str, Any] = {"username": self.username, "groups": list(self.groups)}
        if self.uid:
            body["uid"] = self.uid
        if self.extra:
            body["extra"] = self.extra
        return body


SYSTEM_USER = UserInfo("system:apiserver", (MASTERS_GROUP, AUTHENTICATED_GROUP))
"""The API server itself, acting on its own (in-process controllers, admission of its own writes)."""


def with_authenticated_group(user: UserInfo) -> UserInfo:
    """`user`, in `system:authenticated` as every authenticated user is."""
    if AUTHENTICATED_GROUP in user.groups:
        return user
    return UserInfo(user.username, (*user.groups, AUTHENTICATED_GROUP), user.uid, user.extra)


ANONYMOUS = UserInfo("system:anonymous", (UNAUTHENTICATED_GROUP,))
"""A request without credentials."""


USER_KEY = web.RequestKey("flotilla.request.user", UserInfo)
"""Where the API middleware keeps the user a request was authenticated as (or impersonates), for
admission, field managers and audit."""
