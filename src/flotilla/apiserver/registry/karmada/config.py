"""The config.karmada.io/v1alpha1 CRD: ResourceInterpreterCustomization.

The schema follows Karmada's CRD: cluster-scoped (short name `ric`), `spec.target.apiVersion` and
`spec.target.kind` required, `spec.customizations` with one optional rule per interpreter operation,
each a required `luaScript`. Validation (`validation.karmada.customizations`) compiles every script.
"""

from __future__ import annotations

from typing import Any

from flotilla.api.karmada.config import (
    RESOURCE_INTERPRETER_CUSTOMIZATION,
    RESOURCE_INTERPRETER_CUSTOMIZATIONS,
)
from flotilla.apiserver.registry.karmada.schemas import (
    Schema,
    custom_resource_definition,
    kind_schema,
    obj,
    string,
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
