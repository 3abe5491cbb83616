"""One API server instance: store, watch cache, in-process controllers and the HTTPS listener.

`APIServer.start()` opens the store, loads the cache, serves custom resources already defined,
makes sure the default namespaces exist, then listens (HTTPS only, TLS 1.2+) and writes
`admin.kubeconfig` for the port it got. Requests authenticate with a client certificate signed by
the server's CA or a bearer token (static file, ServiceAccount, bootstrap); they are limited
(in-flight with per-user shares, deadline, header sizes) and audited, and `/metrics` reports
the flow control; a renewed serving certificate is picked up live.
Secrets (and the Works that carry them) are encrypted at rest with the keys in `encryption-keys.yaml`;
approved client-certificate requests are signed with the CA. The data directory is its owner's alone
(0700, files 0600 but certificates; looser modes left by older versions are tightened at start).
`stop()` ends watches, drains in-flight requests and closes the store. Several instances can share
one event loop: the simulator serves many member clusters from one process. Several processes can
share one data directory and port (`flotilla apiserver --workers`): their parent prepares the
directory once (`prepare_data_dir`) and writes the kubeconfig; each listens with SO_REUSEPORT.
"""

from __future__ import annotations

import asyncio
import contextlib
import ssl
from dataclasses import dataclass, field, replace
from pathlib import Path

import structlog
from aiohttp import web

from flotilla.apiserver.authn.clusterinfo import cluster_info_kubeconfig
from flotilla.apiserver.authn.install import read_token_file, token_authentication
from flotilla.apiserver.authn.serviceaccounts import ServiceAccountKey, load_or_create_key
from flotilla.apiserver.authz.publicinfo import PublicClusterInfo
from flotilla.apiserver.certificates.acceptance import refresh_agent_grants
from flotilla.apiserver.clusterproxy.install import ClusterProxy
from flotilla.apiserver.clusterproxy.relay import RelayCredentials, TunnelDirectory
from flotilla.apiserver.context import APISettings
from flotilla.apiserver.embedded import EmbeddedAPI
from flotilla.apiserver.housekeeping.clusterinfo import ClusterInfoPublisher
from flotilla.apiserver.housekeeping.karmadacrds import install_karmada_crds, install_member_crds
from flotilla.apiserver.housekeeping.tokencleaner import TokenCleaner
from flotilla.apiserver.http.app import build_app
from flotilla.apiserver.http.audit import AuditLog, AuditSettings
from flotilla.apiserver.http.limits import LimitSettings, RequestLimits
from flotilla.apiserver.http.metrics import install_metrics
from flotilla.apiserver.metrics.install import ResourceMetrics
from flotilla.apiserver.pki import directory as pki
from flotilla.apiserver.pki.lifetime import ServingCertificateReloader
from flotilla.apiserver.pki.signing import load_signing_authority
from flotilla.apiserver.search.install import Search
from flotilla.apiserver.store.compactor import CompactionSettings, Compactor
from flotilla.apiserver.store.encryption import ENCRYPTION_KEYS_FILE, SecretEncryption, load_or_create
from flotilla.runtime.privatefiles import make_private
from flotilla.storage import Backend
from flotilla.storage.etcd import EtcdBackend
from flotilla.storage.etcdconnection import EtcdSettings, parse_endpoints
from flotilla.storage.sqlite import SQLiteBackend, SQLiteSettings, Synchronous

__all__ = [
    "APIServer",
    "APISettings",
    "DataDirectory",
    "EtcdSettings",
    "ServerSettings",
    "parse_endpoints",
    "prepare_data_dir",
    "server_url",
    "tls_context",
]
"""`APISettings` and `EtcdSettings` are re-exported: `ServerSettings` holds them, callers outside (the sim,
the CLI, which may not import the storage package) build them; `parse_endpoints` checks an etcd URL list."""

log = structlog.get_logger("flotilla.apiserver.server")


@dataclass(frozen=True, slots=True)
class ServerSettings:
    data_dir: Path
    bind_address: str = "127.0.0.1"
    secure_port: int = 6443
    cert_extra_sans: tuple[str, ...] = ()
    cluster_name: str = "flotilla"
    storage_sync: Synchronous = "FULL"
    """SQLite durability: FULL survives power loss, NORMAL survives a crash of the process."""
    api: APISettings = field(default_factory=APISettings)
    shutdown_timeout: float = 5.0
    any_port_if_taken: bool = False
    """When the port is taken, listen on any free one instead of failing (simulated clusters)."""
    compaction_interval: float = 300.0
    """Seconds between compactions of the store to the last `api.history_window` revisions."""
    karmada: bool = True
    """Serve Karmada's API groups (a hub does; a member cluster's API server does not)."""
    clusterset_member: bool = False
    """Serve the Multi-Cluster Services API and ClusterProperty, as a member of a clusterset (simulated
    members do; a hub serves the MCS API with Karmada's groups)."""
    token_auth_file: Path | None = None
    """CSV of static bearer tokens (`token,user,uid,"group1,group2"`), kube's --token-auth-file."""
    audit: AuditSettings = field(default_factory=AuditSettings)
    """The audit log (level None: off); its path defaults to `<data-dir>/audit.log`."""
    limits: LimitSettings = field(default_factory=LimitSettings)
    """In-flight limits, request deadline and header sizes."""
    cert_reload_interval: float = 5.0
    """Seconds between checks of the serving certificate's files for a renewal."""
    etcd: EtcdSettings | None = None
    """Keep the store on etcd (several API servers may share it) instead of `<data-dir>/store.db`."""
    reuse_port: bool = False
    """Listen with SO_REUSEPORT, so that several processes serve one port (`--workers`)."""
    admin_kubeconfig: bool = True
    """Write `admin.kubeconfig` once listening; the workers of `--workers` leave it to their parent."""


