"""Karmada's validation of its own kinds, as its validating webhook and Cluster registry apply it.

Runs after defaulting (so a PropagationPolicy's spread constraints already have a field and a
`minGroups`), beside the CRD schema, which checks types, enums, required fields and bounds. The
rules that need more than one field live here, one module per kind family:

- `policies`: a (Cluster)PropagationPolicy as a whole — preemption, suspension, conflict
  resolution, the scheduler it was created for;
- `placement`: where its replicas go — cluster affinities, spread constraints, replica
  scheduling, cluster tolerations — and failover;
- `overrides`: (Cluster)OverridePolicies — legacy and new forms are exclusive, JSON pointers,
  operators and their values;
- `bindings` and `works`: the sanity of what Karmada's controllers write;
- `clusters`: name, sync mode, endpoint and proxy URLs, taints, resource models;
- `taintpolicies`: ClusterTaintPolicies — NoExecute only where the API server allows it, taints
  unique and valid, condition tests well formed;
- `rebalancers`: WorkloadRebalancers — at least one workload, each named in full;
- `multiclusterservices`: MultiClusterServices — one immutable exposure type, valid unique ports,
  valid cluster names;
- `resourceregistries`: ResourceRegistries — target clusters as a placement's, resource selectors that
  name a group version and a kind, OpenSearch addresses that are URLs;
- `customizations`: ResourceInterpreterCustomizations — every Lua script compiles;
- `autoscalers`: FederatedHPAs (kube's HPA rules) and CronFederatedHPAs — targets, unique rule
  names, cron schedules, time zones, replicas or bounds per target;
- `interpreterwebhooks`: ResourceInterpreterWebhookConfigurations — Karmada's webhook rules;
- `federatedquotas`: FederatedResourceQuotas — quota resource lists, assignments within the overall;
- `fieldchecks`: what several of them share (enumerated fields, resource selectors).

Messages use Karmada's wording where it has one, at the most precise field path: Karmada reports
some problems at a parent with the whole struct as the value; we name the field itself. Enum and
required checks repeat the schema's on purpose, so the rules hold for objects that never went
through a schema; the API server reports each (type, field) once.

The per-kind entry points are re-exported here: built-in admission (`registry/karmada/rules.py`)
looks every kind's rules up as `validation.validate_<kind>` and `validation.validate_<kind>_update`.
"""

from flotilla.apiserver.registry.validation.karmada.autoscalers import (
    validate_cron_federated_hpa,
    validate_cron_federated_hpa_update,
    validate_federated_hpa,
    validate_federated_hpa_update,
)
from flotilla.apiserver.registry.validation.karmada.bindings import (
    validate_resource_binding,
    validate_resource_binding_update,
)
from flotilla.apiserver.registry.validation.karmada.clusters import validate_cluster, validate_cluster_update
from flotilla.apiserver.registry.validation.karmada.customizations import (
    validate_resource_interpreter_customization,
    validate_resource_interpreter_customization_update,
)
from flotilla.apiserver.registry.validation.karmada.federatedquotas import (
    validate_federated_resource_quota,
    validate_federated_resource_quota_update,
)
from flotilla.apiserver.registry.validation.karmada.interpreterwebhooks import (
    validate_resource_interpreter_webhook_configuration,
    validate_resource_interpreter_webhook_configuration_update,
)
from flotilla.apiserver.registry.validation.karmada.multiclusterservices import (
    validate_multi_cluster_service,
    validate_multi_cluster_service_update,
)
from flotilla.apiserver.registry.validation.karmada.overrides import (
    validate_override_policy,
    validate_override_policy_update,
)
from flotilla.apiserver.registry.validation.karmada.policies import (
    validate_cluster_propagation_policy,
    validate_cluster_propagation_policy_update,
    validate_propagation_policy,
    validate_propagation_policy_update,
)
from flotilla.apiserver.registry.validation.karmada.rebalancers import (
    validate_workload_rebalancer,
    validate_workload_rebalancer_update,
)
from flotilla.apiserver.registry.validation.karmada.resourceregistries import (
    validate_resource_registry,
    validate_resource_registry_update,
)
from flotilla.apiserver.registry.validation.karmada.taintpolicies import (
    validate_cluster_taint_policy,
    validate_cluster_taint_policy_update,
)
from flotilla.apiserver.registry.validation.karmada.works import validate_work, validate_work_update

__all__ = [
    "validate_cluster",
    "validate_cluster_propagation_policy",
    "validate_cluster_propagation_policy_update",
    "validate_cluster_taint_policy",
    "validate_cluster_taint_policy_update",
    "validate_cluster_update",
    "validate_cron_federated_hpa",
    "validate_cron_federated_hpa_update",
    "validate_federated_hpa",
    "validate_federated_hpa_update",
    "validate_federated_resource_quota",
    "validate_federated_resource_quota_update",
    "validate_multi_cluster_service",
    "validate_multi_cluster_service_update",
    "validate_override_policy",
    "validate_override_policy_update",
    "validate_propagation_policy",
    "validate_propagation_policy_update",
    "validate_resource_binding",
    "validate_resource_binding_update",
    "validate_resource_interpreter_customization",
    "validate_resource_interpreter_customization_update",
    "validate_resource_interpreter_webhook_configuration",
    "validate_resource_interpreter_webhook_configuration_update",
    "validate_resource_registry",
    "validate_resource_registry_update",
    "validate_work",
    "validate_work_update",
    "validate_workload_rebalancer",
    "validate_workload_rebalancer_update",
]
