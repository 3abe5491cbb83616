"""The commands that run one component in the foreground: `apiserver`, `controller-manager`, `sim`, `agent`.

Each module turns its command line into the component's settings, starts it, and stops it cleanly on
SIGTERM or Ctrl-C (`foreground`; the controller manager runs its own loop, since it also ends when
it loses its leader Lease), logging one key=value line per event (`logging`). `flotilla up` and
`flotilla register` run these commands as processes of their own, never in-process, so the
components do not import each other and no verb imports them.
"""
