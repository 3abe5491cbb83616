"""A binding's placement (`spec.placement`) as frozen records, read with Karmada's defaults.

The placement says where a workload may go (`clusterAffinity`, or ordered `clusterAffinities`
terms with their `overflowAffinities`), which taints it tolerates, how it spreads, and how its
replicas are divided. Defaults are applied once, here, as Karmada's CRD and webhook defaults would
have: a present `replicaScheduling` without a type is `Divided`, `Divided` without a preference is
`Weighted`, and a spread constraint without a field or label spreads by `cluster` with
`minGroups` 1. An invalid label selector selects no cluster, as Karmada's matching treats it.
Fields the scheduler does not read are kept as canonical JSON in `other`, so comparing two
placements (has it changed since it was scheduled?) still sees them.
"""

from __future__ import annotations

import enum
import functools
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import orjson

from flotilla.api.nodeaffinity import requirements_selector
from flotilla.api.selectors import NOTHING, LabelSelector, SelectorError, label_selector_from_object
from flotilla.api.tolerations import Toleration, tolerations_of
from flotilla.scheduler.core.wirefields import integer_of, mapping_of, mappings_of, strings_of, text_of

DYNAMIC_WEIGHT_BY_AVAILABLE_REPLICAS = "AvailableReplicas"


class SchedulingType(enum.StrEnum):
    DUPLICATED = "Duplicated"
    DIVIDED = "Divided"


class DivisionPreference(enum.StrEnum):
    AGGREGATED = "Aggregated"
    WEIGHTED = "Weighted"


class Strategy(enum.StrEnum):
    """How replicas are assigned, derived from `replicaScheduling` (Karmada's strategy types)."""

    DUPLICATED = "Duplicated"
    STATIC_WEIGHT = "StaticWeight"
    DYNAMIC_WEIGHT = "DynamicWeight"
    AGGREGATED = "Aggregated"


@dataclass(frozen=True, slots=True)
class FieldRequirement:
    """One `fieldSelector.matchExpressions` entry: key provider, region or zone.

    Except for `zone`, it is a node selector requirement on the cluster's field, built once into a
    label selector as Karmada builds it (`flotilla.api.nodeaffinity`); one kube would refuse
    matches nothing."""

    key: str
    operator: str
    values: tuple[str, ...] = ()
    _selector: LabelSelector | None = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        expression = {"key": self.key, "operator": self.operator, "values": list(self.values)}
        object.__setattr__(self, "_selector", requirements_selector([expression]))

    def matches(self, value: str) -> bool:
        """Whether a cluster whose field holds `value` ("" when it has none) meets the requirement."""
        return self._selector is not None and self._selector.matches({self.key: value} if value else {})


@dataclass(frozen=True, slots=True)
class ClusterAffinity:
    """Which clusters a placement (or a static weight rule) means; all empty means every cluster."""

    label_selector: LabelSelector | None = None
    field_selector: tuple[FieldRequirement, ...] = ()
    cluster_names: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class OverflowAffinity:
    name: str
    affinity: ClusterAffinity


@dataclass(frozen=True, slots=True)
class ClusterAffinityTerm:
    """One ordered `clusterAffinities` group, with the overflow tiers that extend it."""

    name: str
    affinity: ClusterAffinity
    overflow: tuple[OverflowAffinity, ...] = ()


@dataclass(frozen=True, slots=True)
class SpreadConstraint:
    spread_by_field: str = ""
    spread_by_label: str = ""
    max_groups: int = 0
    min_groups: int = 1


@dataclass(frozen=True, slots=True)
class StaticClusterWeight:
    target_cluster: ClusterAffinity
    weight: int


@dataclass(frozen=True, slots=True)
class WeightPreference:
    static_weight_list: tuple[StaticClusterWeight, ...] = ()
    dynamic_weight: str = ""


@dataclass(frozen=True, slots=True)
class ReplicaScheduling:
    scheduling_type: SchedulingType = SchedulingType.DIVIDED
    division_preference: DivisionPreference = DivisionPreference.WEIGHTED
    weight_preference: WeightPreference | None = None


@dataclass(frozen=True, slots=True)
class Placement:
    """A binding's `spec.placement`. `other` keeps the fields the core does not read, for equality."""

    cluster_affinity: ClusterAffinity | None = None
    cluster_affinities: tuple[ClusterAffinityTerm, ...] = ()
    cluster_tolerations: tuple[Toleration, ...] = ()
    spread_constraints: tuple[SpreadConstraint, ...] = ()
    replica_scheduling: ReplicaScheduling | None = None
    other: str = ""

    @property
    def scheduling_type(self) -> SchedulingType:
        if self.replica_scheduling is None:
            return SchedulingType.DUPLICATED
        return self.replica_scheduling.scheduling_type

    @property
    def strategy(self) -> Strategy:
        scheduling = self.replica_scheduling
        if scheduling is None or scheduling.scheduling_type == SchedulingType.DUPLICATED:
            return Strategy.DUPLICATED
        if scheduling.division_preference == DivisionPreference.AGGREGATED:
            return Strategy.AGGREGATED
        preference = scheduling.weight_preference
        if preference is not None and preference.dynamic_weight:
            return Strategy.DYNAMIC_WEIGHT
        return Strategy.STATIC_WEIGHT


