"""Rules for a ResourceInterpreterCustomization, as Karmada's webhook checks it.

Every script must compile as Lua 5.1: one that does not is refused at its field path
(`spec.customizations.<rule>.luaScript`) with Lua's message, which names the line
(`InterpreterOperation(InterpretHealth) Lua script error: luaScript:3: ...`). The target's
`apiVersion` and `kind` are required (the schema says so too; checked here for objects that never
met it). Karmada's other check, one customization per target and operation, needs the other
customizations and is made by the admission that sees them (`writes`).
"""

from __future__ import annotations

from flotilla.api import fielderrors
from flotilla.api.fielderrors import FieldError
from flotilla.apiserver.registry.validation import fields
from flotilla.apiserver.registry.validation.karmada.fieldchecks import Object
from flotilla.interpreter.lua import LuaSandbox, LuaScriptError, Operation

_SANDBOX = LuaSandbox()
"""Compiling needs a Lua state and nothing else; one per thread, reused by every check."""


def validate_resource_interpreter_customization(customization: Object) -> list[FieldError]:
    spec = fields.mapping(customization, "spec")
    target = fields.mapping(spec, "target")
    errors = [
        fielderrors.required(f"spec.target.{key}")
        for key in ("apiVersion", "kind")
        if not fields.text(target, key)
    ]
    rules = fields.mapping(spec, "customizations")
    for operation in Operation:
        script = fields.text(fields.mapping(rules, operation.field), "luaScript")
        if not script:
            continue
        try:
            _SANDBOX.check(script)
        except LuaScriptError as error:
            errors.append(
                fielderrors.invalid(
                    f"spec.customizations.{operation.field}.luaScript",
                    script,
                    f"InterpreterOperation({operation}) Lua script error: {error}",
                )
            )
    return errors


def validate_resource_interpreter_customization_update(new: Object, old: Object) -> list[FieldError]:
    """Every field may change; the new object is checked as a new one."""
    return validate_resource_interpreter_customization(new)
