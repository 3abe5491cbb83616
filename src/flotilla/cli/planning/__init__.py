"""The parts of `flotilla plan` (placement preview) below its command.

`workloads` turns templates, policies, existing bindings and clusters into a plan per workload
(the detector's matching and binding, then the scheduler's preview, all pure), and `report` prints
the plans as text, YAML or JSON. The command itself (`flotilla.cli.commands.plan`) is the I/O shell that
reads the `-f` manifests (with `flotilla.cli.arguments.manifests`, as `apply` does) and the hub.
"""
