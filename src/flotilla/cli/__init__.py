"""The `flotilla` command: thin wrappers that start components and call the API.

`main` is the entry point and loads each verb only when it runs; `commands` holds the verbs (one
module each) and `components` the commands that run a component in the foreground. Below them, one
room per family of verbs — `localhub` (`up`/`down`), `registration` (`token`, `register`,
`accept`), `planning` (`plan`), `propagation` (`apply`, `promote`) — then what several families
share: `membership`, `hub`, and at the bottom `output` and `arguments`. docs/design/layout.md says
which room may import which; import-linter checks it.
"""
