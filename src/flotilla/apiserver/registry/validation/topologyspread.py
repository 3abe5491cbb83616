"""Validation of a pod's topology spread constraints (kube's `validateTopologySpreadConstraints`).

A positive `maxSkew`, a qualified topology key, a known `whenUnsatisfiable`, each (topology key,
action) pair once; `minDomains` positive and only with `DoNotSchedule`; node inclusion policies
`Honor` or `Ignore`; a well-formed label selector.
"""

from __future__ import annotations

from typing import Any

from flotilla.api import fielderrors
from flotilla.api.fielderrors import FieldError
from flotilla.api.selectors import validate_label_selector
from flotilla.apiserver.registry.validation import fields
from flotilla.apiserver.registry.validation.metadata import qualified_name

UNSATISFIABLE_CONSTRAINT_ACTIONS = ("DoNotSchedule", "ScheduleAnyway")
NODE_INCLUSION_POLICIES = ("Honor", "Ignore")


def validate_topology_spread_constraints(constraints: list[dict[str, Any]], path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    seen: set[tuple[str, str]] = set()
    for position, constraint in enumerate(constraints):
        constraint_path = fielderrors.index(path, position)
        max_skew = fields.integer(constraint, "maxSkew") or 0
        if max_skew <= 0:
            errors.append(
                fielderrors.invalid(
                    fielderrors.child(constraint_path, "maxSkew"), max_skew, "must be greater than zero"
                )
            )
        topology_key = fields.text(constraint, "topologyKey")
        topology_path = fielderrors.child(constraint_path, "topologyKey")
        if not topology_key:
            errors.append(fielderrors.required(topology_path, "can not be empty"))
        else:
            errors.extend(qualified_name(topology_key, topology_path))
        action = fields.text(constraint, "whenUnsatisfiable")
        action_path = fielderrors.child(constraint_path, "whenUnsatisfiable")
        if action not in UNSATISFIABLE_CONSTRAINT_ACTIONS:
            errors.append(fielderrors.not_supported(action_path, action, UNSATISFIABLE_CONSTRAINT_ACTIONS))
        pair = (topology_key, action)
        if pair in seen:
            errors.append(fielderrors.duplicate(constraint_path, f"{{{topology_key}, {action}}}"))
        seen.add(pair)
        min_domains = fields.integer(constraint, "minDomains")
        if min_domains is not None:
            min_domains_path = fielderrors.child(constraint_path, "minDomains")
            if min_domains <= 0:
                errors.append(fielderrors.invalid(min_domains_path, min_domains, "must be greater than 0"))
            elif action != "DoNotSchedule":
                errors.append(
                    fielderrors.invalid(
                        min_domains_path,
                        min_domains,
                        "can only use minDomains if whenUnsatisfiable=DoNotSchedule, not ScheduleAnyway",
                    )
                )
        for policy_name in ("nodeAffinityPolicy", "nodeTaintsPolicy"):
            policy = constraint.get(policy_name)
            if isinstance(policy, str) and policy not in NODE_INCLUSION_POLICIES:
                errors.append(
                    fielderrors.not_supported(
                        fielderrors.child(constraint_path, policy_name), policy, NODE_INCLUSION_POLICIES
                    )
                )
        if constraint.get("labelSelector") is not None:
            errors.extend(
                validate_label_selector(
                    constraint["labelSelector"], fielderrors.child(constraint_path, "labelSelector")
                )
            )
    return errors
