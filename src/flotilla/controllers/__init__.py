"""The hub's controllers (`flotilla controller-manager`): Karmada's propagation pipeline.

Each controller is a client of the hub API — shared informers feed rate-limited work queues, level-
based reconcilers write back through the API — so the manager runs as its own process, against any
conformant API server. One package per controller area, one reconciler per file.
"""
