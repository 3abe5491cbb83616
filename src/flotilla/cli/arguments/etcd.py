"""The etcd client flags a command takes, read once: its members, TLS files and key prefix.

`flotilla apiserver` (keep the store on etcd), `flotilla store migrate` (copy a store into etcd)
and `flotilla secrets reencrypt` (rewrite the Secrets where they are stored) name an etcd the same
way: `tls_options` adds the three TLS flags to a command, `check_tls_and_prefix` refuses what no
etcd client can use, and `etcd_urls` reads `--etcd-servers` with them. Each command then builds the store's
settings itself (this layer may not import the API server).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

F = TypeVar("F", bound=Callable[..., Any])

TLS_FILE = click.Path(dir_okay=False, exists=True, path_type=Path)


def tls_options(command: F) -> F:
    """Add --etcd-cafile, --etcd-certfile and --etcd-keyfile to `command`."""
    for option in (
        click.option("--etcd-keyfile", type=TLS_FILE, default=None, help="Private key of --etcd-certfile."),
        click.option(
            "--etcd-certfile", type=TLS_FILE, default=None, help="Client certificate presented to etcd."
        ),
        click.option(
            "--etcd-cafile",
            type=TLS_FILE,
            default=None,
            help="CA bundle that etcd's serving certificates chain to.",
        ),
    ):
        command = option(command)
    return command


def etcd_urls(
    servers: str, cafile: Path | None, certfile: Path | None, keyfile: Path | None, prefix: str
) -> tuple[str, ...] | None:
    """The URLs of --etcd-servers once the flags pass `check_tls_and_prefix`; None without it (the
    store is SQLite in the data directory), where TLS files are refused as meaningless."""
    if not servers.strip():
        if cafile or certfile or keyfile:
            raise click.UsageError("--etcd-cafile, --etcd-certfile and --etcd-keyfile need --etcd-servers")
        return None
    check_tls_and_prefix(certfile, keyfile, prefix)
    return tuple(url.strip() for url in servers.split(",") if url.strip())


def check_tls_and_prefix(certfile: Path | None, keyfile: Path | None, prefix: str) -> None:
    """Refuse a client certificate without its key (or the reverse) and a prefix not under `/`."""
    if (certfile is None) != (keyfile is None):
        raise click.UsageError("--etcd-certfile and --etcd-keyfile go together: give both or neither")
    if not prefix.startswith("/"):
        raise click.UsageError(f"--etcd-prefix {prefix!r} must start with '/'")
