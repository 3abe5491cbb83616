"""Simulated member clusters: real API servers with simulated nodes, scheduler, kubelet and controllers.

kwok's model: each simulated cluster is a genuine Kubernetes API endpoint (our API server, its own
store, PKI and port); what a kubelet, kube-scheduler and kube-controller-manager would do is
simulated inside the same process through the in-process client, described as data where possible
(kubelet stages). Many clusters share one process and one event loop.

Its rooms, from the top down (import-linter checks the direction; `docs/design/layout.md` says why):
`host.py` (the `flotilla sim` process) and `config.py` (the cluster list); `cluster.py` (one member:
its API server and components); `controllers/` (the simulated kube-controller-manager, one room per
workload kind), `kubelet/` and `kubescheduler/` (the simulated kube-scheduler, not Karmada's
`flotilla.scheduler`); `nodes/`; `spec.py`. It takes from the API server only `server`, `embedded`,
`localclient` and `errors`; Kubernetes semantics come from `flotilla.api`.
"""
