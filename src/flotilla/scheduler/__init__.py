"""Karmada-compatible scheduling of ResourceBindings onto member clusters.

`framework` defines plugins and their registry, `plugins/` holds the in-tree plugins (one module
each), and `core/` is the pure decision: filter → score → select → divide replicas, with no I/O.
The controller that reads bindings and clusters and writes results sits on top of these.
"""
