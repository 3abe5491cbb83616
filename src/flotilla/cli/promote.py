"""Placeholder for `flotilla promote` while it is being written; replaced by the real command."""

from __future__ import annotations

import click


@click.command(context_settings={"ignore_unknown_options": True})
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
def promote(args: tuple[str, ...]) -> None:
    """Adopt a resource that already runs in a member."""
    raise click.ClickException("flotilla promote is not available yet")