@dataclass(frozen=True, slots=True)
class DataDirectory:
    """What a server reads from its data directory before it serves."""

    pki: pki.PKIPaths
    service_account_key: ServiceAccountKey
    encryption: SecretEncryption


def prepare_data_dir(settings: ServerSettings) -> DataDirectory:
    """Make the data directory private and create what it lacks (PKI, service-account key, encryption
    keys); what exists is only read. Blocking: call it in a thread from the event loop."""
    data_dir = settings.data_dir
    make_private(data_dir)
    extra = [*settings.cert_extra_sans]
    if settings.bind_address not in ("0.0.0.0", "::", ""):  # noqa: S104 - recognising, not binding
        extra.append(settings.bind_address)
    paths = pki.ensure_pki(data_dir / "pki", extra)
    return DataDirectory(
        pki=paths,
        service_account_key=load_or_create_key(data_dir / "pki"),
        encryption=load_or_create(data_dir / ENCRYPTION_KEYS_FILE),
    )


def server_url(bind_address: str, port: int) -> str:
    """The https URL clients use for a server listening on `bind_address` (any address: loopback)."""
    host = bind_address
    if host in ("0.0.0.0", "::", ""):  # noqa: S104 - recognising, not binding
        host = "127.0.0.1"
    if ":" in host:
        host = f"[{host}]"
    return f"https://{host}:{port}"


def tls_context(paths: pki.PKIPaths) -> ssl.SSLContext:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    context.load_cert_chain(paths.serving_cert, paths.serving_key)
    context.load_verify_locations(cafile=str(paths.ca_cert))
    context.verify_mode = ssl.CERT_OPTIONAL
    context.set_alpn_protocols(["http/1.1"])
    return context


def _store(settings: ServerSettings) -> Backend:
    """The backend the settings name: etcd when given, else SQLite in the data directory."""
    if settings.etcd is not None:
        return EtcdBackend(settings.etcd)
    return SQLiteBackend(settings.data_dir / "store.db", SQLiteSettings(synchronous=settings.storage_sync))


