"""Kubeconfig loading: which server, how to trust it, and who we are.

Precedence as kubectl: an explicit path, else `$KUBECONFIG` (a path list, first file with the context
wins — merging is simplified to "first definition wins"), else `~/.kube/config`. Supports inline and
file-based CA, client certificates and keys, bearer tokens and token files, and
`insecure-skip-tls-verify`. Exec plugins are not supported (a clear error says so).
"""

from __future__ import annotations

import base64
import os
import ssl
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import yaml

from flotilla.client.endpoints import EndpointError, endpoint_list


class KubeconfigError(ValueError):
    """The kubeconfig cannot be used; the message says what is missing."""


@dataclass(frozen=True, slots=True)
class ClusterConfig:
    """Everything needed to reach one API server as one user."""

    server: str
    ca_pem: bytes | None = None
    client_cert_pem: bytes | None = None
    client_key_pem: bytes | None = None
    token: str | None = None
    insecure_skip_tls_verify: bool = False
    tls_server_name: str | None = None
    context: str = ""
    cluster_name: str = ""
    namespace: str = "default"
    endpoints: tuple[str, ...] = ()
    """More API servers of the same cluster (several processes on one etcd), tried in turn after
    `server` when it fails (`endpoints.py`); each must present a certificate the CA trusts for its
    name (or for `tls_server_name`)."""

    @property
    def servers(self) -> tuple[str, ...]:
        """`server`, then the other endpoints."""
        return (self.server, *self.endpoints)

    def with_endpoints(self, extra: Iterable[str]) -> ClusterConfig:
        """This configuration with `extra` endpoints added after its own (KubeconfigError for a
        malformed URL or one of another scheme)."""
        try:
            servers = endpoint_list(self.server, (*self.endpoints, *extra))
        except EndpointError as exc:
            raise KubeconfigError(f"API server endpoints: {exc}") from exc
        return replace(self, endpoints=servers[1:])

    def ssl_context(self) -> ssl.SSLContext | bool:
        if not self.server.startswith("https"):
            return False
        context = ssl.create_default_context()
        if self.insecure_skip_tls_verify:
            context.check_hostname = False
            context.verify_mode = ssl.CERT_NONE
        elif self.ca_pem:
            context = ssl.create_default_context(cadata=self.ca_pem.decode())
        if self.client_cert_pem and self.client_key_pem:
            # ssl needs files for the client certificate: write them once to a private temp dir.
            directory = Path(tempfile.mkdtemp(prefix="flotilla-client-"))
            cert = directory / "client.crt"
            key = directory / "client.key"
            for path, data in ((cert, self.client_cert_pem), (key, self.client_key_pem)):
                fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
                with os.fdopen(fd, "wb") as handle:
                    handle.write(data)
            try:
                context.load_cert_chain(str(cert), str(key))
            finally:
                cert.unlink(missing_ok=True)
                key.unlink(missing_ok=True)
                directory.rmdir()
        return context

    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"} if self.token else {}


def default_paths() -> list[Path]:
    env = os.environ.get("KUBECONFIG")
    if env:
        return [Path(p) for p in env.split(os.pathsep) if p]
    return [Path.home() / ".kube" / "config"]


def _read(path: Path) -> dict[str, Any]:
    try:
        data = yaml.safe_load(path.read_text()) or {}
    except OSError as exc:
        raise KubeconfigError(f"cannot read kubeconfig {path}: {exc.strerror}") from exc
    except yaml.YAMLError as exc:
        raise KubeconfigError(f"kubeconfig {path} is not valid YAML: {exc}") from exc
    if not isinstance(data, dict):
        raise KubeconfigError(f"kubeconfig {path} is not a kubeconfig (expected a mapping)")
    return data


def _named(entries: Any, name: str, what: str, path: Path) -> dict[str, Any]:
    for entry in entries or []:
        if isinstance(entry, dict) and entry.get("name") == name:
            found = entry.get(what)
            if isinstance(found, dict):
                return found
    raise KubeconfigError(f"kubeconfig {path} has no {what} named {name!r}")


def _data_or_file(section: dict[str, Any], key: str, base: Path) -> bytes | None:
    data = section.get(f"{key}-data")
    if data:
        return base64.b64decode(data)
    file_name = section.get(key)
    if file_name:
        file_path = Path(file_name)
        if not file_path.is_absolute():
            file_path = base / file_path
        return file_path.read_bytes()
    return None


def load_kubeconfig(path: str | Path | None = None, context: str | None = None) -> ClusterConfig:
    """The cluster and user of `context` (default: current-context) in a kubeconfig."""
    paths = [Path(path)] if path else default_paths()
    existing = [p for p in paths if p.exists()]
    if not existing:
        raise KubeconfigError(f"no kubeconfig found (looked at {', '.join(str(p) for p in paths)})")
    for config_path in existing:
        data = _read(config_path)
        name = context or data.get("current-context")
        if not name:
            continue
        try:
            ctx = _named(data.get("contexts"), name, "context", config_path)
        except KubeconfigError:
            if context is not None and config_path == existing[-1]:
                raise
            continue
        base = config_path.parent
        cluster = _named(data.get("clusters"), ctx.get("cluster", ""), "cluster", config_path)
        user = _named(data.get("users"), ctx.get("user", ""), "user", config_path) if ctx.get("user") else {}
        if "exec" in user or "auth-provider" in user:
            raise KubeconfigError(
                f"kubeconfig {config_path}: user {ctx.get('user')!r} uses an exec or auth-provider plugin, "
                "which Flotilla does not run; use a client certificate or a token"
            )
        server = cluster.get("server")
        if not server:
            raise KubeconfigError(f"kubeconfig {config_path}: cluster {ctx.get('cluster')!r} has no server")
        token = user.get("token")
        if not token and user.get("tokenFile"):
            token = Path(user["tokenFile"]).read_text().strip()
        return ClusterConfig(
            server=str(server).rstrip("/"),
            ca_pem=_data_or_file(cluster, "certificate-authority", base),
            client_cert_pem=_data_or_file(user, "client-certificate", base),
            client_key_pem=_data_or_file(user, "client-key", base),
            token=token,
            insecure_skip_tls_verify=bool(cluster.get("insecure-skip-tls-verify")),
            tls_server_name=cluster.get("tls-server-name"),
            context=name,
            cluster_name=str(ctx.get("cluster", "")),
            namespace=str(ctx.get("namespace") or "default"),
        )
    raise KubeconfigError(f"kubeconfig {existing[0]} names no context (set current-context or pass one)")


def parse_kubeconfig(text: str, context: str | None = None) -> ClusterConfig:
    """A kubeconfig given as text (e.g. from a Secret) with inline credentials only."""
    with tempfile.TemporaryDirectory(prefix="flotilla-kubeconfig-") as tmp:
        path = Path(tmp) / "config"
        path.write_text(text)
        return load_kubeconfig(path, context)
