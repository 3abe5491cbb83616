"""`flotilla dashboard`: serve the web dashboard for a hub; `flotilla dashboard token`: a sign-in token.

The dashboard is a client of the hub (package `flotilla.dashboard`); this module is its command
line: where to listen, which hub, and the serving certificate. HTTPS always: with
`--tls-cert-file`/`--tls-private-key-file`, or a certificate issued here by the hub's own CA when
its key is at hand (`--pki-dir`, found by itself beside a local hub's kubeconfig, as `flotilla up`
and `flotilla apiserver` lay it out), so a browser that trusts the hub's CA trusts the dashboard;
otherwise a self-signed one, with a warning.
"""

from __future__ import annotations

import asyncio
import os
import signal
import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

import click

from flotilla.cli.hub.connection import HubTarget, hub_options, run

if TYPE_CHECKING:
    from collections.abc import Callable

    from flotilla.dashboard.app import DashboardServer

DEFAULT_ADDRESS = "127.0.0.1:8001"


def _split_address(address: str) -> tuple[str, int]:
    host, _, port = address.rpartition(":")
    host = host.strip("[]")
    if not host or not port.isdigit() or not 0 <= int(port) <= 65535:
        raise click.BadParameter(f"expected HOST:PORT, got {address!r}", param_hint="--address")
    return host, int(port)


def _find_pki(kubeconfig: Path | None, ca_pem: bytes | None) -> Path | None:
    """The hub's PKI directory beside its kubeconfig, when its CA is the one the kubeconfig trusts."""
    if kubeconfig is None or not ca_pem:
        return None
    for candidate in (kubeconfig.parent / "pki", kubeconfig.parent / "hub" / "pki"):
        ca = candidate / "ca.crt"
        if (candidate / "ca.key").exists() and ca.exists() and ca.read_bytes().strip() == ca_pem.strip():
            return candidate
    return None


def _write_private(path: Path, data: bytes) -> None:
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "wb") as handle:
        handle.write(data)


def _serving_certificate(pki_dir: Path | None, host: str, directory: Path) -> tuple[Path, Path, str]:
    """A serving certificate for `host` (and loopback): signed by the CA in `pki_dir`, else self-signed."""
    import ipaddress

    from cryptography import x509
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec

    from flotilla.apiserver.pki.directory import create_ca, issue

    now = datetime.now(UTC)
    names = {"localhost"}
    addresses = {ipaddress.ip_address("127.0.0.1"), ipaddress.ip_address("::1")}
    try:
        addresses.add(ipaddress.ip_address(host))
    except ValueError:
        names.add(host)
    if pki_dir is not None:
        ca_cert = x509.load_pem_x509_certificate((pki_dir / "ca.crt").read_bytes())
        loaded = serialization.load_pem_private_key((pki_dir / "ca.key").read_bytes(), password=None)
        if not isinstance(loaded, ec.EllipticCurvePrivateKey):
            raise click.ClickException(f"{pki_dir / 'ca.key'} is not an EC key")
        ca_key, issuer = loaded, f"the hub's CA ({pki_dir})"
    else:
        ca_cert, ca_key = create_ca("flotilla-dashboard-ca", now)
        issuer = "a self-signed CA (pass --pki-dir or --tls-cert-file for one browsers can trust)"
    subject = x509.Name([x509.NameAttribute(x509.NameOID.COMMON_NAME, "flotilla-dashboard")])
    cert, key = issue(
        ca_cert,
        ca_key,
        subject,
        now=now,
        server=True,
        dns_names=tuple(sorted(names)),
        ips=tuple(sorted(addresses, key=str)),
        lifetime=timedelta(days=30),
    )
    cert_path, key_path = directory / "dashboard.crt", directory / "dashboard.key"
    _write_private(cert_path, cert.public_bytes(serialization.Encoding.PEM))
    _write_private(
        key_path,
        key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        ),
    )
    return cert_path, key_path, issuer


