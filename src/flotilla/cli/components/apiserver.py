"""`flotilla apiserver`: run a Kubernetes-compatible API server on the embedded store or on etcd.

With `--workers N` (etcd only) N server processes share the port; `apiserverworkers.py` runs them.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from flotilla.cli.arguments.etcd import etcd_urls, tls_options

if TYPE_CHECKING:
    from flotilla.apiserver.server import EtcdSettings


@click.command()
@click.option(
    "--data-dir",
    type=click.Path(file_okay=False, path_type=Path),
    required=True,
    help="Where the store, certificates and admin.kubeconfig live.",
)
@click.option("--bind-address", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option(
    "--secure-port",
    type=int,
    default=6443,
    show_default=True,
    help="HTTPS port; 0 picks a free one (admin.kubeconfig names it).",
)
@click.option(
    "--cert-extra-sans", default="", help="Comma-separated extra names and IPs for the serving certificate."
)
@click.option(
    "--storage-sync",
    type=click.Choice(["FULL", "NORMAL"], case_sensitive=False),
    default="FULL",
    show_default=True,
    help="SQLite durability: FULL survives power loss, NORMAL only crashes.",
)
@click.option(
    "--etcd-servers",
    default="",
    help="Comma-separated etcd client URLs (https://a:2379,https://b:2379): keep the store on etcd, "
    "failing over between them, instead of SQLite in DATA_DIR.",
)
@tls_options
@click.option(
    "--etcd-prefix",
    default="/registry",
    show_default=True,
    help="Where the API server's /registry tree lives in etcd (kube-apiserver's layout by default).",
)
@click.option(
    "--history-window",
    type=int,
    default=10000,
    show_default=True,
    help="Revisions of history kept for watches resuming from an older resourceVersion.",
)
@click.option(
    "--history-max-bytes",
    type=click.IntRange(min=0),
    default=64 * 1024 * 1024,
    show_default=True,
    help="Bytes of stored objects the in-memory watch history holds at most; watches resuming from "
    "further back (and not past compaction) replay from the store.",
)
@click.option(
    "--watch-cache-hot-objects",
    type=click.IntRange(min=1),
    default=4096,
    show_default=True,
    help="Objects the watch cache keeps decoded (the most recently written); the others it holds as "
    "their JSON bytes, about a fifth of the memory, decoded again when a write or selector needs them.",
)
@click.option(
    "--compaction-interval",
    type=float,
    default=300.0,
    show_default=True,
    help="Seconds between compactions to the history window (sooner under heavy churn).",
)
@click.option(
    "--karmada/--no-karmada",
    default=True,
    show_default=True,
    help="Serve Karmada's API groups (policy, work and cluster.karmada.io), as a hub does.",
)
@click.option(
    "--token-auth-file",
    type=click.Path(dir_okay=False, exists=True, path_type=Path),
    default=None,
    help='Static bearer tokens, one per line: token,user,uid,"group1,group2".',
)
@click.option(
    "--audit-level",
    type=click.Choice(["None", "Metadata", "Request"], case_sensitive=False),
    default="Metadata",
    show_default=True,
    help="What the audit log records of each request (Request adds bodies, never Secrets').",
)
@click.option(
    "--audit-log-path",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Where audit lines go (default: DATA_DIR/audit.log).",
)
@click.option(
    "--audit-log-maxsize",
    type=int,
    default=100,
    show_default=True,
    help="Megabytes an audit log file may reach before it is rotated (0: never).",
)
@click.option(
    "--audit-log-maxbackup",
    type=int,
    default=3,
    show_default=True,
    help="Rotated audit log files kept.",
)
@click.option(
    "--max-requests-inflight",
    type=int,
    default=400,
    show_default=True,
    help="Read-only requests served at once before 429 (0: no limit).",
)
@click.option(
    "--max-mutating-requests-inflight",
    type=int,
    default=200,
    show_default=True,
    help="Mutating requests served at once before 429 (0: no limit).",
)
@click.option(
    "--enable-priority-and-fairness",
    type=bool,
    default=True,
    is_flag=False,
    flag_value=True,
    show_default=True,
    help="Hold each user to a fair share of each in-flight limit: while n users hold seats, one may "
    "hold limit/(n+1) of them, so a flooding client cannot starve others "
    "(--enable-priority-and-fairness=false: the two limits only).",
)
@click.option(
    "--min-inflight-per-user",
    type=click.IntRange(min=1),
    default=1,
    show_default=True,
    help="Seats of each in-flight limit any user may hold, however many users share it.",
)
@click.option(
    "--request-timeout",
    type=float,
    default=60.0,
    show_default=True,
    help="Seconds before a non-watch request is answered 504 Timeout (0: never).",
)
@click.option(
    "--cluster-acceptance",
    type=click.Choice(["auto", "manual"]),
    default="auto",
    show_default=True,
    help="Pull clusters registering with a bootstrap token: accepted at once (auto), or once an "
    "operator runs `flotilla accept NAME` (manual).",
)
@click.option(
    "--allow-no-execute-taint-policy",
    type=bool,
    default=True,
    is_flag=False,
    flag_value=True,
    show_default=True,
    help="Let ClusterTaintPolicies carry NoExecute taints, which evict workloads from the clusters "
    "they taint. Karmada's webhook defaults this to false; Flotilla to true, so the default policy "
    "of `flotilla up` can move an unreachable member's workloads "
    "(--allow-no-execute-taint-policy=false: Karmada's behaviour).",
)
@click.option(
    "--workers",
    type=click.IntRange(min=1),
    default=1,
    show_default=True,
    help="API server processes sharing the port (SO_REUSEPORT), to serve on several cores; more "
    "than 1 needs --etcd-servers. Each writes its own audit log (audit-<i>.log).",
)
@click.option("--log-level", default="info", show_default=True)
def apiserver(
    data_dir: Path,
    bind_address: str,
    secure_port: int,
    cert_extra_sans: str,
    storage_sync: str,
    etcd_servers: str,
    etcd_cafile: Path | None,
    etcd_certfile: Path | None,
    etcd_keyfile: Path | None,
    etcd_prefix: str,
    history_window: int,
    history_max_bytes: int,
    watch_cache_hot_objects: int,
    compaction_interval: float,
    karmada: bool,
    token_auth_file: Path | None,
    audit_level: str,
    audit_log_path: Path | None,
    audit_log_maxsize: int,
    audit_log_maxbackup: int,
    max_requests_inflight: int,
    max_mutating_requests_inflight: int,
    enable_priority_and_fairness: bool,
    min_inflight_per_user: int,
    request_timeout: float,
    cluster_acceptance: str,
    allow_no_execute_taint_policy: bool,
    workers: int,
    log_level: str,
) -> None:
    """Serve the Kubernetes API (HTTPS; client certificates or bearer tokens) from SQLite in DATA_DIR or etcd.

    \b
    Example:
      flotilla apiserver --data-dir .flotilla/hub --secure-port 0
      kubectl --kubeconfig .flotilla/hub/admin.kubeconfig api-resources
      flotilla apiserver --data-dir .flotilla/hub --etcd-servers http://127.0.0.1:2379 --workers 2
    """
    if workers > 1 and not etcd_servers.strip():
        raise click.UsageError(
            "--workers needs --etcd-servers: several processes cannot share the SQLite store, "
            "so keep the store on etcd or run one worker"
        )
    from flotilla.api.karmada.registration import ClusterAcceptance
    from flotilla.apiserver.context import APISettings
    from flotilla.apiserver.http.audit import AuditLevel, AuditSettings
    from flotilla.apiserver.http.limits import LimitSettings
    from flotilla.apiserver.server import APIServer, ServerSettings
    from flotilla.cli.components.foreground import run_until_signalled
    from flotilla.cli.components.logging import configure_logging

    configure_logging(log_level)
    settings = ServerSettings(
        data_dir=data_dir,
        bind_address=bind_address,
        secure_port=secure_port,
        cert_extra_sans=tuple(s for s in cert_extra_sans.split(",") if s.strip()),
        storage_sync="FULL" if storage_sync.upper() == "FULL" else "NORMAL",
        api=APISettings(
            history_window=history_window,
            history_max_bytes=history_max_bytes,
            hot_objects=watch_cache_hot_objects,
            cluster_acceptance=ClusterAcceptance(cluster_acceptance),
            allow_no_execute_taint_policy=allow_no_execute_taint_policy,
        ),
        compaction_interval=compaction_interval,
        etcd=_etcd_settings(etcd_servers, etcd_cafile, etcd_certfile, etcd_keyfile, etcd_prefix),
        karmada=karmada,
        token_auth_file=token_auth_file,
        audit=AuditSettings(
            level=next(level for level in AuditLevel if level.value.lower() == audit_level.lower()),
            path=audit_log_path,
            max_size_bytes=audit_log_maxsize * 1024 * 1024,
            max_backups=audit_log_maxbackup,
        ),
        limits=LimitSettings(
            max_requests_inflight=max_requests_inflight,
            max_mutating_requests_inflight=max_mutating_requests_inflight,
            priority_and_fairness=enable_priority_and_fairness,
            min_inflight_per_user=min_inflight_per_user,
            request_timeout=request_timeout,
        ),
    )
    if workers > 1:
        from flotilla.cli.components.apiserverworkers import WorkerPool

        code = WorkerPool(settings, workers, log_level).run(
            lambda url: (
                f"flotilla apiserver: serving on {url} with {workers} workers "
                f"(kubeconfig: {data_dir / 'admin.kubeconfig'})"
            )
        )
        raise click.exceptions.Exit(code)
    server = APIServer(settings)
    run_until_signalled(
        server, lambda: f"flotilla apiserver: serving on {server.url} (kubeconfig: {server.kubeconfig_path})"
    )


def _etcd_settings(
    servers: str, cafile: Path | None, certfile: Path | None, keyfile: Path | None, prefix: str
) -> EtcdSettings | None:
    """The etcd the flags name, or None (SQLite) when --etcd-servers is not given."""
    from flotilla.apiserver.server import EtcdSettings

    urls = etcd_urls(servers, cafile, certfile, keyfile, prefix)
    if urls is None:
        return None
    try:
        return EtcdSettings(urls, prefix=prefix, cafile=cafile, certfile=certfile, keyfile=keyfile)
    except ValueError as exc:
        raise click.UsageError(f"--etcd-servers: {exc}") from exc
