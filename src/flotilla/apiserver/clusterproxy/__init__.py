"""The cluster proxy: `clusters/{name}/proxy/{path}` forwards a hub user's request to a member.

An operator reads a member's pods through the hub without collecting member kubeconfigs, and
`flotilla get --operation-scope members` reaches every member the same way. As in Karmada, the hub
authorizes `clusters/proxy` for the user (RBAC), then sends the request to the member with the
member credential the Cluster names and the user's identity impersonated (`Impersonate-User` and
`Impersonate-Group`), so the member's own RBAC decides what that user may do there. A Push member
is dialled at its `spec.apiEndpoint`; a Pull member behind NAT is reached through the tunnel its
agent holds open to the hub (`clusters/{name}/tunnel`, a WebSocket carrying many proxied requests,
as Clusternet's agents do). Bodies stream both ways, so watches work through the proxy; exec, attach
and port-forward pass as WebSockets relayed message by message (`upgrades.py`).
"""
