"""Authentication: who sent a request (a verified client certificate, or a bearer token).

`Authenticator.authenticate` returns the request's user, None when it carries no credentials at all
(it is then anonymous), and raises Unauthorized for credentials that are present but invalid — a bad
token never falls back to anonymous, as in kube-apiserver.
"""

from __future__ import annotations

from typing import Any, Protocol

from aiohttp import web

from flotilla.apiserver.pki.clusterbinding import cluster_uid_extra
from flotilla.apiserver.users import UserInfo, with_authenticated_group


class Authenticator(Protocol):
    async def authenticate(self, request: web.Request) -> UserInfo | None: ...


class CertificateAuthenticator:
    """The user of a verified TLS client certificate: CN is the name, each O a group, and the
    Cluster the certificate is bound to (`clusterbinding.py`) an extra.

    The handshake verified the certificate; reading its subject back as a dict costs more than the
    rest of authentication, on every request of a kept-alive connection. So the user is remembered
    per certificate (its DER bytes, cheap to get), for the few clients a server has.
    """

    MAX_REMEMBERED = 1024

    def __init__(self) -> None:
        self._users: dict[bytes, UserInfo | None] = {}

    async def authenticate(self, request: web.Request) -> UserInfo | None:
        transport = request.transport
        if transport is None:
            return None
        ssl_object = transport.get_extra_info("ssl_object")
        der = ssl_object.getpeercert(binary_form=True) if ssl_object is not None else None
        if not der:
            return None
        if der in self._users:
            return self._users[der]
        user = _user_of(transport.get_extra_info("peercert"))
        if user is not None:
            extra = cluster_uid_extra(der)
            if extra:
                user = UserInfo(user.username, user.groups, user.uid, {**user.extra, **extra})
        if len(self._users) >= self.MAX_REMEMBERED:
            self._users.clear()
        self._users[der] = user
        return user


def _user_of(cert: dict[str, Any] | None) -> UserInfo | None:
    name = ""
    groups: list[str] = []
    for rdn in (cert or {}).get("subject", ()):
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
