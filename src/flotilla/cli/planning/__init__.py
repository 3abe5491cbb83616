"""The parts of `flotilla plan` (placement preview) below its command.

`workloads` turns templates, policies, existing bindings and clusters into a plan per workload
(the detector's matching and binding, then the scheduler's preview, all pure), and `report` prints
the plans as text, YAML or JSON. For `plan --taint`, `taints` reads the what-if taints and lays them
on copies of the Clusters, `evictions` settles every binding with and without them (the taint
manager's decisions, then the scheduler's), and `taintreport` prints what they would move. The
command itself (`flotilla.cli.commands.plan`) is the I/O shell that reads the `-f` manifests (with
`flotilla.cli.arguments.manifests`, as `apply` does) and the hub.
"""
