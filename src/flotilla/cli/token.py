"""Placeholder for `flotilla token` while it is being written; replaced by the real command."""

from __future__ import annotations

import click


@click.command(context_settings={"ignore_unknown_options": True})
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
def token(args: tuple[str, ...]) -> None:
    """Manage bootstrap tokens for pull-mode registration."""
    raise click.ClickException("flotilla token is not available yet")
