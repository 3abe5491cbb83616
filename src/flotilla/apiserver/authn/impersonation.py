"""Impersonation: a user allowed to may act as another (`kubectl --as`, `--as-group`, `--as-uid`).

kube-apiserver's impersonation filter, run right after authentication: the `Impersonate-User`,
`Impersonate-Group` (repeatable), `Impersonate-Uid` and `Impersonate-Extra-<key>` headers name who to
act as, and the requester must be authorized to `impersonate` each of them — `users`,
`serviceaccounts` (a `system:serviceaccount:<namespace>:<name>` user), `groups`, `uids` and
`userextras/<key>` — or the request is 403 before anything else happens. The request then runs as
that user: authorization, admission, field managers and audit all see the impersonated user.

The user acted as gets `system:authenticated` unless it is `system:anonymous` (which gets
`system:unauthenticated`) or the groups asked for already hold either; a service account asked for
without groups gets its own two. Groups, extra or a uid without a user to act as is refused: kube
answers 500 there, Flotilla 400, since the request is what is wrong.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import unquote

from multidict import CIMultiDictProxy

from flotilla.apiserver import errors
from flotilla.apiserver.authz import AuthorizationAttributes, Authorizer
from flotilla.apiserver.users import UserInfo

USER_HEADER = "Impersonate-User"
GROUP_HEADER = "Impersonate-Group"
UID_HEADER = "Impersonate-Uid"
EXTRA_PREFIX = "impersonate-extra-"
AUTHENTICATION_GROUP = "authentication.k8s.io"
ANONYMOUS_USER = "system:anonymous"
AUTHENTICATED = "system:authenticated"
UNAUTHENTICATED = "system:unauthenticated"
SERVICE_ACCOUNT_PREFIX = "system:serviceaccount:"


@dataclass(frozen=True, slots=True)
class ImpersonationRequest:
    """One thing the requester asks to act as, as the authorization check sees it."""

    resource: str
    name: str
    group: str = ""
    namespace: str = ""
    subresource: str = ""

    def attributes(self, requester: UserInfo) -> AuthorizationAttributes:
        return AuthorizationAttributes(
            requester,
            "impersonate",
            True,
            self.group,
            "",
            self.resource,
            self.subresource,
            self.namespace,
            self.name,
        )


def asks_to_impersonate(headers: CIMultiDictProxy[str]) -> bool:
    """Whether a request carries any impersonation header (most carry none: a cheap test first)."""
    if USER_HEADER in headers or GROUP_HEADER in headers or UID_HEADER in headers:
        return True
    return any(name.lower().startswith(EXTRA_PREFIX) for name in headers)


def impersonation_requests(headers: CIMultiDictProxy[str]) -> list[ImpersonationRequest]:
    """What the headers ask to act as; 400 when they ask for groups, extra or a uid but no user."""
    wanted: list[ImpersonationRequest] = []
    username = _text(headers.get(USER_HEADER, ""))
    if username:
        service_account = _service_account(username)
        if service_account is not None:
            namespace, name = service_account
            wanted.append(ImpersonationRequest("serviceaccounts", name, namespace=namespace))
        else:
            wanted.append(ImpersonationRequest("users", username))
    others: list[str] = []
    for group in headers.getall(GROUP_HEADER, []):
        wanted.append(ImpersonationRequest("groups", _text(group)))
        others.append(f"group {_shown(group)}")
    for header, value in headers.items():
        if header.lower().startswith(EXTRA_PREFIX):
            key = unquote(header[len(EXTRA_PREFIX) :].lower())
            wanted.append(
                ImpersonationRequest("userextras", _text(value), AUTHENTICATION_GROUP, subresource=_text(key))
            )
            others.append(f"extra {_shown(key)}")
    uid = _text(headers.get(UID_HEADER, ""))
    if uid:
        wanted.append(ImpersonationRequest("uids", uid, AUTHENTICATION_GROUP))
        others.append(f"uid {_shown(uid)}")
    if others and not username:
        raise errors.BadRequest(
            f"requested impersonation of {', '.join(others)} without impersonating a user: set the "
            f"{USER_HEADER} header to the user to act as (kubectl --as)"
        )
    return wanted


def impersonate(
    headers: CIMultiDictProxy[str], requester: UserInfo, authorizer: Authorizer
) -> tuple[UserInfo, AuthorizationAttributes | None]:
    """The user a request acts as, and the attributes of the first impersonation it was denied
    (the caller words the 403, as it words every other); `requester` when it asks for none."""
    wanted = impersonation_requests(headers)
    if not wanted:
        return requester, None
    for request in wanted:
        attributes = request.attributes(requester)
        if not authorizer.authorize(attributes).allowed:
            return requester, attributes
    return acting_as(wanted, groups_given=GROUP_HEADER in headers), None


def acting_as(wanted: list[ImpersonationRequest], *, groups_given: bool) -> UserInfo:
    """The user the allowed requests describe, with the groups kube adds."""
    username, uid = "", ""
    groups: list[str] = []
    extra: dict[str, list[str]] = {}
    for request in wanted:
        if request.resource == "serviceaccounts":
            username = f"{SERVICE_ACCOUNT_PREFIX}{request.namespace}:{request.name}"
            if not groups_given:
                groups = ["system:serviceaccounts", f"system:serviceaccounts:{request.namespace}"]
        elif request.resource == "users":
            username = request.name
        elif request.resource == "groups":
            groups.append(request.name)
        elif request.resource == "userextras":
            extra.setdefault(request.subresource, []).append(request.name)
        elif request.resource == "uids":
            uid = request.name
    if username != ANONYMOUS_USER:
        if AUTHENTICATED not in groups and UNAUTHENTICATED not in groups:
            groups.append(AUTHENTICATED)
    elif UNAUTHENTICATED not in groups:
        groups.append(UNAUTHENTICATED)
    return UserInfo(username, tuple(groups), uid, extra)


def _service_account(username: str) -> tuple[str, str] | None:
    if not username.startswith(SERVICE_ACCOUNT_PREFIX):
        return None
    namespace, separator, name = username[len(SERVICE_ACCOUNT_PREFIX) :].partition(":")
    if not separator or not namespace or not name or ":" in name:
        return None
    return namespace, name


def _text(value: str) -> str:
    """Header text as a string a JSON body can hold: bytes that were not UTF-8 read as U+FFFD."""
    if value.isascii():
        return value
    return value.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def _shown(value: str) -> str:
    return '"' + _text(value).replace("\\", "\\\\").replace('"', '\\"') + '"'
