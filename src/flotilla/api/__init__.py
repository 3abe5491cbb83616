"""Kubernetes and Karmada API vocabulary as pure data: kinds, resources, selectors, and kube's shared rules.

Every layer may import this package and it imports none of them (import-linter: "The API package is
pure data"), so each Kubernetes rule more than one component needs lives here once: quantities,
timestamps, conditions, taints and tolerations, node affinity, label and field selectors. No I/O.
"""
