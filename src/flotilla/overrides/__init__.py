"""Per-cluster overrides: OverridePolicy and ClusterOverridePolicy applied to a manifest.

The binding controller renders one manifest per target cluster; before it goes into the cluster's
Work, every override rule that targets the manifest and the cluster is applied, so the copy in
`member-eu` can pull its images from a nearby registry, carry other labels or a different config
file. The pieces, all pure functions over plain JSON dicts:

- `policies`: which policies and rules apply, in Karmada's order, and the applied-overrides
  annotations (`apply_override_policies`);
- `overriders`: one rule's overriders applied in Karmada's fixed order (`apply_overriders`);
- `clusteraffinity`: whether a Cluster matches a rule's `targetCluster` (`cluster_matches`);
- `images`, `embedded`, `applied`, `gojson`: image references, JSON/YAML documents inside string
  fields, and the annotation text as Karmada's Go code writes it.
"""

from flotilla.overrides.applied import APPLIED_CLUSTER_OVERRIDES_ANNOTATION, APPLIED_OVERRIDES_ANNOTATION
from flotilla.overrides.clusteraffinity import cluster_matches
from flotilla.overrides.overriders import OverrideError, apply_overriders
from flotilla.overrides.policies import MatchedRule, OverrideResult, apply_override_policies, matching_rules

__all__ = [
    "APPLIED_CLUSTER_OVERRIDES_ANNOTATION",
    "APPLIED_OVERRIDES_ANNOTATION",
    "MatchedRule",
    "OverrideError",
    "OverrideResult",
    "apply_override_policies",
    "apply_overriders",
    "cluster_matches",
    "matching_rules",
]
