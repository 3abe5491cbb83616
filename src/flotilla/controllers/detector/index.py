"""An index of propagation policies by what their selectors can select, kept from informer events.

Every template change asks "which policies could select this?". Scanning all policies of a
namespace makes that O(policies) per template, which a thousand one-workload policies turn into
the detector's main cost. The index files each parsed policy under the keys of its selectors —
`(namespace, apiVersion, kind, name)` for a selector with a name, `(namespace, apiVersion, kind)`
for one without — so the candidates of a template are two dictionary lookups away. Candidates
are then ranked by `matching` exactly as if every policy had been considered: a policy that is
not a candidate cannot select the template.

PropagationPolicies are filed under their own namespace (they select only there);
ClusterPropagationPolicies under no namespace (a selector's own `namespace` is checked by
`matching`). The index is a cache of the informer's store: the informer feeds it every addition,
update and deletion (relists included) before the controller reads it, and policies are parsed
into typed models once per version here rather than on every reconcile.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Generic, TypeVar

from flotilla.api.karmada.policy import ClusterPropagationPolicy, PropagationPolicy
from flotilla.api.objectkeys import ObjectKey
from flotilla.api.objects import metadata_of

IndexedPolicy = TypeVar("IndexedPolicy", PropagationPolicy, ClusterPropagationPolicy)

_NameKey = tuple[str, str, str, str]
_KindKey = tuple[str, str, str]


class PolicyIndex(Generic[IndexedPolicy]):
    """Policies of one kind, by the (namespace, apiVersion, kind[, name]) their selectors name."""

    def __init__(
        self, parse: Callable[[Mapping[str, Any]], IndexedPolicy | None], *, namespaced: bool
    ) -> None:
        self._parse: Callable[[Mapping[str, Any]], IndexedPolicy | None] = parse
        self._namespaced = namespaced
        self._policies: dict[ObjectKey, IndexedPolicy] = {}
        self._by_name: dict[_NameKey, dict[ObjectKey, IndexedPolicy]] = {}
        self._by_kind: dict[_KindKey, dict[ObjectKey, IndexedPolicy]] = {}

    def __len__(self) -> int:
        return len(self._policies)

    def _keys(self, policy: IndexedPolicy) -> tuple[list[_NameKey], list[_KindKey]]:
        namespace = (policy.metadata.namespace or "") if self._namespaced else ""
        by_name: list[_NameKey] = []
        by_kind: list[_KindKey] = []
        for selector in policy.spec.resource_selectors:
            if selector.name:
                by_name.append((namespace, selector.api_version, selector.kind, selector.name))
            else:
                by_kind.append((namespace, selector.api_version, selector.kind))
        return by_name, by_kind

    def upsert(self, obj: Mapping[str, Any]) -> None:
        """File the policy object (replacing its previous version); one that does not parse is dropped."""
        self.remove(obj)
        policy = self._parse(obj)
        if policy is None:
            return
        identity = ObjectKey.of(obj)
        self._policies[identity] = policy
        by_name, by_kind = self._keys(policy)
        for name_key in by_name:
            self._by_name.setdefault(name_key, {})[identity] = policy
        for kind_key in by_kind:
            self._by_kind.setdefault(kind_key, {})[identity] = policy

    def remove(self, obj: Mapping[str, Any]) -> None:
        """Forget the policy object, if filed."""
        identity = ObjectKey.of(obj)
        policy = self._policies.pop(identity, None)
        if policy is None:
            return
        by_name, by_kind = self._keys(policy)
        for name_key in by_name:
            bucket = self._by_name.get(name_key)
            if bucket is not None:
                bucket.pop(identity, None)
                if not bucket:
                    del self._by_name[name_key]
        for kind_key in by_kind:
            kind_bucket = self._by_kind.get(kind_key)
            if kind_bucket is not None:
                kind_bucket.pop(identity, None)
                if not kind_bucket:
                    del self._by_kind[kind_key]

    def candidates(self, template: Mapping[str, Any]) -> list[IndexedPolicy]:
        """Every policy with a selector of the template's apiVersion and kind that could select it."""
        metadata = metadata_of(template)
        namespace = str(metadata.get("namespace") or "") if self._namespaced else ""
        api_version, kind = str(template.get("apiVersion") or ""), str(template.get("kind") or "")
        found = dict(self._by_kind.get((namespace, api_version, kind), {}))
        found.update(self._by_name.get((namespace, api_version, kind, str(metadata.get("name") or "")), {}))
        return list(found.values())
