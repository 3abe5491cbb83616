"""policy.karmada.io/v1alpha1 ClusterTaintPolicy: which taints a Cluster gets while its conditions say so.

Karmada v1.14 stopped tainting unhealthy clusters NoExecute by itself; instead an administrator
states the rule: for the clusters `targetClusters` selects (none: every cluster), add `taints`
while every `addOnConditions` test holds on the Cluster's `status.conditions`, and remove them
while every `removeOnConditions` test holds. A test is `{conditionType, operator In|NotIn,
statusValues}`; an empty list of tests never fires. Add is evaluated before remove, and taints are
never removed because a policy was deleted or stopped selecting a cluster.

`conditions_match` is Karmada's `conditionMatches`, the one rule the kind defines on its own; the
controller (`flotilla.controllers.clustertaint`) applies it. Field names and JSON keys are
Karmada's (`pkg/apis/policy/v1alpha1/clustertaint_types.go`).
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import Field

from flotilla.api.karmada import constants
from flotilla.api.karmada.constants import MatchConditionOperator
from flotilla.api.karmada.model import Condition, KarmadaModel, ObjectMeta, Taint
from flotilla.api.karmada.policy import ClusterAffinity


class MatchCondition(KarmadaModel):
    """A test of one Cluster condition: its status is (`In`) or is not (`NotIn`) one of the values."""

    condition_type: str = ""
    operator: str = ""
    """`In` or `NotIn` (`constants.MatchConditionOperator`)."""
    status_values: list[str] = Field(default_factory=list)

    def holds(self, conditions: Sequence[Condition]) -> bool:
        """Whether the test passes on a Cluster's conditions.

        A cluster without a condition of that type fails both `In` and `NotIn` (Karmada's loop
        over conditions finds nothing to match), and an unknown operator never passes.
        """
        found = [c for c in conditions if c.type == self.condition_type]
        if not found:
            return False
        status = found[-1].status  # as Karmada's loop, the last one of a (malformed) repeated type
        if self.operator == MatchConditionOperator.IN:
            return status in self.status_values
        if self.operator == MatchConditionOperator.NOT_IN:
            return status not in self.status_values
        return False


def conditions_match(conditions: Sequence[Condition], tests: Sequence[MatchCondition]) -> bool:
    """Whether every test holds (ANDed); an empty list of tests never matches."""
    return bool(tests) and all(test.holds(conditions) for test in tests)


class PolicyTaint(KarmadaModel):
    """A taint a policy adds or removes (no `timeAdded`: the controller stamps it when it adds)."""

    key: str = ""
    effect: str = ""
    value: str | None = None

    def as_cluster_taint(self) -> Taint:
        return Taint(key=self.key, effect=self.effect, value=self.value or None)


class ClusterTaintPolicySpec(KarmadaModel):
    target_clusters: ClusterAffinity | None = None
    """None: every cluster."""
    add_on_conditions: list[MatchCondition] = Field(default_factory=list)
    remove_on_conditions: list[MatchCondition] = Field(default_factory=list)
    taints: list[PolicyTaint] = Field(default_factory=list)


class ClusterTaintPolicy(KarmadaModel):
    api_version: str = constants.CLUSTER_TAINT_POLICY.api_version
    kind: str = constants.CLUSTER_TAINT_POLICY.kind
    metadata: ObjectMeta = Field(default_factory=ObjectMeta)
    spec: ClusterTaintPolicySpec = Field(default_factory=ClusterTaintPolicySpec)

    @property
    def cluster_taints(self) -> list[Taint]:
        """The policy's taints as a Cluster carries them."""
        return [taint.as_cluster_taint() for taint in self.spec.taints]
