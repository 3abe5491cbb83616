"""A ResourceInterpreterWebhookConfiguration is checked as Karmada's webhook checks one."""

from __future__ import annotations

from typing import Any

from flotilla.apiserver.registry.validation.karmada import (
    validate_resource_interpreter_webhook_configuration,
)
from tests.unit.interpreter.webhook.samples import webhook_configuration


def problems(configuration: dict[str, Any]) -> list[tuple[str, str]]:
    return [
        (error.field, str(error))
        for error in validate_resource_interpreter_webhook_configuration(configuration)
    ]


def test_a_well_formed_configuration_is_valid() -> None:
    assert problems(webhook_configuration()) == []


def test_each_of_karmadas_rules_is_reported_at_its_field() -> None:
    configuration = webhook_configuration(
        url="http://127.0.0.1/x", operations=["*", "Prune"], timeout_seconds=31
    )
    hook = configuration["webhooks"][0]
    hook["name"] = "fleets"
    hook["rules"][0]["kinds"] = ["Fleet", ""]
    hook["interpreterContextVersions"] = ["v1beta1", "v1beta1"]
    configuration["webhooks"].append(dict(hook))
    fields = [field for field, _ in problems(configuration)]
    assert fields[:8] == [
        "webhooks[0].name",
        "webhooks[0].rules[0].operations",
        "webhooks[0].rules[0].operations[1]",
        "webhooks[0].rules[0].kinds[1]",
        "webhooks[0].timeoutSeconds",
        "webhooks[0].clientConfig.url",
        "webhooks[0].interpreterContextVersions[1]",
        "webhooks[0].interpreterContextVersions",
    ]
    assert "webhooks[1].name" in fields  # the duplicate
    messages = dict(problems(configuration))
    assert "at least two segments" in messages["webhooks[0].name"]
    assert "between 1 and 30 seconds" in messages["webhooks[0].timeoutSeconds"]
    assert "must include at least one of v1alpha1" in messages["webhooks[0].interpreterContextVersions"]


def test_exactly_one_of_url_and_service_is_required() -> None:
    configuration = webhook_configuration()
    configuration["webhooks"][0]["clientConfig"] = {}
    assert problems(configuration) == [
        (
            "webhooks[0].clientConfig",
            "webhooks[0].clientConfig: Required value: exactly one of url or service is required",
        )
    ]
