"""The config.karmada.io/v1alpha1 CRDs: ResourceInterpreterCustomization and
ResourceInterpreterWebhookConfiguration.

The schemas follow Karmada's CRDs. A customization is cluster-scoped (short name `ric`),
`spec.target.apiVersion` and `spec.target.kind` required, `spec.customizations` with one optional
rule per interpreter operation, each a required `luaScript`; validation
(`validation.karmada.customizations`) compiles every script. A webhook configuration is
cluster-scoped with `webhooks[]` at the top level — `name`, `clientConfig` (`url` or `service`,
`caBundle`), `rules`, `timeoutSeconds`, `interpreterContextVersions`; validation
(`validation.karmada.interpreterwebhooks`) applies Karmada's webhook rules.
"""

from __future__ import annotations

from typing import Any

from flotilla.api.karmada.config import (
    RESOURCE_INTERPRETER_CUSTOMIZATION,
    RESOURCE_INTERPRETER_CUSTOMIZATIONS,
    RESOURCE_INTERPRETER_WEBHOOK_CONFIGURATION,
    RESOURCE_INTERPRETER_WEBHOOK_CONFIGURATIONS,
)
from flotilla.apiserver.registry.karmada.schemas import (
    Schema,
    array,
    custom_resource_definition,
    integer,
    kind_schema,
    obj,
    string,
    strings,
)
from flotilla.interpreter.lua import Operation


def _rule(operation: Operation) -> Schema:
    return obj(
        {"luaScript": string(f"A Lua script defining the function {operation.function}.")},
        f"The {operation} customization.",
        required=["luaScript"],
    )


def customization_spec() -> Schema:
    target = obj(
        {
            "apiVersion": string("The API version of the customized kind."),
            "kind": string("The customized kind."),
        },
        "The kind these customizations apply to.",
        required=["apiVersion", "kind"],
    )
    rules = obj(
        {operation.field: _rule(operation) for operation in Operation},
        "The scripts, one per interpreter operation.",
    )
    return obj(
        {"target": target, "customizations": rules},
        "How Karmada interprets a kind.",
        required=["target", "customizations"],
    )


def resource_interpreter_customization_crd() -> dict[str, Any]:
    return custom_resource_definition(
        group=RESOURCE_INTERPRETER_CUSTOMIZATION.group,
        version=RESOURCE_INTERPRETER_CUSTOMIZATION.version,
        kind=RESOURCE_INTERPRETER_CUSTOMIZATION.kind,
        plural=RESOURCE_INTERPRETER_CUSTOMIZATIONS.resource,
        namespaced=False,
        status=False,
        short_names=["ric"],
        schema=kind_schema(
            "Lua customizations of the resource interpreter for one kind.", customization_spec()
        ),
    )


def _client_config() -> Schema:
    service = obj(
        {
            "namespace": string("The namespace of the Service."),
            "name": string("The name of the Service."),
            "path": string("The URL path requests are sent to."),
            "port": integer("The Service's port (default 443).", default=443),
        },
        "A Service in front of the webhook (reached at https://<name>.<namespace>.svc:<port><path>).",
        required=["namespace", "name"],
    )
    return obj(
        {
            "url": string("Where the webhook is served: https://host:port/path."),
            "service": service,
            "caBundle": string(
                "A PEM bundle (base64) the webhook's serving certificate chains to.", format="byte"
            ),
        },
        "How to reach the webhook: exactly one of url or service.",
    )


def _webhook() -> Schema:
    rule = obj(
        {
            "operations": strings("The interpreter operations ('*' for all)."),
            "apiGroups": strings("API groups ('*' for all; '' is the core group)."),
            "apiVersions": strings("API versions ('*' for all)."),
            "kinds": strings("Kinds ('*' for all)."),
        },
        "Operations on kinds the webhook answers.",
        required=["operations", "apiGroups", "apiVersions", "kinds"],
    )
    return obj(
        {
            "name": string("The webhook's fully qualified name."),
            "clientConfig": _client_config(),
            "rules": array(rule, "What the webhook answers: it answers an operation when any rule matches."),
            "timeoutSeconds": integer("Seconds before a call is abandoned (1-30, default 10)."),
            "interpreterContextVersions": strings(
                "The ResourceInterpreterContext versions the webhook accepts, preferred first."
            ),
        },
        "One interpreter webhook and what it answers.",
        required=["name", "clientConfig", "interpreterContextVersions"],
    )


def resource_interpreter_webhook_configuration_crd() -> dict[str, Any]:
    """Karmada's ResourceInterpreterWebhookConfiguration: cluster-scoped, `webhooks` at the top
    level (no spec), validated by `validation.karmada.interpreterwebhooks`."""
    schema = obj(
        {
            "apiVersion": string("The versioned schema of this representation of an object."),
            "kind": string("The REST resource this object represents."),
            "metadata": {"type": "object"},
            "webhooks": array(_webhook(), "The webhooks and the operations and kinds they answer."),
        },
        "Webhooks that interpret kinds for Karmada over HTTPS.",
        required=["webhooks"],
    )
    return custom_resource_definition(
        group=RESOURCE_INTERPRETER_WEBHOOK_CONFIGURATION.group,
        version=RESOURCE_INTERPRETER_WEBHOOK_CONFIGURATION.version,
        kind=RESOURCE_INTERPRETER_WEBHOOK_CONFIGURATION.kind,
        plural=RESOURCE_INTERPRETER_WEBHOOK_CONFIGURATIONS.resource,
        namespaced=False,
        categories=["karmada-io"],
        schema=schema,
    )
