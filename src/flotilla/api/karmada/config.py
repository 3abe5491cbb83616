"""Karmada's config.karmada.io names (`pkg/apis/config/v1alpha1`).

ResourceInterpreterCustomization: a cluster-scoped kind whose `spec.target` (`apiVersion`, `kind`)
names the kind it customizes and whose `spec.customizations` holds one Lua script per interpreter
operation. ResourceInterpreterWebhookConfiguration: cluster-scoped, `webhooks[]` served over HTTPS
that answer interpreter operations for the kinds their `rules` name, spoken to with
`interpreter.karmada.io`-style ResourceInterpreterContext objects (`config.karmada.io/v1alpha1`).
"""

from __future__ import annotations

from flotilla.api.scheme import GroupResource, GroupVersionKind

CONFIG_GROUP = "config.karmada.io"
CONFIG_VERSION = "v1alpha1"
RESOURCE_INTERPRETER_CUSTOMIZATION = GroupVersionKind(
    CONFIG_GROUP, CONFIG_VERSION, "ResourceInterpreterCustomization"
)
RESOURCE_INTERPRETER_CUSTOMIZATIONS = GroupResource(CONFIG_GROUP, "resourceinterpretercustomizations")
RESOURCE_INTERPRETER_WEBHOOK_CONFIGURATION = GroupVersionKind(
    CONFIG_GROUP, CONFIG_VERSION, "ResourceInterpreterWebhookConfiguration"
)
RESOURCE_INTERPRETER_WEBHOOK_CONFIGURATIONS = GroupResource(
    CONFIG_GROUP, "resourceinterpreterwebhookconfigurations"
)
RESOURCE_INTERPRETER_CONTEXT = GroupVersionKind(CONFIG_GROUP, CONFIG_VERSION, "ResourceInterpreterContext")
"""The request and response body of an interpreter webhook call (not a stored kind)."""
INTERPRETER_OPERATION_FAILED = "InterpreterOperationFailed"
"""The reason of the Warning Event recorded on a customization whose script failed, or on a webhook
configuration whose webhook could not answer."""
