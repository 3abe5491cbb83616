"""`flotilla secrets`: the keys that encrypt Secrets (and the Works carrying them) at rest — rotate
one in, re-encrypt under it."""

from __future__ import annotations

import asyncio
from pathlib import Path

import click

from flotilla.cli.arguments.etcd import etcd_urls, tls_options

DATA_DIR = click.option(
    "--data-dir",
    type=click.Path(file_okay=False, exists=True, path_type=Path),
    required=True,
    help="The API server's data directory (its encryption-keys.yaml and store.db).",
)


@click.group()
def secrets() -> None:
    """Encryption of Secrets at rest: rotate the key and re-encrypt the stored Secrets and Works.

    \b
    Example — rotating a key (a running server picks up a new key when it restarts):
      flotilla secrets rotate-key --data-dir .flotilla/hub   # a new first key; the old ones still decrypt
      (stop the API server)
      flotilla secrets reencrypt --data-dir .flotilla/hub    # every Secret and Work under the new key
      (the old keys may now be deleted from encryption-keys.yaml; start the API server)
    """


@secrets.command("rotate-key")
@DATA_DIR
def rotate_key(data_dir: Path) -> None:
    """Put a new key first in DATA_DIR/encryption-keys.yaml (a running server uses it after a restart).

    \b
    Example:
      flotilla secrets rotate-key --data-dir .flotilla/hub
    """
    from flotilla.apiserver.store import encryption

    path = data_dir / encryption.ENCRYPTION_KEYS_FILE
    try:
        key = encryption.rotate_key(path)
    except encryption.EncryptionConfigError as exc:
        raise click.ClickException(str(exc)) from exc
    click.echo(f"added key {key.name!r} first in {path}; the API server encrypts with it from its next start")
    click.echo(f"then, with the server stopped: flotilla secrets reencrypt --data-dir {data_dir}")


@secrets.command("reencrypt")
@DATA_DIR
@click.option(
    "--etcd-servers",
    default="",
    help="The API server's --etcd-servers, when its store is on etcd (not DATA_DIR/store.db).",
)
@tls_options
@click.option("--etcd-prefix", default="/registry", show_default=True, help="The API server's --etcd-prefix.")
def reencrypt(
    data_dir: Path,
    etcd_servers: str,
    etcd_cafile: Path | None,
    etcd_certfile: Path | None,
    etcd_keyfile: Path | None,
    etcd_prefix: str,
) -> None:
    """Rewrite every stored Secret and Work under the first key (offline: the API server must be stopped).

    Works are encrypted too: a Work propagating a Secret to a member cluster holds its data.

    Older versions of every object are compacted away and the store is vacuumed, so afterwards only
    the first key is needed to read the Secrets. Clients watching from before get 410 and relist.

    On etcd (every API server of the hub stopped, or restarted with the new key first), the
    compaction is etcd's: it covers every prefix of that etcd.

    \b
    Example:
      flotilla secrets reencrypt --data-dir .flotilla/hub
      flotilla secrets reencrypt --data-dir hub --etcd-servers https://10.0.0.1:2379 \\
        --etcd-cafile etcd/ca.crt --etcd-certfile etcd/client.crt --etcd-keyfile etcd/client.key
    """
    from flotilla.apiserver.store import encryption, migration

    urls = etcd_urls(etcd_servers, etcd_cafile, etcd_certfile, etcd_keyfile, etcd_prefix)
    try:
        etcd = (
            None
            if urls is None
            else migration.EtcdSettings(
                urls, prefix=etcd_prefix, cafile=etcd_cafile, certfile=etcd_certfile, keyfile=etcd_keyfile
            )
        )
    except ValueError as exc:
        raise click.UsageError(f"--etcd-servers: {exc}") from exc
    try:
        result = asyncio.run(encryption.reencrypt_offline(data_dir, etcd))
    except (encryption.EncryptionConfigError, encryption.StoreInUseError, encryption.DecryptionError) as exc:
        raise click.ClickException(str(exc)) from exc
    except migration.StorageError as exc:
        raise click.ClickException(f"etcd at {etcd_servers}: {exc}") from exc
    rewritten = result.rewritten
    click.echo(
        f"{rewritten[encryption.SECRETS_PREFIX]} of {result.secrets} Secrets and "
        f"{rewritten[encryption.WORKS_PREFIX]} of {result.works} Works re-encrypted; "
        f"all are now under key {result.key!r}"
    )