@click.group(invoke_without_command=True)
@click.option(
    "--address", default=DEFAULT_ADDRESS, show_default=True, help="HOST:PORT to listen on (port 0: any)."
)
@click.option(
    "--tls-cert-file",
    type=click.Path(dir_okay=False, exists=True, path_type=Path),
    default=None,
    help="Serving certificate (PEM); default: one issued by the hub's CA, else self-signed.",
)
@click.option(
    "--tls-private-key-file",
    type=click.Path(dir_okay=False, exists=True, path_type=Path),
    default=None,
    help="The serving certificate's private key (PEM).",
)
@click.option(
    "--pki-dir",
    type=click.Path(file_okay=False, exists=True, path_type=Path),
    default=None,
    help="The hub's PKI directory (ca.crt, ca.key) to issue the serving certificate from "
    "(default: found beside a local hub's kubeconfig).",
)
@click.option(
    "--auto-sign-in",
    is_flag=True,
    help="Loopback only: mint the local admin's token (as `dashboard token`) and print a "
    "one-time sign-in link.",
)
@hub_options
@click.pass_context
def dashboard(
    ctx: click.Context,
    address: str,
    tls_cert_file: Path | None,
    tls_private_key_file: Path | None,
    pki_dir: Path | None,
    auto_sign_in: bool,
    kubeconfig: Path | None,
    context: str | None,
) -> None:
    """Serve the web dashboard of a hub over HTTPS; sign in with a ServiceAccount token.

    Every page reads and writes the hub as the signed-in user: RBAC decides what shows and what works.

    \b
    Examples:
      flotilla dashboard --kubeconfig .flotilla/hub.kubeconfig
      flotilla dashboard token --kubeconfig .flotilla/hub.kubeconfig   # a token for the local admin
      kubectl create token viewer -n team-a                             # or any ServiceAccount's
    """
    if ctx.invoked_subcommand is not None:
        return
    import secrets

    from flotilla.dashboard.app import DashboardServer
    from flotilla.dashboard.state import DashboardSettings

    host, port = _split_address(address)
    if (tls_cert_file is None) != (tls_private_key_file is None):
        raise click.UsageError("give --tls-cert-file and --tls-private-key-file together")
    target = HubTarget(kubeconfig, context)
    config = target.config()
    token = code = None
    if auto_sign_in:
        if host not in ("127.0.0.1", "::1", "localhost"):
            raise click.UsageError("--auto-sign-in is for a dashboard on loopback only")
        token = run(_admin_token(target))
        code = secrets.token_urlsafe(24)
    with tempfile.TemporaryDirectory(prefix="flotilla-dashboard-") as directory:
        if tls_cert_file is not None and tls_private_key_file is not None:
            cert, key, issuer = tls_cert_file, tls_private_key_file, str(tls_cert_file)
        else:
            found = pki_dir or _find_pki(kubeconfig, config.ca_pem)
            cert, key, issuer = _serving_certificate(found, host, Path(directory))
        settings = DashboardSettings(
            host=host,
            port=port,
            certificate=cert,
            private_key=key,
            auto_sign_in_token=token,
            auto_sign_in_code=code,
        )
        server = DashboardServer(settings, config)

        def announce() -> None:
            click.echo(f"flotilla dashboard: serving on {server.url} (certificate: {issuer})", err=True)
            if code:
                click.echo(
                    f"flotilla dashboard: sign in at {server.url}api/signin/auto?code={code}", err=True
                )

        asyncio.run(_serve(server, announce))


async def _serve(server: DashboardServer, announce: Callable[[], None]) -> None:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    try:
        await server.start()
    except OSError as error:
        await server.stop()
        raise click.ClickException(f"cannot start: {error}") from error
    announce()
    try:
        await stop.wait()
    finally:
        await server.stop()


async def _admin_token(target: HubTarget) -> str:
    from flotilla.dashboard.admintoken import admin_token

    async with target.client(field_manager="flotilla-dashboard") as hub:
        return await admin_token(hub)


@dashboard.command("token")
@hub_options
def token(kubeconfig: Path | None, context: str | None) -> None:
    """Print a sign-in token for the hub's administrator (a cluster-admin ServiceAccount's, 24 h).

    Creates, once, ServiceAccount `admin` in namespace `flotilla-dashboard` bound to cluster-admin,
    then asks the hub for a token (what `kubectl create token` does). Needs an admin kubeconfig.

    \b
    Example:
      flotilla dashboard token --kubeconfig .flotilla/hub.kubeconfig
    """
    click.echo(run(_admin_token(HubTarget(kubeconfig, context))))