def placement_from_object(placement: object) -> Placement:
    """A `Placement` from its JSON form, with Karmada's defaults applied.

    Placements repeat — every binding of a policy carries the policy's — and a `Placement` is
    immutable, so the reading of each distinct JSON text is remembered (a binding is read on every
    round and every Cluster change)."""
    try:
        text = orjson.dumps(placement)
    except TypeError:  # not plain JSON (a Mapping of another type): read it as it is
        return _read_placement(placement)
    return _placement_of_text(text)


@functools.lru_cache(maxsize=1024)
def _placement_of_text(text: bytes) -> Placement:
    return _read_placement(orjson.loads(text))


def _read_placement(placement: object) -> Placement:
    raw = mapping_of(placement)
    affinity = raw.get("clusterAffinity")
    known = {
        "clusterAffinity",
        "clusterAffinities",
        "clusterTolerations",
        "spreadConstraints",
        "replicaScheduling",
    }
    other = {key: value for key, value in raw.items() if key not in known and value not in (None, {}, [])}
    return Placement(
        cluster_affinity=cluster_affinity_from_object(affinity) if isinstance(affinity, Mapping) else None,
        cluster_affinities=tuple(
            ClusterAffinityTerm(
                name=text_of(term.get("affinityName")),
                affinity=cluster_affinity_from_object(term),
                overflow=tuple(
                    OverflowAffinity(text_of(tier.get("affinityName")), cluster_affinity_from_object(tier))
                    for tier in mappings_of(term.get("overflowAffinities"))
                ),
            )
            for term in mappings_of(raw.get("clusterAffinities"))
        ),
        cluster_tolerations=tolerations_of(raw.get("clusterTolerations")),
        spread_constraints=tuple(
            _spread_constraint(item) for item in mappings_of(raw.get("spreadConstraints"))
        ),
        replica_scheduling=_replica_scheduling(raw.get("replicaScheduling")),
        other=json.dumps(other, sort_keys=True) if other else "",
    )


def cluster_affinity_from_object(affinity: Mapping[str, Any]) -> ClusterAffinity:
    """A `ClusterAffinity`; an invalid label selector selects no cluster, as Karmada's matching does."""
    selector_object = affinity.get("labelSelector")
    label_selector: LabelSelector | None = None
    if isinstance(selector_object, Mapping):
        try:
            label_selector = label_selector_from_object(selector_object)
        except SelectorError:
            label_selector = NOTHING
    field_selector = mapping_of(affinity.get("fieldSelector"))
    return ClusterAffinity(
        label_selector=label_selector,
        field_selector=tuple(
            FieldRequirement(
                text_of(expression.get("key")),
                text_of(expression.get("operator")),
                tuple(strings_of(expression.get("values"))),
            )
            for expression in mappings_of(field_selector.get("matchExpressions"))
        ),
        cluster_names=tuple(strings_of(affinity.get("clusterNames"))),
        exclude=tuple(strings_of(affinity.get("exclude"))),
    )


def _spread_constraint(item: Mapping[str, Any]) -> SpreadConstraint:
    by_field = text_of(item.get("spreadByField"))
    by_label = text_of(item.get("spreadByLabel"))
    if not by_field and not by_label:
        by_field = "cluster"
    min_groups = item.get("minGroups")
    return SpreadConstraint(
        spread_by_field=by_field,
        spread_by_label=by_label,
        max_groups=integer_of(item.get("maxGroups")),
        min_groups=1 if min_groups is None else integer_of(min_groups),
    )


def _replica_scheduling(value: object) -> ReplicaScheduling | None:
    if not isinstance(value, Mapping):
        return None
    scheduling_type = SchedulingType.DIVIDED
    if value.get("replicaSchedulingType") == SchedulingType.DUPLICATED:
        scheduling_type = SchedulingType.DUPLICATED
    preference = DivisionPreference.WEIGHTED
    if value.get("replicaDivisionPreference") == DivisionPreference.AGGREGATED:
        preference = DivisionPreference.AGGREGATED
    weights = value.get("weightPreference")
    weight_preference = None
    if isinstance(weights, Mapping):
        weight_preference = WeightPreference(
            static_weight_list=tuple(
                StaticClusterWeight(
                    cluster_affinity_from_object(mapping_of(rule.get("targetCluster"))),
                    integer_of(rule.get("weight")),
                )
                for rule in mappings_of(weights.get("staticWeightList"))
            ),
            dynamic_weight=text_of(weights.get("dynamicWeight")),
        )
    return ReplicaScheduling(scheduling_type, preference, weight_preference)
