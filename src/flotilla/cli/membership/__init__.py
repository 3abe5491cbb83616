"""Which member clusters the hub has and how it treats them, as the CLI changes it.

`joining` registers a member in Push mode (its credentials Secret and its `Cluster`) and removes it
again — `flotilla join` / `unjoin`, and what `flotilla up` does for its simulated members; `taints`
computes the new taints of `cordon`, `uncordon` and `taint`.
"""
