"""Admission of ResourceInterpreterCustomizations that needs the others: one script per target and operation.

Karmada's validating webhook lists every customization and refuses a new or changed one that
scripts an operation (other than InterpretDependency, which may have several) for a target that
another customization already scripts: `conflicting with InterpreterOperation(Retain) of existing
ResourceInterpreterCustomization(other)`. The built-in rules (`validation.karmada.customizations`)
check one object; this admission, installed with the Karmada CRDs, checks it against the cache of
the others and refuses with a 422 at the conflicting script's field path.
"""

from __future__ import annotations

from typing import Any

from flotilla.api import fielderrors
from flotilla.api.karmada.config import RESOURCE_INTERPRETER_CUSTOMIZATION
from flotilla.apiserver import errors
from flotilla.apiserver.admission import Admission, AdmissionAttributes
from flotilla.apiserver.context import APIContext
from flotilla.interpreter.lua import parse_customization
from flotilla.interpreter.lua.customizations import conflicts


class CustomizationConflicts:
    """Refuses a customization whose scripts another customization of its target already has."""

    def __init__(self, ctx: APIContext, inner: Admission) -> None:
        self.ctx = ctx
        self.inner = inner

    async def mutate(
        self, attributes: AdmissionAttributes, obj: dict[str, Any], old: dict[str, Any] | None
    ) -> list[str]:
        return await self.inner.mutate(attributes, obj, old)

    async def validate(
        self, attributes: AdmissionAttributes, obj: dict[str, Any] | None, old: dict[str, Any] | None
    ) -> list[str]:
        if (
            obj is not None
            and attributes.operation in ("CREATE", "UPDATE")
            and not attributes.subresource
            and _is_customization(attributes)
        ):
            self._check(attributes, obj)
        return await self.inner.validate(attributes, obj, old)

    def _check(self, attributes: AdmissionAttributes, obj: dict[str, Any]) -> None:
        prefix = attributes.resource.storage_prefix
        others = [parse_customization(item.obj) for item in self.ctx.cache.list(prefix, "")]
        found = conflicts(parse_customization(obj), others)
        if not found:
            return
        field_errors = [
            fielderrors.invalid(
                f"spec.customizations.{operation.field}.luaScript",
                "",
                f"conflicting with InterpreterOperation({operation}) of existing "
                f"ResourceInterpreterCustomization({name})",
            )
            for operation, name in found
        ]
        raise errors.invalid(
            RESOURCE_INTERPRETER_CUSTOMIZATION.kind,
            RESOURCE_INTERPRETER_CUSTOMIZATION.group,
            attributes.name,
            field_errors,
        )


def _is_customization(attributes: AdmissionAttributes) -> bool:
    gvk = attributes.resource.type.gvk
    return (gvk.group, gvk.kind) == (
        RESOURCE_INTERPRETER_CUSTOMIZATION.group,
        RESOURCE_INTERPRETER_CUSTOMIZATION.kind,
    )


def install_customization_admission(ctx: APIContext) -> None:
    """Wrap the context's admission (once) with the conflict check."""
    if not isinstance(ctx.admission, CustomizationConflicts):
        ctx.admission = CustomizationConflicts(ctx, ctx.admission)
