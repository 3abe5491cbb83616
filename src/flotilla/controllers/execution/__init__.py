"""Works → member clusters in Push mode (issue #5, step 5).

`ownership` decides conflicts, which member objects a Work delivered and what the member keeps;
`conditions` builds the Work's `Applied` and `Dispatching` conditions; `controller` applies the
manifests with server-side apply and cleans the members up when a Work goes.
"""