class APIServer:
    """An `EmbeddedAPI` behind an HTTPS listener, with its PKI and admin kubeconfig."""

    def __init__(self, settings: ServerSettings, backend: Backend | None = None) -> None:
        self.settings = settings
        self.embedded = EmbeddedAPI(backend or _store(settings), settings.api)
        self.backend = self.embedded.backend
        self.cache = self.embedded.cache
        self.registry = self.embedded.registry
        self.context = self.embedded.context
        self.compactor = Compactor(
            self.backend,
            CompactionSettings(window=settings.api.history_window, interval=settings.compaction_interval),
        )
        self._runner: web.AppRunner | None = None
        self._site: web.TCPSite | None = None
        self.port = 0
        self.pki: pki.PKIPaths | None = None
        audit = settings.audit
        if audit.path is None:
            audit = replace(audit, path=settings.data_dir / "audit.log")
        self.audit = AuditLog(audit)
        self._tls: ssl.SSLContext | None = None
        self._reloader: ServingCertificateReloader | None = None
        self._cluster_proxy: ClusterProxy | None = None
        self._peer_site: web.TCPSite | None = None
        self._search: Search | None = None
        self._resource_metrics: ResourceMetrics | None = None
        self._token_controllers: list[ClusterInfoPublisher | TokenCleaner] = []

    @property
    def url(self) -> str:
        return server_url(self.settings.bind_address, self.port)

    @property
    def kubeconfig_path(self) -> Path:
        return self.settings.data_dir / "admin.kubeconfig"

    async def start(self) -> None:
        prepared = await asyncio.to_thread(prepare_data_dir, self.settings)
        self.pki = prepared.pki
        service_account_key = prepared.service_account_key
        token_file = self.settings.token_auth_file
        static_tokens = await asyncio.to_thread(read_token_file, token_file) if token_file else None
        # Secrets are encrypted at rest; the CSR signer issues client certificates with the CA.
        self.cache.transformer = prepared.encryption
        self.context.signing_authority = await asyncio.to_thread(load_signing_authority, self.pki.directory)
        await self.embedded.start()
        if self.settings.karmada:
            await install_karmada_crds(self.context)
            await refresh_agent_grants(self.context)
            self._cluster_proxy = ClusterProxy(self.context)
            self._search = Search(self.context)
            self._resource_metrics = ResourceMetrics(self.context)
        if self.settings.clusterset_member:
            await install_member_crds(self.context)
        authentication = token_authentication(
            self.context.lookup, self.context.clock, service_account_key, static_tokens
        )
        self.context.authenticator = authentication.authenticator
        self.context.token_authenticators = authentication.tokens
        self.context.token_issuer = authentication.issuer
        if not isinstance(self.context.authorizer, PublicClusterInfo):
            self.context.authorizer = PublicClusterInfo(self.context.authorizer)
        self.compactor.start()
        self._tls = tls_context(self.pki)
        self.audit.start()
        app = build_app(self.context, audit=self.audit, limits=RequestLimits(self.settings.limits))
        install_metrics(app)
        self._runner = web.AppRunner(
            app,
            access_log=None,
            shutdown_timeout=self.settings.shutdown_timeout,
            # aiohttp's request-head limits (a request beyond them gets a plain 400 and is closed).
            max_line_size=self.settings.limits.max_request_line_bytes,
            max_field_size=self.settings.limits.max_header_field_bytes,
            max_headers=self.settings.limits.max_headers,
        )
        await self._runner.setup()
        try:
            await self.listen(self.settings.secure_port)
        except OSError:
            if not self.settings.any_port_if_taken or not self.settings.secure_port:
                raise
            log.warning("apiserver.port_taken", port=self.settings.secure_port)
            await self.listen(0)
        if self.settings.admin_kubeconfig:
            pki.write_admin_kubeconfig(
                self.pki, self.kubeconfig_path, self.url, cluster=self.settings.cluster_name
            )
        # kube-controller-manager's bootstrap signer and token cleaner, which tokens need.
        self._token_controllers = [
            ClusterInfoPublisher(
                self.context, cluster_info_kubeconfig(self.url, self.pki.ca_cert.read_bytes())
            ),
            TokenCleaner(self.context),
        ]
        for controller in self._token_controllers:
            controller.start()
        self._reloader = ServingCertificateReloader(self._tls, self.pki, self.settings.cert_reload_interval)
        self._reloader.start()
        if self._cluster_proxy is not None:
            self._cluster_proxy.relay_through(
                TunnelDirectory(self.context, await self._peer_url()),
                RelayCredentials(self.pki.ca_cert, self.pki.admin_cert, self.pki.admin_key),
            )
        if self._search is not None:
            self._search.start(self.pki, self.url)  # it reads the members through this server's proxy
        if self._resource_metrics is not None:
            self._resource_metrics.start(self.pki, self.url)  # as search: through this server's proxy
        log.info("apiserver.serving", url=self.url, kubeconfig=str(self.kubeconfig_path))

    async def listen(self, port: int) -> None:
        """Open the HTTPS listener (port 0: any free port; the chosen one is kept in `self.port`)."""
        if self._runner is None or self._tls is None:
            raise RuntimeError("start() the server before listening")
        site = web.TCPSite(
            self._runner,
            self.settings.bind_address,
            port,
            ssl_context=self._tls,
            backlog=1024,
            reuse_address=True,
            reuse_port=self.settings.reuse_port,
        )
        await site.start()
        server = site._server
        sockets = getattr(server, "sockets", None) or []
        self.port = sockets[0].getsockname()[1] if sockets else port
        self._site = site

    async def _peer_url(self) -> str:
        """Where the other API servers of this hub reach this one (to relay to the tunnels it holds).

        Its own URL, unless it shares its port with other workers (`reuse_port`): the kernel would
        hand a peer's connection to any of them, so it also listens on a loopback port of its own."""
        if not self.settings.reuse_port or self._runner is None or self._tls is None:
            return self.url
        site = web.TCPSite(self._runner, "127.0.0.1", 0, ssl_context=self._tls)
        await site.start()
        sockets = getattr(site._server, "sockets", None) or []
        self._peer_site = site
        return server_url("127.0.0.1", sockets[0].getsockname()[1])

    async def stop_listening(self) -> None:
        """Close the listener and every open connection: clients get connection refused (fault injection)."""
        if self._site is not None:
            await self._site.stop()
            self._site = None
        if self._runner is not None and self._runner.server is not None:
            for connection in list(self._runner.server.connections):
                connection.force_close()

    @property
    def listening(self) -> bool:
        return self._site is not None

    async def stop(self) -> None:
        log.info("apiserver.stopping")
        if self._reloader is not None:
            await self._reloader.stop()
        for controller in reversed(self._token_controllers):
            await controller.stop()
        await self.compactor.stop()
        await self.embedded.controllers.stop()
        if self._search is not None:
            await self._search.stop()
        if self._resource_metrics is not None:
            await self._resource_metrics.stop()
        if self._cluster_proxy is not None:
            await self._cluster_proxy.close()
        if self._peer_site is not None:
            await self._peer_site.stop()
        await self.cache.stop()
        if self._runner is not None:
            with contextlib.suppress(Exception):
                await self._runner.cleanup()
            self._runner = None
        await self.audit.stop()
        await self.embedded.admission.close()
        await self.backend.close()
        log.info("apiserver.stopped")
