"""Authentication: who sent a request (a verified client certificate, or a bearer token).

`Authenticator.authenticate` returns the request's user, None when it carries no credentials at all
(it is then anonymous), and raises Unauthorized for credentials that are present but invalid — a bad
token never falls back to anonymous, as in kube-apiserver.
"""

from __future__ import annotations

from typing import Protocol

from aiohttp import web

from flotilla.apiserver.admission.attributes import UserInfo

ANONYMOUS = UserInfo("system:anonymous", ("system:unauthenticated",))
AUTHENTICATED_GROUP = "system:authenticated"


class Authenticator(Protocol):
    async def authenticate(self, request: web.Request) -> UserInfo | None: ...


def with_authenticated_group(user: UserInfo) -> UserInfo:
    if AUTHENTICATED_GROUP in user.groups:
        return user
    return UserInfo(user.username, (*user.groups, AUTHENTICATED_GROUP), user.uid, user.extra)


class CertificateAuthenticator:
    """The user of a verified TLS client certificate: CN is the name, each O a group."""

    async def authenticate(self, request: web.Request) -> UserInfo | None:
        transport = request.transport
        cert = transport.get_extra_info("peercert") if transport is not None else None
        if not cert:
            return None
        name = ""
        groups: list[str] = []
        for rdn in cert.get("subject", ()):
            for key, value in rdn:
                if key == "commonName":
                    name = value
                elif key == "organizationName":
                    groups.append(value)
        if not name:
            return None
        return with_authenticated_group(UserInfo(name, tuple(groups)))


class ChainAuthenticator:
    """The first authenticator that recognises the request's credentials decides."""

    def __init__(self, *authenticators: Authenticator) -> None:
        self.authenticators = list(authenticators)

    async def authenticate(self, request: web.Request) -> UserInfo | None:
        for authenticator in self.authenticators:
            user = await authenticator.authenticate(request)
            if user is not None:
                return user
        return None
