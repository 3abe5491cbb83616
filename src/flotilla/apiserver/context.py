"""Everything a request handler may use, fixed when the server starts (one per API server instance).

The simulator runs many API servers in one process, so nothing here is global: each instance has its
own store, cache, registry and clock, reached from handlers through the aiohttp app.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from aiohttp import web

from flotilla.api.karmada.registration import ClusterAcceptance
from flotilla.api.scheme import GroupResource, GroupVersionKind
from flotilla.apiserver.admission import Admission, NoAdmission
from flotilla.apiserver.authn import Authenticator, CertificateAuthenticator
from flotilla.apiserver.authn.bearer import TokenAuthenticators
from flotilla.apiserver.authn.serviceaccounts import TokenIssuer
from flotilla.apiserver.authz import Authorizer
from flotilla.apiserver.authz.rbac import RBACAuthorizer
from flotilla.apiserver.pki.signing import SigningAuthority
from flotilla.apiserver.registry.cel.runner import RuleRunner
from flotilla.apiserver.registry.identifiers import RandomIdentifiers
from flotilla.apiserver.registry.karmada.rules import CustomResourceRules, custom_resource_rules
from flotilla.apiserver.registry.resources import ResourceRegistry, ServedResource
from flotilla.apiserver.registry.schema.builtin import builtin_schemas
from flotilla.apiserver.registry.schema.model import Schema
from flotilla.apiserver.registry.strategy import Strategy, StrategyEnv, strategy_for
from flotilla.apiserver.requestinfo import RequestInfo
from flotilla.apiserver.store.objectstore import ObjectStore
from flotilla.apiserver.store.watchcache import WatchCache
from flotilla.storage import Backend

SubresourceKey = tuple[str, str, str]
"""(API group, resource plural, subresource)."""
SubresourceHandler = Callable[
    [web.Request, "APIContext", RequestInfo, ServedResource], Awaitable[web.StreamResponse]
]


def utc_now() -> datetime:
    return datetime.now(UTC)


@dataclass(frozen=True, slots=True)
class APISettings:
    """Behaviour of one API server instance."""

    kubernetes_version: str = "v1.32.4"
    """What `/version` reports; kubectl warns about skew beyond one minor version."""
    watch_bookmark_interval: float = 60.0
    """Seconds between BOOKMARK events on idle watches that asked for them."""
    default_watch_timeout: tuple[int, int] = (1800, 3600)
    """Watches without timeoutSeconds end after a random time in this range (seconds)."""
    future_revision_wait: float = 3.0
    """How long a read at a not-yet-reached resourceVersion waits before answering 504."""
    history_window: int = 10000
    """Revisions of change history kept in memory for watches resuming from an older resourceVersion
    (and kept in the store by compaction; older resumes get 410 Gone)."""
    history_max_bytes: int = 64 * 1024 * 1024
    """Bytes of stored objects the in-memory history holds at most (a version held by two changes
    counts twice); watches resuming from further back replay the store's history instead."""
    hot_objects: int = 4096
    """Objects the watch cache keeps decoded (the most recently written); the rest it keeps as their
    JSON bytes alone, several times smaller, and decodes on the rare read that needs a dict."""
    service_cidr: str = "10.96.0.0/12"
    event_ttl_seconds: int = 3600
    """Events older than this are deleted (kube-apiserver's --event-ttl)."""
    max_retries: int = 10
    """Attempts of an update or patch that loses races with concurrent writers before answering 409."""
    cluster_acceptance: ClusterAcceptance = ClusterAcceptance.AUTO
    """How a hub accepts Pull registrations: at once (Karmada's), or once an operator accepts them."""
    allow_no_execute_taint_policy: bool = True
    """Whether a ClusterTaintPolicy may carry NoExecute taints (Karmada's webhook flag of that name).
    Karmada defaults it to false; Flotilla to true, since the default policy `flotilla up` installs
    taints an unreachable member NoExecute so that its workloads move elsewhere."""


