"""Which objects are resource templates: what the detector propagates, and the CLI explains.

Every kind the hub serves can be a template, CRDs included. Like Karmada's detector, Flotilla's
never takes:

* the Karmada groups (`karmada.io`, `*.karmada.io`): policies, bindings, Works and Clusters are the
  machinery, not workloads;
* events (core `Event` and `events.k8s.io`) and leases (`coordination.k8s.io`): per-cluster noise.

Objects in reserved namespaces (`karmada-system`, `karmada-cluster`, `karmada-es-*`) and in
`kube-*` namespaces are never templates (Karmada's `--skipped-propagating-namespaces` default),
nor are the Namespace objects of those names.

The detector (`controllers/detector/watched.py`) applies the kind rule when it chooses what to
watch — besides `REQUIRED_VERBS` and one version per group and kind, which depend on discovery —
and the object rule to every event; `describe` and `plan` apply the same rules to say whether an
object may have a binding at all.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from flotilla.api.karmada.names import is_reserved_namespace

REQUIRED_VERBS = ("list", "watch", "delete")
"""What the detector needs of a resource to watch its objects as templates."""
SKIPPED_GROUP_SUFFIX = "karmada.io"
SKIPPED_GROUPS = frozenset({"events.k8s.io", "coordination.k8s.io"})
SKIPPED_KINDS = frozenset({("", "Event")})
SKIPPED_NAMESPACE_PREFIX = "kube-"
NAMESPACE_KIND = ("", "Namespace")


def is_karmada_group(group: str) -> bool:
    """One of Karmada's own API groups (`karmada.io` or a subgroup of it)."""
    return group == SKIPPED_GROUP_SUFFIX or group.endswith("." + SKIPPED_GROUP_SUFFIX)


def is_template_kind(group: str, kind: str) -> bool:
    """May objects of this group and kind be templates (not Karmada's machinery, events or leases)?"""
    return not (is_karmada_group(group) or group in SKIPPED_GROUPS or (group, kind) in SKIPPED_KINDS)


def skipped_namespace(namespace: str) -> bool:
    """Namespaces whose objects are never propagated: reserved ones and `kube-*`."""
    return is_reserved_namespace(namespace) or namespace.startswith(SKIPPED_NAMESPACE_PREFIX)


def is_template(obj: Mapping[str, Any]) -> bool:
    """May the object be propagated at all (not in, and not itself, a skipped namespace)?

    The kind rule is not checked here: the detector only sees objects of kinds it watches.
    """
    metadata = obj.get("metadata")
    if not isinstance(metadata, Mapping):
        metadata = {}
    if skipped_namespace(str(metadata.get("namespace") or "")):
        return False
    group = str(obj.get("apiVersion") or "").rpartition("/")[0]
    if (group, obj.get("kind")) == NAMESPACE_KIND:
        return not skipped_namespace(str(metadata.get("name") or ""))
    return True
