"""What the CLI writes on the hub so that objects propagate to members.

`applier` is how `flotilla apply` writes each manifest (server-side apply, kubectl's outcome words);
`policies` the PropagationPolicies that `apply --all-clusters` and `promote` write for the user;
`promotion` the template `promote` puts on the hub for an object that already runs in a member.
"""
