"""Wiring authentication into one API server: the chain of authenticators and its token machinery.

`install_authentication` replaces the context's certificate-only authenticator with kube's union —
client certificate first, then bearer tokens (static file, ServiceAccount JWTs, bootstrap tokens) —
keeps the token union and the ServiceAccount token issuer where the TokenReview and TokenRequest
handlers find them, and lets anonymous clients read cluster-info. `Bootstrapping` runs the two
in-process controllers tokens need: the cluster-info signer and the expired-token cleaner.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from flotilla.apiserver.admission.attributes import UserInfo
from flotilla.apiserver.authn import CertificateAuthenticator, ChainAuthenticator
from flotilla.apiserver.authn.bearer import (
    TOKEN_AUTHENTICATOR_EXTRA,
    AudienceAgnostic,
    BearerTokenAuthenticator,
    TokenAuthenticator,
    TokenAuthenticators,
)
from flotilla.apiserver.authn.bootstrap import BootstrapTokenAuthenticator
from flotilla.apiserver.authn.clusterinfo import (
    ClusterInfoPublisher,
    PublicClusterInfo,
    cluster_info_kubeconfig,
)
from flotilla.apiserver.authn.lookup import cache_lookup
from flotilla.apiserver.authn.serviceaccounts import (
    API_AUDIENCES,
    ServiceAccountKey,
    ServiceAccountTokenAuthenticator,
    TokenIssuer,
)
from flotilla.apiserver.authn.tokens import StaticTokenAuthenticator, parse_token_file
from flotilla.apiserver.context import APIContext
from flotilla.apiserver.housekeeping.tokencleaner import TokenCleaner
from flotilla.apiserver.http.handlers.tokenrequest import TOKEN_ISSUER_EXTRA


def read_token_file(path: Path) -> dict[str, UserInfo]:
    """The users of a `--token-auth-file` (raises TokenFileError or OSError)."""
    return parse_token_file(path.read_text(encoding="utf-8"), str(path))


def install_authentication(
    ctx: APIContext, key: ServiceAccountKey, static_tokens: Mapping[str, UserInfo] | None = None
) -> TokenAuthenticators:
    """Make `ctx` authenticate as kube-apiserver does; returns the bearer-token union."""
    lookup = cache_lookup(ctx)
    authenticators: list[TokenAuthenticator] = []
    if static_tokens:
        authenticators.append(AudienceAgnostic(StaticTokenAuthenticator(static_tokens), API_AUDIENCES))
    authenticators.append(ServiceAccountTokenAuthenticator([key.public_key], lookup, ctx.clock))
    authenticators.append(AudienceAgnostic(BootstrapTokenAuthenticator(lookup, ctx.clock), API_AUDIENCES))
    tokens = TokenAuthenticators(authenticators)
    ctx.authenticator = ChainAuthenticator(CertificateAuthenticator(), BearerTokenAuthenticator(tokens))
    ctx.extras[TOKEN_AUTHENTICATOR_EXTRA] = tokens
    ctx.extras[TOKEN_ISSUER_EXTRA] = TokenIssuer(key)
    if not isinstance(ctx.authorizer, PublicClusterInfo):
        ctx.authorizer = PublicClusterInfo(ctx.authorizer)
    return tokens


class Bootstrapping:
    """The cluster-info signer and the bootstrap-token cleaner of one API server."""

    def __init__(self, ctx: APIContext, server_url: str, ca_pem: bytes) -> None:
        self.publisher = ClusterInfoPublisher(ctx, cluster_info_kubeconfig(server_url, ca_pem))
        self.cleaner = TokenCleaner(ctx)

    def start(self) -> None:
        self.publisher.start()
        self.cleaner.start()

    async def stop(self) -> None:
        await self.cleaner.stop()
        await self.publisher.stop()
