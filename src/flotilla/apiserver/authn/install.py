"""Kube's authentication union for one API server: client certificate, then bearer tokens.

`token_authentication` builds the chain — client certificate first, then bearer tokens (static
file, ServiceAccount JWTs, bootstrap tokens) — over an `ObjectLookup` of the server's objects, and
returns with it the token union (TokenReview answers with it) and the ServiceAccount token issuer
(TokenRequest). The server puts them on its context.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from flotilla.apiserver.authn import Authenticator, CertificateAuthenticator, ChainAuthenticator
from flotilla.apiserver.authn.bearer import (
    AudienceAgnostic,
    BearerTokenAuthenticator,
    TokenAuthenticator,
    TokenAuthenticators,
)
from flotilla.apiserver.authn.bootstrap import BootstrapTokenAuthenticator
from flotilla.apiserver.authn.lookup import ObjectLookup
from flotilla.apiserver.authn.serviceaccounts import (
    API_AUDIENCES,
    ServiceAccountKey,
    ServiceAccountTokenAuthenticator,
    TokenIssuer,
)
from flotilla.apiserver.authn.tokens import StaticTokenAuthenticator, parse_token_file
from flotilla.apiserver.users import UserInfo


def read_token_file(path: Path) -> dict[str, UserInfo]:
    """The users of a `--token-auth-file` (raises TokenFileError or OSError)."""
    return parse_token_file(path.read_text(encoding="utf-8"), str(path))


@dataclass(frozen=True, slots=True)
class TokenAuthentication:
    authenticator: Authenticator
    """Every request's: the client certificate, else a bearer token."""
    tokens: TokenAuthenticators
    """The bearer-token union alone (TokenReview)."""
    issuer: TokenIssuer
    """Signs ServiceAccount tokens (TokenRequest)."""


def token_authentication(
    lookup: ObjectLookup,
    clock: Callable[[], datetime],
    key: ServiceAccountKey,
    static_tokens: Mapping[str, UserInfo] | None = None,
) -> TokenAuthentication:
    """Authentication as kube-apiserver does it, reading token objects through `lookup`."""
    authenticators: list[TokenAuthenticator] = []
    if static_tokens:
        authenticators.append(AudienceAgnostic(StaticTokenAuthenticator(static_tokens), API_AUDIENCES))
    authenticators.append(ServiceAccountTokenAuthenticator([key.public_key], lookup, clock))
    authenticators.append(AudienceAgnostic(BootstrapTokenAuthenticator(lookup, clock), API_AUDIENCES))
    tokens = TokenAuthenticators(authenticators)
    chain = ChainAuthenticator(CertificateAuthenticator(), BearerTokenAuthenticator(tokens))
    return TokenAuthentication(chain, tokens, TokenIssuer(key))
