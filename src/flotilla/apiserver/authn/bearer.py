"""Bearer tokens: `Authorization: Bearer <token>` checked against every kind of token the server knows.

Like kube-apiserver, the token authenticators form a union: each one either recognises the token
(a user), does not recognise it (None: someone else's kind), or recognises it and finds it invalid
(`InvalidToken`: expired, wrong audience, deleted ServiceAccount…). The first user wins; when none
accepts the token the request is 401 Unauthorized — a token that is present but bad never falls
back to anonymous. A header that is empty or uses another scheme (`Basic …`) is not a bearer token
at all, so the request goes on without credentials, as kube does.

The same union answers TokenReview (`authenticate_token` with the review's audiences), so the
review API and the request path can never disagree about a token.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import structlog
from aiohttp import web

from flotilla.apiserver import errors
from flotilla.apiserver.requestwarnings import add_warning
from flotilla.apiserver.users import UserInfo, with_authenticated_group

log = structlog.get_logger("flotilla.apiserver.authn")

EXTRA_SPACE_WARNING = (
    "the provided Authorization header contains extra space before the bearer token, and is ignored"
)


class InvalidToken(Exception):
    """A token of this authenticator's kind that must not be accepted; the message says why."""


@dataclass(frozen=True, slots=True)
class TokenResult:
    user: UserInfo
    audiences: tuple[str, ...] = ()
    """The audiences the token is valid for among those asked (TokenReview's `status.audiences`)."""


class TokenAuthenticator(Protocol):
    def authenticate_token(self, token: str, audiences: Sequence[str]) -> TokenResult | None:
        """The token's user; None if the token is not of this kind; raises InvalidToken if it is bad.

        `audiences` are those the caller expects the token for; empty means the API server's own.
        """
        ...


class AudienceAgnostic:
    """A token kind without audiences (static, bootstrap) is good only for the API server itself:
    asked for other audiences it does not recognise the token, as kube's wrapper does."""

    def __init__(self, inner: TokenAuthenticator, api_audiences: Sequence[str]) -> None:
        self.inner = inner
        self.api_audiences = tuple(api_audiences)

    def authenticate_token(self, token: str, audiences: Sequence[str]) -> TokenResult | None:
        wanted = tuple(audiences) or self.api_audiences
        valid = tuple(a for a in wanted if a in self.api_audiences)
        if not valid:
            return None
        result = self.inner.authenticate_token(token, valid)
        return TokenResult(result.user, valid) if result is not None else None


class TokenAuthenticators:
    """The union of token authenticators, in order; none accepting the token makes it invalid."""

    def __init__(self, authenticators: Sequence[TokenAuthenticator]) -> None:
        self.authenticators = tuple(authenticators)

    def authenticate_token(self, token: str, audiences: Sequence[str] = ()) -> TokenResult:
        reasons: list[str] = []
        for authenticator in self.authenticators:
            try:
                result = authenticator.authenticate_token(token, audiences)
            except InvalidToken as exc:
                reasons.append(str(exc))
                continue
            if result is not None:
                return TokenResult(with_authenticated_group(result.user), result.audiences)
        raise InvalidToken(", ".join(reasons) if reasons else "invalid bearer token")


def bearer_token(header: str) -> tuple[str, bool]:
    """The token of an Authorization header ("" when there is none) and whether it was ignored for
    an extra space after `Bearer`; the scheme is case-insensitive, anything after a second space is
    dropped, as kube's parser does."""
    value = header.strip()
    if not value:
        return "", False
    parts = value.split(" ", 2)
    if len(parts) < 2 or parts[0].lower() != "bearer":
        return "", False
    if not parts[1]:
        return "", len(parts) == 3
    return parts[1], False


class BearerTokenAuthenticator:
    """The request authenticator for bearer tokens (an `authn.Authenticator`)."""

    def __init__(self, tokens: TokenAuthenticators) -> None:
        self.tokens = tokens

    async def authenticate(self, request: web.Request) -> UserInfo | None:
        token, extra_space = bearer_token(request.headers.get("Authorization", ""))
        if extra_space:
            add_warning(request, EXTRA_SPACE_WARNING)
        if not token:
            return None
        try:
            return self.tokens.authenticate_token(token).user
        except InvalidToken as exc:
            log.info("authn.bearer_token.refused", reason=str(exc))
            raise errors.Unauthorized("Unauthorized") from exc
