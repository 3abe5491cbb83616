"""A policy's failover as Karmada v1.19 admits it: its purge modes, defaults and state preservation rules."""

from __future__ import annotations

from typing import Any

import pytest

from flotilla.apiserver.registry.defaults import karmada as defaults
from flotilla.apiserver.registry.karmada.policy import failover as failover_schema
from flotilla.apiserver.registry.validation import karmada as validation


def policy(**failover: Any) -> dict[str, Any]:
    """A PropagationPolicy with `propagateDeps` on and the given `failover`."""
    return {
        "metadata": {"name": "p", "namespace": "apps"},
        "spec": {
            "resourceSelectors": [{"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}],
            "propagateDeps": True,
            "failover": failover,
        },
    }


def errors(obj: dict[str, Any]) -> list[str]:
    defaults.default_propagation_policy(obj)
    return [str(e) for e in validation.validate_propagation_policy(obj)]


def application(**fields: Any) -> dict[str, Any]:
    return {"decisionConditions": {"tolerationSeconds": 30}, **fields}


@pytest.mark.parametrize("mode", ["Directly", "Gracefully", "Never"])
def test_the_three_purge_modes_of_v1_19_are_accepted(mode: str) -> None:
    assert errors(policy(application=application(purgeMode=mode))) == []


@pytest.mark.parametrize(("older", "current"), [("Immediately", "Directly"), ("Graciously", "Gracefully")])
def test_the_older_purge_mode_names_are_stored_as_the_current_ones(older: str, current: str) -> None:
    """Karmada v1.19 dropped the first names (#7792) from its enum; defaulting renames them before the
    enum is checked, so older manifests apply and only the current names are stored."""
    renamed = policy(application=application(purgeMode=older), cluster={"purgeMode": older})
    assert errors(renamed) == []
    assert renamed["spec"]["failover"]["application"]["purgeMode"] == current
    assert renamed["spec"]["failover"]["cluster"]["purgeMode"] == current
    enum = failover_schema()["properties"]["application"]["properties"]["purgeMode"]["enum"]
    assert enum == ["Directly", "Gracefully", "Never"]


def test_an_unknown_purge_mode_is_refused() -> None:
    assert errors(policy(application=application(purgeMode="Later"))) == [
        'spec.failover.application.purgeMode: Unsupported value: "Later": supported values: "Directly", '
        '"Gracefully", "Never"'
    ]


def test_a_graceful_purge_gets_600_seconds_and_no_other_mode_does() -> None:
    graceful = policy(application=application())
    defaults.default_propagation_policy(graceful)
    assert graceful["spec"]["failover"]["application"]["purgeMode"] == "Gracefully"
    assert graceful["spec"]["failover"]["application"]["gracePeriodSeconds"] == 600
    direct = policy(application=application(purgeMode="Directly"))
    defaults.default_propagation_policy(direct)
    assert "gracePeriodSeconds" not in direct["spec"]["failover"]["application"]


def test_a_grace_period_needs_a_graceful_purge_and_a_positive_value() -> None:
    assert errors(policy(application=application(purgeMode="Directly", gracePeriodSeconds=60))) == [
        "spec.failover.application.gracePeriodSeconds: Invalid value: 60: only takes effect when purgeMode "
        "is Gracefully"
    ]
    assert errors(policy(application=application(purgeMode="Gracefully", gracePeriodSeconds=-5))) == [
        "spec.failover.application.gracePeriodSeconds: Invalid value: -5: must be greater than 0"
    ]


def test_state_preservation_aliases_must_be_label_keys() -> None:
    """The alias becomes a label on the new copy, so kube's label key rules apply (Karmada's webhook)."""
    rules = [
        {"aliasLabelName": "example.io/job-id", "jsonPath": "{ .jobStatus.jobID }"},
        {"aliasLabelName": "not a label", "jsonPath": "{ .replicas }"},
    ]
    found = errors(
        policy(
            application=application(purgeMode="Directly", statePreservation={"rules": rules}),
            cluster={"purgeMode": "Directly", "statePreservation": {"rules": [rules[1]]}},
        )
    )
    assert [line.split(":")[0] for line in found] == [
        "spec.failover.application.statePreservation.rules[1].aliasLabelName",
        "spec.failover.cluster.statePreservation.rules[0].aliasLabelName",
    ]
    assert all('Invalid value: "not a label"' in line for line in found)
