"""A ResourceInterpreterCustomization is checked as Karmada's webhook checks one: every script compiles."""

from __future__ import annotations

from flotilla.apiserver.registry.validation.karmada import validate_resource_interpreter_customization
from tests.unit.interpreter.lua.customizations import fleet_customization


def test_a_customization_whose_scripts_compile_is_valid() -> None:
    assert validate_resource_interpreter_customization(fleet_customization()) == []


def test_a_script_that_does_not_compile_is_invalid_at_its_field_with_the_line() -> None:
    broken = fleet_customization(
        retention="function Retain(desiredObj, observedObj)\n  return desiredObj +\nend"
    )
    errors = validate_resource_interpreter_customization(broken)
    assert [error.field for error in errors] == ["spec.customizations.retention.luaScript"]
    assert "InterpreterOperation(Retain) Lua script error: luaScript:3: unexpected symbol near 'end'" in str(
        errors[0]
    )


def test_the_target_is_required() -> None:
    customization = fleet_customization()
    customization["spec"]["target"] = {}
    fields = [error.field for error in validate_resource_interpreter_customization(customization)]
    assert fields == ["spec.target.apiVersion", "spec.target.kind"]
