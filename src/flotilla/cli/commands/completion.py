"""`flotilla completion SHELL`: print the shell completion script, as `kubectl completion` does.

Click completes commands, options and choices itself when the shell calls the program back with
`_FLOTILLA_COMPLETE` set; the script printed here is what makes the shell do that. The program name
is the one the user typed (`flotilla`, or `kubectl-flotilla` for the kubectl plugin).
"""

from __future__ import annotations

import click
from click.shell_completion import get_completion_class

SHELLS = ("bash", "zsh", "fish")


@click.command()
@click.argument("shell", type=click.Choice(SHELLS))
@click.pass_context
def completion(ctx: click.Context, shell: str) -> None:
    """Print the completion script for SHELL (bash, zsh or fish).

    \b
    Examples:
      source <(flotilla completion bash)                 # this shell only
      flotilla completion bash > ~/.local/share/bash-completion/completions/flotilla
      flotilla completion zsh > "${fpath[1]}/_flotilla"  # zsh
      flotilla completion fish > ~/.config/fish/completions/flotilla.fish
    """
    root = ctx.find_root()
    prog_name = (root.info_name or "flotilla").replace(" ", "-")  # `kubectl flotilla` → its script
    complete_var = "_{}_COMPLETE".format(prog_name.replace("-", "_").replace(".", "_").upper())
    completion_class = get_completion_class(shell)
    if completion_class is None:  # click knows every shell in SHELLS; kept for a clear message
        raise click.ClickException(f"completion for {shell} is not supported")
    click.echo(completion_class(root.command, {}, prog_name, complete_var).source())
