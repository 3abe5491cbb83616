"""Which changes of watched objects can change the Works a binding renders.

The binding controller's informers see every write to bindings, templates and clusters, most of
which cannot change a Work: the binding-status controller writes the status of bindings and
templates many times per rollout, and the cluster controller refreshes every Cluster's status
every few seconds. These predicates let only the changes that matter enqueue a binding.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from flotilla.api.objects import metadata_of

RENDERED_METADATA = ("labels", "annotations", "uid", "generation", "deletionTimestamp", "finalizers")
"""Template metadata that reaches the rendered manifests (or ends the binding)."""


def template_changed(old: Mapping[str, Any], new: Mapping[str, Any]) -> bool:
    """Whether anything but the status (and bookkeeping: resourceVersion, managedFields) changed."""
    if any(old.get(key) != new.get(key) for key in {*old, *new} - {"status", "metadata"}):
        return True
    old_metadata, new_metadata = metadata_of(old), metadata_of(new)
    return any(old_metadata.get(key) != new_metadata.get(key) for key in RENDERED_METADATA)


def binding_changed(old: Mapping[str, Any], new: Mapping[str, Any]) -> bool:
    """Whether the spec, labels, finalizers or deletion of a binding changed (its status does not count)."""
    if old.get("spec") != new.get("spec"):
        return True
    old_metadata, new_metadata = metadata_of(old), metadata_of(new)
    return any(
        old_metadata.get(key) != new_metadata.get(key)
        for key in ("labels", "finalizers", "deletionTimestamp")
    )


def work_spec_changed(old: Mapping[str, Any], new: Mapping[str, Any]) -> bool:
    """Whether someone changed what the binding controller owns on a Work (not its status)."""
    if old.get("spec") != new.get("spec"):
        return True
    old_metadata, new_metadata = metadata_of(old), metadata_of(new)
    return any(old_metadata.get(key) != new_metadata.get(key) for key in ("labels", "annotations"))


def cluster_identity_changed(old: Mapping[str, Any], new: Mapping[str, Any]) -> bool:
    """Whether what override rules match on (labels, provider, region, zones) changed."""
    if metadata_of(old).get("labels") != metadata_of(new).get("labels"):
        return True
    return old.get("spec") != new.get("spec")
