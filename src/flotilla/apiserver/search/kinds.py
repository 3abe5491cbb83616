"""What the search cache knows of a cached kind: its names, its scope and its selectable fields."""

from __future__ import annotations

from dataclasses import dataclass

from flotilla.api.scheme import GroupVersion, GroupVersionKind


@dataclass(frozen=True, slots=True)
class CachedKind:
    """One resource of one group version, as the members' discovery and the hub's registry describe it.

    `field_labels` are the field selector labels the kind accepts beyond `metadata.name` and
    `metadata.namespace` (a pod's `spec.nodeName`, `status.phase`...), taken from the hub's registry
    when it serves the kind; `custom` says whether they are read as a custom resource's are (at their
    dotted path), and whether a field selector naming anything else is refused in kube's per-kind
    words rather than in the words of its default conversion.
    """

    group: str
    version: str
    kind: str
    plural: str
    namespaced: bool
    field_labels: tuple[str, ...] = ()
    custom: bool = False

    @property
    def api_version(self) -> str:
        return GroupVersion(self.group, self.version).api_version

    @property
    def gvk(self) -> GroupVersionKind:
        return GroupVersionKind(self.group, self.version, self.kind)

    @property
    def list_kind(self) -> str:
        return f"{self.kind}List"

    def key(self, namespace: str, name: str) -> str:
        """Where an object sits in one cluster's objects of the kind: `namespace/name`, or the name."""
        return f"{namespace}/{name}" if self.namespaced else name


def split_key(key: str) -> tuple[str, str]:
    """(namespace, name) of a key made by `CachedKind.key` (no namespace for a cluster-scoped one)."""
    namespace, _, name = key.rpartition("/")
    return namespace, name
