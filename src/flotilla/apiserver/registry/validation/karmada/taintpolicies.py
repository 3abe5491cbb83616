"""Karmada's rules for a ClusterTaintPolicy, as its validating webhook applies them, and a few more.

Karmada's webhook (`pkg/webhook/clustertaintpolicy`) refuses two things, in its words:

- a NoExecute taint, unless the administrator allowed it (`--allow-no-execute-taint-policy`):
  "Configuring taint with NoExecute effect is not allowed, this capability must be explicitly
  enabled by administrators through command-line flags". Karmada defaults the flag to false;
  Flotilla's `flotilla apiserver` defaults it to true, because the default policy `flotilla up`
  installs taints an unreachable member NoExecute so that its workloads move;
- two taints with the same key and effect ("Duplicate taint with the same key(k) and effect(e) is
  not allowed").

Beyond Karmada's webhook, the rules Karmada only states in its API documentation are enforced, so
a policy that could never work is refused when it is written rather than silently ignored:
each taint is a valid Cluster taint (kube's node-taint rules, `tolerations.validate_taints`, which
the Cluster itself is validated by, so whatever a policy adds the Cluster accepts); a condition test
names a condition type, uses `In` or `NotIn` and lists statuses among True, False and Unknown;
`targetClusters` is a valid cluster affinity (`placement.validate_cluster_affinity`). Required
fields and the one-taint minimum repeat the schema's checks, for objects that never met a schema.
"""

from __future__ import annotations

from flotilla.api import fielderrors
from flotilla.api.fielderrors import ErrorType, FieldError, child, index
from flotilla.api.karmada.constants import MatchConditionOperator
from flotilla.apiserver.registry.validation import fields
from flotilla.apiserver.registry.validation.karmada.fieldchecks import Object
from flotilla.apiserver.registry.validation.karmada.placement import validate_cluster_affinity
from flotilla.apiserver.registry.validation.tolerations import validate_taints

NO_EXECUTE = "NoExecute"
CONDITION_STATUSES = ("True", "False", "Unknown")
OPERATORS = tuple(str(operator) for operator in MatchConditionOperator)
NO_EXECUTE_FORBIDDEN = (
    "Configuring taint with NoExecute effect is not allowed, this capability must be explicitly "
    "enabled by administrators through command-line flags"
)


def validate_cluster_taint_policy(policy: Object, *, allow_no_execute: bool = True) -> list[FieldError]:
    """What is wrong with a ClusterTaintPolicy (`allow_no_execute`: the API server's setting)."""
    spec = fields.mapping(policy, "spec")
    errors = _taints(spec, "spec.taints", allow_no_execute=allow_no_execute)
    for key in ("addOnConditions", "removeOnConditions"):
        errors += _match_conditions(fields.items(spec, key), child("spec", key))
    target = spec.get("targetClusters")
    if isinstance(target, dict):
        errors += validate_cluster_affinity(target, "spec.targetClusters")
    return errors


def validate_cluster_taint_policy_update(
    new: Object, old: Object, *, allow_no_execute: bool = True
) -> list[FieldError]:
    """An update is checked as a create: Karmada's webhook judges every write of the spec alike."""
    return validate_cluster_taint_policy(new, allow_no_execute=allow_no_execute)


def _taints(spec: Object, path: str, *, allow_no_execute: bool) -> list[FieldError]:
    taints = spec.get("taints")
    if taints is None:
        return [fielderrors.required(path)]
    if taints == []:
        return [fielderrors.invalid(path, 0, "should have at least 1 items")]
    listed = fields.objects(spec, "taints")
    # kube's own duplicate check is replaced by Karmada's, reported once at the first of the pair.
    errors = [e for e in validate_taints(listed, path) if e.type is not ErrorType.DUPLICATE]
    for position, taint in enumerate(listed):
        key, effect = fields.text(taint, "key"), fields.text(taint, "effect")
        if effect == NO_EXECUTE and not allow_no_execute:
            errors.append(fielderrors.forbidden(index(path, position), NO_EXECUTE_FORBIDDEN))
        if any(_same_taint(taint, later) for later in listed[position + 1 :]):
            # Karmada passes its sentence as the duplicate "value": the message quotes it.
            message = f"Duplicate taint with the same key({key}) and effect({effect}) is not allowed"
            errors.append(fielderrors.duplicate(index(path, position), message))
    return errors


def _same_taint(taint: Object, other: Object) -> bool:
    return fields.text(taint, "key") == fields.text(other, "key") and fields.text(
        taint, "effect"
    ) == fields.text(other, "effect")


def _match_conditions(tests: list[object], path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    for position, test in enumerate(tests):
        test_path = index(path, position)
        if not isinstance(test, dict):
            errors.append(fielderrors.invalid(test_path, test, "must be an object"))
            continue
        if not fields.text(test, "conditionType"):
            errors.append(fielderrors.required(child(test_path, "conditionType")))
        operator = fields.text(test, "operator")
        if not operator:
            errors.append(fielderrors.required(child(test_path, "operator")))
        elif operator not in OPERATORS:
            errors.append(fielderrors.not_supported(child(test_path, "operator"), operator, OPERATORS))
        values = test.get("statusValues")
        values_path = child(test_path, "statusValues")
        if values is None:
            errors.append(fielderrors.required(values_path))
            continue
        for value_position, value in enumerate(fields.items(test, "statusValues")):
            if value not in CONDITION_STATUSES:
                errors.append(
                    fielderrors.not_supported(index(values_path, value_position), value, CONDITION_STATUSES)
                )
    return errors
