"""Controllers that run inside the API server, because the API itself depends on them.

kube-apiserver establishes CRDs itself, and every cluster runs a namespace controller and a
garbage collector; a Flotilla API server — hub or simulated member — works alone, so it runs all
three, plus the bootstrap of the default namespaces and of the RBAC policy, ClusterRole aggregation,
Event expiry, the bootstrap-token cleaner and cluster-info signer, and the install of Karmada's
CRDs on a hub. They use the same write pipeline as HTTP requests (through `LocalClient`) and are
level-based: each reconcile re-reads the current object from the cache. `embedded.py` runs them.
(The multi-cluster controllers are another thing: `flotilla.controllers`, a client of the hub.)
"""
