"""`flotilla store migrate`: move a hub's store from its SQLite file to etcd, offline.

The copying lives with the API server (`flotilla.apiserver.store.migration`), the only package
that touches storage; this module reads the flags, says what it will do and prints the counts.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING

import click

from flotilla.cli.arguments.etcd import check_tls_and_prefix, tls_options

if TYPE_CHECKING:
    from flotilla.apiserver.store.migration import EtcdSettings, MigrationReport


@click.group()
def store() -> None:
    """The hub's store: move it from the embedded SQLite file to etcd.

    \b
    Example — a hub started with `--data-dir hub` moves to etcd:
      (stop the API server)
      flotilla store migrate --from sqlite:hub --to etcd://10.0.0.1:2379 --dry-run
      flotilla store migrate --from sqlite:hub --to etcd://10.0.0.1:2379
      flotilla apiserver --data-dir hub --etcd-servers http://10.0.0.1:2379
    """


@store.command("migrate")
@click.option("--from", "source", required=True, metavar="sqlite:DIR", help="The API server's --data-dir.")
@click.option(
    "--to",
    "target",
    required=True,
    metavar="etcd://HOST:PORT[,HOST:PORT]",
    help="etcd members to copy into (https when --etcd-cafile or a client certificate is given); "
    "http(s):// URLs are accepted too.",
)
@tls_options
@click.option(
    "--etcd-prefix",
    default="/registry",
    show_default=True,
    help="Where the hub's /registry tree goes in etcd: give the API server the same --etcd-prefix.",
)
@click.option("--dry-run", is_flag=True, help="Only count the keys and check the target; write nothing.")
def migrate(
    source: str,
    target: str,
    etcd_cafile: Path | None,
    etcd_certfile: Path | None,
    etcd_keyfile: Path | None,
    etcd_prefix: str,
    dry_run: bool,
) -> None:
    """Copy every object of a stopped hub's SQLite store into an empty etcd prefix.

    The API server must not be running on DIR. Values are copied as stored (Secrets stay encrypted:
    keep DIR's encryption-keys.yaml), UIDs are kept, and resourceVersions become etcd's revisions,
    so restart every client of the hub afterwards (they relist). The counts of keys per resource in
    SQLite and in etcd are compared at the end; a difference exits with status 1.

    \b
    Examples:
      flotilla store migrate --from sqlite:.flotilla/hub --to etcd://127.0.0.1:2379 --dry-run
      flotilla store migrate --from sqlite:hub --to etcd://10.0.0.1:2379,10.0.0.2:2379 \\
        --etcd-cafile ca.crt --etcd-certfile client.crt --etcd-keyfile client.key
    """
    from flotilla.apiserver.store import migration

    data_dir = _data_dir(source)
    etcd = _etcd_settings(target, etcd_cafile, etcd_certfile, etcd_keyfile, etcd_prefix)
    try:
        report = asyncio.run(migration.migrate_sqlite_to_etcd(data_dir, etcd, dry_run=dry_run))
    except (migration.MigrationError, migration.StoreInUseError) as exc:
        raise click.ClickException(str(exc)) from exc
    except migration.StorageError as exc:
        raise click.ClickException(f"etcd at {target}: {exc}") from exc
    _print_report(report, etcd, data_dir)
    mismatches = report.mismatches()
    if mismatches:
        for line in mismatches:
            click.echo(f"mismatch: {line}", err=True)
        raise click.ClickException("the copy in etcd does not match the source (see the mismatches above)")


def _data_dir(source: str) -> Path:
    scheme, _, rest = source.partition(":")
    if scheme != "sqlite" or not rest:
        raise click.UsageError(f"--from {source!r}: give the API server's data directory as sqlite:DIR")
    path = Path(rest)
    if not path.is_dir():
        raise click.UsageError(f"--from {source!r}: {path} is not a directory")
    return path


def _etcd_settings(
    target: str, cafile: Path | None, certfile: Path | None, keyfile: Path | None, prefix: str
) -> EtcdSettings:
    """The etcd `--to` names; bare host:port members use https when TLS files are given."""
    from flotilla.apiserver.store.migration import EtcdSettings

    if not target.startswith("etcd://") and not target.startswith(("http://", "https://")):
        raise click.UsageError(f"--to {target!r}: give etcd members as etcd://HOST:PORT[,HOST:PORT]")
    check_tls_and_prefix(certfile, keyfile, prefix)
    scheme = "https" if cafile or certfile else "http"
    members = target.removeprefix("etcd://").split(",")
    urls = tuple(m.strip() if "://" in m else f"{scheme}://{m.strip()}" for m in members if m.strip())
    try:
        return EtcdSettings(urls, prefix=prefix, cafile=cafile, certfile=certfile, keyfile=keyfile)
    except ValueError as exc:
        raise click.UsageError(f"--to {target!r}: {exc}") from exc


def _print_report(report: MigrationReport, etcd: EtcdSettings, data_dir: Path) -> None:
    counts = report.source
    width = max((len(prefix) for prefix in counts.keys), default=8)
    click.echo(f"{'RESOURCE':<{width}}  {'SOURCE':>7}  {'TARGET':>7}")
    for prefix in sorted(counts.keys):
        copied = "-" if report.dry_run else str(report.target.keys[prefix])
        click.echo(f"{prefix:<{width}}  {counts.keys[prefix]:>7}  {copied:>7}")
    where = f"{','.join(etcd.endpoints)} under {etcd.prefix}"
    if report.dry_run:
        click.echo(f"dry run: {counts.total} keys would be copied to {where} (it is empty); nothing written")
    else:
        click.echo(f"copied {report.target.total} of {counts.total} keys to {where}")
        click.echo(
            f"next: flotilla apiserver --data-dir {data_dir} --etcd-servers {','.join(etcd.endpoints)} "
            f"--etcd-prefix {etcd.prefix} (and the --etcd-* TLS flags given here)"
        )
