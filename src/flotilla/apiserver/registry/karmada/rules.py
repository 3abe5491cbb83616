"""Built-in admission for the Karmada kinds: what the API server does to custom resources of their GVKs.

Karmada ships a mutating and a validating webhook for its kinds; a Flotilla hub has them built in,
so `kubectl apply` of a policy gets Karmada's defaults and a 422 with field causes for Karmada's
rules, with no webhook server to run. The write strategy (`flotilla.apiserver.registry.strategy`) looks a
custom resource's GVK up in `CUSTOM_RESOURCE_RULES`, and calls, on top of the schema's work:

* `default(obj)` on every write (idempotent);
* `prepare_create(obj, now)` once, when the object is created (permanent ids, resource models, a
  propagation policy's `karmada.io/(cluster-)propagation-policy-controller` finalizer);
* `prepare_update(new, old, now)` on every update (permanent ids kept, taints stamped);
* `validate_create(obj)` / `validate_update(new, old)` after defaulting.

The rules apply to these GVKs whoever defined the CRD: the hub's own install or a user's copy of
Karmada's CRDs on a `--no-karmada` server.

Karmada's webhook takes one flag that changes a rule, `--allow-no-execute-taint-policy`; here it
is the API server's setting of the same name, so the table is built per server
(`custom_resource_rules`); `CUSTOM_RESOURCE_RULES` is the table under the default settings.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from functools import partial
from typing import Any

from flotilla.api.fielderrors import FieldError
from flotilla.api.karmada import constants
from flotilla.api.karmada.autoscaling import CRON_FEDERATED_HPA, FEDERATED_HPA
from flotilla.api.karmada.config import (
    RESOURCE_INTERPRETER_CUSTOMIZATION,
    RESOURCE_INTERPRETER_WEBHOOK_CONFIGURATION,
)
from flotilla.api.karmada.federatedquota import FEDERATED_RESOURCE_QUOTA
from flotilla.api.karmada.search import RESOURCE_REGISTRY
from flotilla.api.scheme import GroupVersionKind
from flotilla.apiserver.registry.defaults import karmada as defaults
from flotilla.apiserver.registry.defaults.autoscaling import default_horizontal_pod_autoscaler
from flotilla.apiserver.registry.validation import karmada as validation

Object = dict[str, Any]


def _no_default(obj: Object) -> None:
    """Nothing to default."""


def _no_preparation(obj: Object, now: datetime) -> None:
    """Nothing to prepare on create."""


def _no_update_preparation(new: Object, old: Object, now: datetime) -> None:
    """Nothing to carry over on update."""


@dataclass(frozen=True, slots=True)
class CustomResourceRules:
    """Defaults and validation of one custom resource kind, as built-in admission."""

    validate_create: Callable[[Object], list[FieldError]]
    validate_update: Callable[[Object, Object], list[FieldError]]
    default: Callable[[Object], None] = _no_default
    prepare_create: Callable[[Object, datetime], None] = _no_preparation
    prepare_update: Callable[[Object, Object, datetime], None] = _no_update_preparation


def _permanent_id(
    label: str, *, replace: bool
) -> tuple[Callable[[Object, datetime], None], Callable[[Object, Object, datetime], None]]:
    """Create and update hooks that give objects a permanent id once and keep it."""

    def on_create(obj: Object, now: datetime) -> None:
        if replace:
            defaults.assign_permanent_id(obj, label)
        else:
            defaults.ensure_permanent_id(obj, label)

    def on_update(new: Object, old: Object, now: datetime) -> None:
        defaults.keep_permanent_id(new, old, label)

    return on_create, on_update


def _policy_rules(
    validate_create: Callable[[Object], list[FieldError]],
    validate_update: Callable[[Object, Object], list[FieldError]],
    default: Callable[[Object], None],
    permanent_id: str,
    finalizer: str,
) -> CustomResourceRules:
    """A (Cluster)PropagationPolicy's rules: on create, a fresh permanent id and the finalizer the
    detector removes once it has released what the policy claimed (Karmada's mutating webhook)."""
    assign_id, keep_id = _permanent_id(permanent_id, replace=True)

    def on_create(obj: Object, now: datetime) -> None:
        assign_id(obj, now)
        finalizers = obj.setdefault("metadata", {}).setdefault("finalizers", [])
        if finalizer not in finalizers:
            finalizers.append(finalizer)

    return CustomResourceRules(validate_create, validate_update, default, on_create, keep_id)


def _rules(
    validate_create: Callable[[Object], list[FieldError]],
    validate_update: Callable[[Object, Object], list[FieldError]],
    default: Callable[[Object], None] = _no_default,
    permanent_id: str = "",
    *,
    replace_id: bool = False,
) -> CustomResourceRules:
    if not permanent_id:
        return CustomResourceRules(validate_create, validate_update, default)
    on_create, on_update = _permanent_id(permanent_id, replace=replace_id)
    return CustomResourceRules(validate_create, validate_update, default, on_create, on_update)


_SETTING_FREE_RULES: dict[GroupVersionKind, CustomResourceRules] = {
    # Karmada's webhook replaces whatever permanent id a new policy carries; bindings and Works
    # keep one they already have (a restore from backup relies on it).
    constants.PROPAGATION_POLICY: _policy_rules(
        validation.validate_propagation_policy,
        validation.validate_propagation_policy_update,
        defaults.default_propagation_policy,
        constants.PROPAGATION_POLICY_PERMANENT_ID_LABEL,
        constants.PROPAGATION_POLICY_CONTROLLER_FINALIZER,
    ),
    constants.CLUSTER_PROPAGATION_POLICY: _policy_rules(
        validation.validate_cluster_propagation_policy,
        validation.validate_cluster_propagation_policy_update,
        defaults.default_cluster_propagation_policy,
        constants.CLUSTER_PROPAGATION_POLICY_PERMANENT_ID_LABEL,
        constants.CLUSTER_PROPAGATION_POLICY_CONTROLLER_FINALIZER,
    ),
    constants.OVERRIDE_POLICY: _rules(
        validation.validate_override_policy,
        validation.validate_override_policy_update,
        defaults.default_override_policy,
    ),
    constants.CLUSTER_OVERRIDE_POLICY: _rules(
        validation.validate_override_policy, validation.validate_override_policy_update
    ),
    constants.RESOURCE_BINDING: _rules(
        validation.validate_resource_binding,
        validation.validate_resource_binding_update,
        defaults.default_binding,
        constants.RESOURCE_BINDING_PERMANENT_ID_LABEL,
    ),
    constants.CLUSTER_RESOURCE_BINDING: _rules(
        validation.validate_resource_binding,
        validation.validate_resource_binding_update,
        defaults.default_binding,
        constants.CLUSTER_RESOURCE_BINDING_PERMANENT_ID_LABEL,
    ),
    constants.WORK: _rules(
        validation.validate_work,
        validation.validate_work_update,
        permanent_id=constants.WORK_PERMANENT_ID_LABEL,
    ),
    constants.CLUSTER: CustomResourceRules(
        validation.validate_cluster,
        validation.validate_cluster_update,
        defaults.default_cluster,
        defaults.prepare_cluster_create,
        defaults.prepare_cluster_update,
    ),
    constants.WORKLOAD_REBALANCER: _rules(
        validation.validate_workload_rebalancer, validation.validate_workload_rebalancer_update
    ),
    constants.MULTI_CLUSTER_SERVICE: _rules(
        validation.validate_multi_cluster_service, validation.validate_multi_cluster_service_update
    ),
    RESOURCE_REGISTRY: _rules(
        validation.validate_resource_registry, validation.validate_resource_registry_update
    ),
    RESOURCE_INTERPRETER_CUSTOMIZATION: _rules(
        validation.validate_resource_interpreter_customization,
        validation.validate_resource_interpreter_customization_update,
    ),
    RESOURCE_INTERPRETER_WEBHOOK_CONFIGURATION: _rules(
        validation.validate_resource_interpreter_webhook_configuration,
        validation.validate_resource_interpreter_webhook_configuration_update,
    ),
    FEDERATED_RESOURCE_QUOTA: _rules(
        validation.validate_federated_resource_quota, validation.validate_federated_resource_quota_update
    ),
    # Karmada's webhook defaults a FederatedHPA exactly as kube defaults an HPA (min 1, 80% CPU).
    FEDERATED_HPA: _rules(
        validation.validate_federated_hpa,
        validation.validate_federated_hpa_update,
        default_horizontal_pod_autoscaler,
    ),
    CRON_FEDERATED_HPA: _rules(
        validation.validate_cron_federated_hpa, validation.validate_cron_federated_hpa_update
    ),
}


def custom_resource_rules(
    *, allow_no_execute_taint_policy: bool = True
) -> dict[GroupVersionKind, CustomResourceRules]:
    """Every Karmada kind's rules, with the API server's settings that Karmada's webhook takes as flags.

    `allow_no_execute_taint_policy`: whether a ClusterTaintPolicy may carry NoExecute taints
    (Karmada's flag defaults to false, Flotilla's to true; see `APISettings`)."""
    taint_policy = _rules(
        partial(validation.validate_cluster_taint_policy, allow_no_execute=allow_no_execute_taint_policy),
        partial(
            validation.validate_cluster_taint_policy_update, allow_no_execute=allow_no_execute_taint_policy
        ),
    )
    return {**_SETTING_FREE_RULES, constants.CLUSTER_TAINT_POLICY: taint_policy}


CUSTOM_RESOURCE_RULES = custom_resource_rules()
"""The rules under the default settings."""
