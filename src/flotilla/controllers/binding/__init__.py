"""Bindings → Works: each scheduled binding rendered once per target cluster (issue #5, step 4).

`render` turns a template into one cluster's manifest (pure), `works` builds and compares Work
objects and indexes them by binding, `triggers` says which watched changes matter, and
`controller` is the reconciler that reads informers and writes Works.
"""
