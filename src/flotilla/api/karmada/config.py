"""Karmada's config.karmada.io names: ResourceInterpreterCustomization (`pkg/apis/config/v1alpha1`).

A cluster-scoped kind whose `spec.target` (`apiVersion`, `kind`) names the kind it customizes and
whose `spec.customizations` holds one Lua script per interpreter operation.
"""

from __future__ import annotations

from flotilla.api.scheme import GroupResource, GroupVersionKind

CONFIG_GROUP = "config.karmada.io"
CONFIG_VERSION = "v1alpha1"
RESOURCE_INTERPRETER_CUSTOMIZATION = GroupVersionKind(
    CONFIG_GROUP, CONFIG_VERSION, "ResourceInterpreterCustomization"
)
RESOURCE_INTERPRETER_CUSTOMIZATIONS = GroupResource(CONFIG_GROUP, "resourceinterpretercustomizations")
INTERPRETER_OPERATION_FAILED = "InterpreterOperationFailed"
"""The reason of the Warning Event recorded on a customization whose script failed."""
