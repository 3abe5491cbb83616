"""Placeholder for `flotilla apply` while it is being written; replaced by the real command."""

from __future__ import annotations

import click


@click.command(context_settings={"ignore_unknown_options": True})
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
def apply(args: tuple[str, ...]) -> None:
    """Apply manifests to the hub, optionally to all clusters."""
    raise click.ClickException("flotilla apply is not available yet")
