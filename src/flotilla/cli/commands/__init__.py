"""The verbs of `flotilla`, one module per verb (or per pair, as `up`/`down`, `join`/`unjoin`).

A command module holds what the user sees of its verb — its click options, its help and examples —
and the coroutine that runs it against the hub. What two verbs share, and what `up` runs, lives in
the rooms below (`hub`, `output`, `arguments`, `localhub`, `registration`, `membership`,
`propagation`, `planning`); a verb never imports another verb. `flotilla.cli.main` imports a
command module only when its verb runs, so each module imports its heavy dependencies inside the
command, not at the top.
"""
