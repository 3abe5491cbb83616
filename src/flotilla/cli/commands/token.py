"""`flotilla token create|list|delete`: the bootstrap tokens members register with (kubeadm's verbs).

`create` stores a new token Secret on the hub and prints the token (or, with
`--print-register-command`, the whole `flotilla register …` line, with the hub's address and the
hash of its CA taken from the hub kubeconfig). `list` prints kubeadm's table; `delete` takes the id
or the whole token. The token format and Secret layout are in `registration/tokens.py`.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import click

from flotilla.api.scheme import GroupVersionKind
from flotilla.cli.hub.connection import HubTarget, hub_options, run
from flotilla.cli.output.tabwriter import table
from flotilla.cli.registration.tokens import (
    DEFAULT_GROUP,
    SECRET_NAME_PREFIX,
    SECRET_NAMESPACE,
    TOKEN_LIST_HEADER,
    ca_cert_hash,
    generate_token,
    parse_duration,
    register_command,
    token_id_of,
    token_row,
    token_secret,
)

SECRET = GroupVersionKind("", "v1", "Secret")
FIELD_MANAGER = "flotilla-token"


@click.group()
def token() -> None:
    """Manage the bootstrap tokens members register with (`flotilla register`).

    \b
    Examples:
      flotilla token create --print-register-command    # run on the hub, then the printed line on the member
      flotilla token list
      flotilla token delete abcdef
    """


@token.command("create")
@hub_options
@click.option(
    "--ttl",
    default="24h",
    show_default=True,
    help="How long the token is valid (a duration: 30m, 24h, 1h30m; 0 for never).",
)
@click.option("--description", default="", help="A note shown by `token list`.")
@click.option(
    "--print-register-command",
    is_flag=True,
    help="Print the whole `flotilla register` command instead of only the token.",
)
def create(
    kubeconfig: Path | None, context: str | None, ttl: str, description: str, print_register_command: bool
) -> None:
    """Create a bootstrap token on the hub and print it.

    \b
    Examples:
      flotilla token create --ttl 2h --print-register-command
      flotilla token create --description "edge site 12"
    """
    try:
        lifetime = parse_duration(ttl)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--ttl") from exc
    if lifetime.total_seconds() < 0:
        raise click.BadParameter("must not be negative", param_hint="--ttl")
    target = HubTarget(kubeconfig, context)
    config = target.config()
    if print_register_command and not config.ca_pem:
        raise click.ClickException(
            "the hub kubeconfig has no certificate authority data, so the CA hash for "
            "--print-register-command is unknown; use a kubeconfig with certificate-authority(-data)"
        )
    new_token = generate_token()
    expiration = datetime.now(UTC) + lifetime if lifetime.total_seconds() > 0 else None
    secret = token_secret(new_token, expiration=expiration, description=description, groups=(DEFAULT_GROUP,))

    async def store() -> None:
        async with target.client(FIELD_MANAGER) as hub:
            await hub.create(secret)

    run(store())
    if print_register_command:
        assert config.ca_pem is not None
        click.echo(register_command(config.server, new_token, ca_cert_hash(config.ca_pem)))
    else:
        click.echo(str(new_token))


@token.command("list")
@hub_options
def list_tokens(kubeconfig: Path | None, context: str | None) -> None:
    """List the bootstrap tokens on the hub.

    \b
    Example:
      flotilla token list --kubeconfig .flotilla/hub.kubeconfig
    """
    target = HubTarget(kubeconfig, context)

    async def read() -> list[dict[str, object]]:
        async with target.client(FIELD_MANAGER) as hub:
            items, _ = await hub.list(SECRET, namespace=SECRET_NAMESPACE)
            return items

    now = datetime.now(UTC)
    rows = [row for row in (token_row(secret, now) for secret in run(read())) if row is not None]
    if not rows:
        click.echo("No bootstrap tokens found.", err=True)
        return
    click.echo("\n".join(table([TOKEN_LIST_HEADER, *sorted(rows)])))


@token.command("delete")
@hub_options
@click.argument("tokens", nargs=-1, required=True, metavar="ID|ID.SECRET...")
def delete(kubeconfig: Path | None, context: str | None, tokens: tuple[str, ...]) -> None:
    """Delete bootstrap tokens (by id, or the whole token) so they can no longer register anything.

    \b
    Example:
      flotilla token delete abcdef
    """
    try:
        token_ids = [token_id_of(text) for text in tokens]
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="ID|ID.SECRET") from exc
    target = HubTarget(kubeconfig, context)

    async def remove() -> list[str]:
        missing = []
        async with target.client(FIELD_MANAGER) as hub:
            for token_id in token_ids:
                if (
                    await hub.delete(SECRET, SECRET_NAME_PREFIX + token_id, namespace=SECRET_NAMESPACE)
                    is None
                ):
                    missing.append(token_id)
                else:
                    click.echo(f'bootstrap token "{token_id}" deleted')
        return missing

    missing = run(remove())
    if missing:
        raise click.ClickException(
            ", ".join(f'bootstrap token "{token_id}" not found' for token_id in missing)
        )
