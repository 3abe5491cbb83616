"""Bootstrap tokens: short-lived shared secrets that let a new member (kubeadm join, an agent) in.

A token `<id>.<secret>` (6 and 16 characters of `[a-z0-9]`) is stored as the Secret
`kube-system/bootstrap-token-<id>` of type `bootstrap.kubernetes.io/token`, with data `token-id`,
`token-secret`, optional `expiration` (RFC 3339), `usage-bootstrap-authentication`,
`usage-bootstrap-signing`, `auth-extra-groups` and `description`. With the authentication usage it
authenticates as `system:bootstrap:<id>` in `system:bootstrappers` plus its extra groups (each must
be `system:bootstrappers:…`) until it expires or its Secret is deleted. Like kube, a token that
fails any check is simply not recognised; the bearer union then answers 401.
"""

from __future__ import annotations

import base64
import binascii
import hmac
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import structlog

from flotilla.api.times import timestamp
from flotilla.apiserver.authn.bearer import TokenResult
from flotilla.apiserver.authn.lookup import SECRET, ObjectLookup
from flotilla.apiserver.users import UserInfo

log = structlog.get_logger("flotilla.apiserver.authn")

TOKEN_PATTERN = re.compile(r"([a-z0-9]{6})\.([a-z0-9]{16})")
TOKEN_ID_PATTERN = re.compile(r"[a-z0-9]{6}")
TOKEN_SECRET_PATTERN = re.compile(r"[a-z0-9]{16}")
EXTRA_GROUP_PATTERN = re.compile(r"system:bootstrappers:[a-z0-9:-]{0,255}[a-z0-9]")
# Names of the Secret that holds a token, not secrets themselves.
SECRET_NAMESPACE = "kube-system"  # noqa: S105
SECRET_NAME_PREFIX = "bootstrap-token-"  # noqa: S105
SECRET_TYPE = "bootstrap.kubernetes.io/token"  # noqa: S105
BOOTSTRAPPERS_GROUP = "system:bootstrappers"
USERNAME_PREFIX = "system:bootstrap:"
USAGE_AUTHENTICATION = "authentication"
USAGE_SIGNING = "signing"
_NEVER = datetime.min.replace(tzinfo=UTC)


@dataclass(frozen=True, slots=True)
class BootstrapToken:
    token_id: str
    token_secret: str
    expiration: datetime | None
    """None: the token never expires; an unreadable expiration counts as already past, as in kube."""
    usages: frozenset[str]
    extra_groups: tuple[str, ...]

    def expired(self, now: datetime) -> bool:
        return self.expiration is not None and now > self.expiration

    def groups_valid(self) -> bool:
        return all(EXTRA_GROUP_PATTERN.fullmatch(group) for group in self.extra_groups)

    def user(self) -> UserInfo:
        return UserInfo(USERNAME_PREFIX + self.token_id, (BOOTSTRAPPERS_GROUP, *self.extra_groups))


def secret_name(token_id: str) -> str:
    return SECRET_NAME_PREFIX + token_id


def is_bootstrap_secret_key(namespace: str, name: str) -> bool:
    return namespace == SECRET_NAMESPACE and name.startswith(SECRET_NAME_PREFIX)


def secret_data(secret: Mapping[str, Any], key: str) -> str:
    """One value of a Secret's (base64) data as text; "" when absent or unreadable."""
    value = (secret.get("data") or {}).get(key)
    if not isinstance(value, str):
        return ""
    try:
        return base64.b64decode(value, validate=True).decode()
    except (binascii.Error, UnicodeDecodeError):
        return ""


def token_from_secret(secret: Mapping[str, Any]) -> BootstrapToken | None:
    """The bootstrap token a Secret holds, or None when it is not a well-formed bootstrap-token Secret."""
    meta = secret.get("metadata") or {}
    if secret.get("type") != SECRET_TYPE or meta.get("namespace") != SECRET_NAMESPACE:
        return None
    token_id, token_secret = secret_data(secret, "token-id"), secret_data(secret, "token-secret")
    if not TOKEN_ID_PATTERN.fullmatch(token_id) or not TOKEN_SECRET_PATTERN.fullmatch(token_secret):
        return None
    if meta.get("name") != secret_name(token_id):
        return None
    expiration: datetime | None = None
    raw_expiration = secret_data(secret, "expiration")
    if raw_expiration or "expiration" in (secret.get("data") or {}):
        parsed = timestamp(raw_expiration)
        expiration = parsed if parsed is not None and parsed.tzinfo is not None else _NEVER
    usages = frozenset(
        usage
        for usage in (USAGE_AUTHENTICATION, USAGE_SIGNING)
        if secret_data(secret, f"usage-bootstrap-{usage}") == "true"
    )
    extra = secret_data(secret, "auth-extra-groups")
    groups = tuple(g.strip() for g in extra.split(",") if g.strip()) if extra else ()
    return BootstrapToken(token_id, token_secret, expiration, usages, groups)


class BootstrapTokenAuthenticator:
    """Accepts `<id>.<secret>` tokens whose Secret exists, matches, has not expired and allows
    authentication."""

    def __init__(self, lookup: ObjectLookup, clock: Callable[[], datetime]) -> None:
        self.lookup = lookup
        self.clock = clock

    def authenticate_token(self, token: str, audiences: Sequence[str]) -> TokenResult | None:
        match = TOKEN_PATTERN.fullmatch(token)
        if match is None:
            return None
        token_id, token_secret = match.groups()
        secret = self.lookup(SECRET, SECRET_NAMESPACE, secret_name(token_id))
        reason = self._refusal(secret, token_id, token_secret)
        if reason:
            log.debug("authn.bootstrap_token.refused", token_id=token_id, reason=reason)
            return None
        assert secret is not None
        parsed = token_from_secret(secret)
        assert parsed is not None
        return TokenResult(parsed.user(), tuple(audiences))

    def _refusal(self, secret: Mapping[str, Any] | None, token_id: str, token_secret: str) -> str:
        """Why the token is not accepted ("" when it is)."""
        if secret is None:
            return "no Secret of that name"
        if (secret.get("metadata") or {}).get("deletionTimestamp"):
            return "the Secret is being deleted"
        parsed = token_from_secret(secret)
        if parsed is None or parsed.token_id != token_id:
            return "the Secret is not a valid bootstrap token"
        if not hmac.compare_digest(parsed.token_secret.encode(), token_secret.encode()):
            return "the token secret does not match"
        if parsed.expired(self.clock()):
            return "the token has expired"
        if USAGE_AUTHENTICATION not in parsed.usages:
            return "the token may not be used for authentication"
        if not parsed.groups_valid():
            return "auth-extra-groups holds a group outside system:bootstrappers:"
        return ""
