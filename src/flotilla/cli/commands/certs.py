"""`flotilla certs`: check and renew the API server's certificates (kubeadm's `certs` verbs)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import click

DATA_DIR = click.option(
    "--data-dir",
    type=click.Path(file_okay=False, path_type=Path),
    required=True,
    help="The API server's data directory (certificates are under its pki/).",
)


@click.group()
def certs() -> None:
    """Certificate lifetime: see when the hub's certificates expire and renew them.

    \b
    Examples:
      flotilla certs check-expiration --data-dir .flotilla/hub
      flotilla certs renew all --data-dir .flotilla/hub
    """


@certs.command("check-expiration")
@DATA_DIR
def check_expiration(data_dir: Path) -> None:
    """Print each certificate's expiry and the time left, as `kubeadm certs check-expiration` does.

    \b
    Example:
      flotilla certs check-expiration --data-dir .flotilla/hub
    """
    from flotilla.apiserver.pki import lifetime
    from flotilla.apiserver.pki.directory import PKIPaths

    pki_dir = data_dir / "pki"
    click.echo(f"[check-expiration] Reading certificates from {pki_dir}")
    try:
        leaves, authorities = lifetime.check_expiration(PKIPaths(pki_dir))
    except lifetime.CertificateError as exc:
        raise click.ClickException(str(exc)) from exc
    click.echo("")
    click.echo(lifetime.expiration_report(leaves, authorities, datetime.now(UTC)), nl=False)


@certs.command("renew")
@click.argument("target", type=click.Choice(["all", "apiserver", "admin"]), default="all")
@DATA_DIR
def renew(target: str, data_dir: Path) -> None:
    """Re-issue leaf certificates from the CA for another year (TARGET: all, apiserver or admin).

    A running API server serves a renewed serving certificate within seconds, without a restart;
    renewing `admin` also rewrites admin.kubeconfig.

    \b
    Examples:
      flotilla certs renew all --data-dir .flotilla/hub
      flotilla certs renew apiserver --data-dir .flotilla/hub
    """
    from flotilla.apiserver.pki import lifetime
    from flotilla.apiserver.pki.directory import PKIPaths

    paths = PKIPaths(data_dir / "pki")
    targets = list(lifetime.RENEWABLE) if target == "all" else [target]
    try:
        renewed = lifetime.renew(paths, targets, datetime.now(UTC))
        if "admin" in renewed:
            lifetime.rewrite_admin_kubeconfig(paths, data_dir / lifetime.ADMIN_KUBECONFIG)
    except (lifetime.CertificateError, OSError) as exc:
        raise click.ClickException(str(exc)) from exc
    if "apiserver" in renewed:
        click.echo("certificate for serving the Kubernetes API renewed")
    if "admin" in renewed:
        click.echo("certificate embedded in admin.kubeconfig renewed")
    click.echo("\nDone renewing certificates. A running API server serves the new one within seconds.")