@dataclass(eq=False)
class APIContext:
    backend: Backend
    cache: WatchCache
    registry: ResourceRegistry
    settings: APISettings
    clock: Callable[[], datetime] = utc_now
    store: ObjectStore = field(init=False)
    metadata_schema: Schema = field(init=False)
    strategy_env: StrategyEnv = field(init=False)
    custom_resource_rules: dict[GroupVersionKind, CustomResourceRules] = field(init=False)
    """Built-in admission of the Karmada kinds, under this server's settings."""
    _strategies: dict[int, Strategy] = field(default_factory=dict)
    signing_authority: SigningAuthority | None = None
    """The CA that signs approved client CSRs (None: the signer issues nothing, as on a server
    without its PKI)."""
    token_authenticators: TokenAuthenticators | None = None
    """The bearer-token union TokenReview answers with (None: the server reviews no tokens)."""
    token_issuer: TokenIssuer | None = None
    """Signs ServiceAccount tokens for TokenRequest (None: `serviceaccounts/token` is unavailable)."""
    rule_runner: RuleRunner = field(default_factory=RuleRunner)
    """Runs custom resources' CEL rules, off the event loop once they grow costly."""
    subresource_handlers: dict[SubresourceKey, dict[str, SubresourceHandler]] = field(default_factory=dict)
    """Handlers of subresources that a component serves, by verb (the CSR `approval` subresource)."""
    computed_resources: dict[GroupResource, dict[str, SubresourceHandler]] = field(default_factory=dict)
    """Handlers of resources a component computes per request and never stores, by verb (the
    `metrics.k8s.io` pods and nodes of a simulated member or of the hub)."""
    injected_latency: float = 0.0
    """Seconds every request waits first: a fault the simulator injects into one member."""
    ids: RandomIdentifiers = field(default_factory=RandomIdentifiers)
    """Where object uids and generateName suffixes come from."""
    admission: Admission = field(default_factory=NoAdmission)
    authenticator: Authenticator = field(default_factory=CertificateAuthenticator)
    rbac: RBACAuthorizer = field(init=False)
    """The roles and bindings in this server's cache; also what escalation checks and rules reviews read."""
    authorizer: Authorizer = field(init=False)
    """What every request is authorized by: `rbac` unless replaced (or wrapped) at start."""

    def __post_init__(self) -> None:
        self.store = ObjectStore(self.backend, self.cache)
        self.rbac = self.authorizer = RBACAuthorizer(self.cache)
        self.metadata_schema = builtin_schemas().definition("io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta")
        self.strategy_env = StrategyEnv(
            list_objects=self._list_objects, service_cidr=self.settings.service_cidr, clock=self.clock
        )
        self.custom_resource_rules = custom_resource_rules(
            allow_no_execute_taint_policy=self.settings.allow_no_execute_taint_policy
        )

    def lookup(self, kind: GroupVersionKind, namespace: str, name: str) -> Mapping[str, Any] | None:
        """The object `kind` `namespace/name` as cached (read-only), or None (kube's informer lookups)."""
        served = self.registry.by_kind(kind)
        if served is None:
            return None
        item = self.store.get(served, namespace if served.type.namespaced else "", name)
        return item.obj if item is not None else None

    def strategy(self, served: ServedResource) -> Strategy:
        found = self._strategies.get(id(served))
        if found is None or found.served is not served:
            found = self._strategies[id(served)] = strategy_for(served, self.custom_resource_rules)
        return found

    def _list_objects(self, resource: GroupResource, namespace: str) -> list[dict[str, Any]]:
        prefix = f"/registry/{resource.group or 'core'}/{resource.resource}/"
        return [item.obj for item in self.cache.list(prefix, namespace)]


CONTEXT: web.AppKey[APIContext] = web.AppKey("flotilla.apiserver.context", APIContext)
