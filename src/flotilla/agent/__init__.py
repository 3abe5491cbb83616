"""The Pull-mode agent: runs beside one member cluster and dials out to the hub.

A member behind NAT or a firewall cannot be reached by the hub, so Karmada's Pull mode puts an agent
inside it. The agent holds a client certificate for its cluster's identity alone
(`system:karmada:agent:<cluster>`), watches only its execution namespace `karmada-es-<cluster>` and
its own Cluster on the hub, and runs for that one cluster the same controllers the controller
manager runs for Push clusters — execution (Works → member objects), work status (member objects'
status → Works) and the cluster status collection — with the member reached through the agent's
own kubeconfig. It renews its Lease `karmada-cluster/<cluster>` so the hub knows it is alive, and
renews its certificate before it expires.

Modules: `datadir.py` (what `flotilla register` leaves for the agent), `certificates.py` (pure:
certificate lifetimes, requests, kubeconfig rewriting), `renewal.py` (the CSR round trip),
`lease.py` (the heartbeat), `clusterstatus.py` (its Cluster's status), `session.py` (everything
that talks to the hub with one certificate) and `agent.py` (the component: sessions, one after the
other as the certificate is renewed).
"""
