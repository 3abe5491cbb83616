"""The machinery of `flotilla up` and `flotilla down`: a local hub with simulated members.

`supervisor` runs it — starts the API server, the sim and the controller manager as child
processes, joins the members, waits until they are Ready and restarts what dies. Below it: `state`
(the record in `DIR/up.json` and its lock), `processes` (children, logs, leftovers), `restarts`
(when a death is a crash loop), `members` (which members and their placement labels), `clusters`
(joining them on the hub and waiting for Ready), `guide` (what the user is told at the end),
`stopping` (how `flotilla down` stops a running `up` and what it left), and for `up --ha`
`topology` (how many etcd members and API servers), `etcdcluster` (the etcd members' command
lines) and `replicas` (what the API servers after the first share with it).
"""
