"""How `flotilla down` stops what `flotilla up` started in a data dir, from another terminal.

The running `up` is asked first (SIGTERM): it stops its own components in order — the controller
manager, then the sim and the API servers, then the etcd members of `up --ha` — and clears them
from `DIR/up.json`. Whatever is still recorded there afterwards (the components of an `up` that was
killed) is stopped directly, clients before servers as `up` does. Only processes whose command line
names the data dir are signalled, so a recycled pid is never hit.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from flotilla.cli.localhub.guide import shown
from flotilla.cli.localhub.processes import alive, belongs_to, terminate
from flotilla.cli.localhub.state import UpState, read_state, stop_order, up_is_running, write_state


async def stop_up(data_dir: Path, state: UpState, grace: float, say: Callable[[str], None]) -> list[str]:
    """Stop the running `up` (it stops its components), then whatever it left; the roles that were running."""
    running = {name: pid for name, pid in state.components.items() if belongs_to(pid, data_dir)}
    stopped: list[str] = []
    if state.up_pid is not None and up_is_running(data_dir) and alive(state.up_pid):
        say(f"Stopping flotilla up (pid {state.up_pid}) in {shown(data_dir, Path.cwd())} …")
        # `up` stops its components batch after batch (`stop_order`), each batch within `grace`.
        await terminate({"up": state.up_pid}, len(stop_order(state.components)) * grace + 5)
        stopped.append("up")
        state = read_state(data_dir) or state
    leftovers = {name: pid for name, pid in state.components.items() if belongs_to(pid, data_dir)}
    # Clients before servers, as `up` itself stops them.
    for batch in stop_order(leftovers):
        await terminate({name: leftovers[name] for name in batch}, grace)
    stopped += [name for name in running if not alive(running[name])]
    write_state(data_dir, replace(state, up_pid=None, components={}))
    return stopped
