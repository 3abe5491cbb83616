"""Resource metrics across members: the hub serves `metrics.k8s.io/v1beta1` as Karmada's metrics adapter.

A FederatedHPA, and a user's `kubectl top`, read pod and node usage from the hub as they would from
one cluster. Karmada answers through karmada-metrics-adapter, an aggregated API server that asks
every member's own `metrics.k8s.io` and merges the answers, each item annotated
`resource.karmada.io/query-from-cluster: <member>`. The hub's API server does the same itself: the
two resources are computed per request (`install.py`), the request's caller is authorized on the
hub by RBAC as for any resource (`get`/`list` on `pods.metrics.k8s.io` or `nodes.metrics.k8s.io`),
and the members are asked in parallel as the hub, through the hub's own cluster proxy, so Push and
Pull members alike, real or simulated (`members.py`); a member that is not Ready, does not answer in
time or fails is left out of the answer, never turned into an error (`merging.py`).
`docs/design/metrics.md` has the choices.
"""
