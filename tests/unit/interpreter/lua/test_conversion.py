"""JSON ↔ Lua tables as Karmada converts them (gopher-json and the empty-table repair)."""

from __future__ import annotations

from typing import Any

import pytest

from flotilla.interpreter.lua import LuaSandbox, LuaScriptError
from flotilla.interpreter.lua.conversion import from_lua, repair_empty


def returned(script: str, *args: Any) -> Any:
    return LuaSandbox().call(script, "F", list(args), 1, from_lua)[0]


def test_arrays_are_one_based_and_round_trip() -> None:
    """A JSON array is a Lua sequence from index 1 and comes back as an array."""
    assert returned("function F(o) return {o.items[1], #o.items, o.items} end", {"items": ["a", "b"]}) == [
        "a",
        2,
        ["a", "b"],
    ]


def test_integral_numbers_come_back_as_integers() -> None:
    """3.0 is 3; a fraction stays a float (Go marshals float64 so)."""
    assert returned("function F() return {a = 6 / 2, b = 1.5} end") == {"a": 3, "b": 1.5}


def test_an_empty_table_is_an_empty_array() -> None:
    """gopher-json encodes {} as []."""
    assert returned("function F() return {x = {}} end") == {"x": []}


def test_null_fields_read_as_absent() -> None:
    """A null in the input is nil in Lua."""
    assert returned("function F(o) return o.a == nil end", {"a": None}) is True


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ("{1, 2, x = 3}", "mixed or invalid key types"),
        ("{[1] = 1, [3] = 3}", "sparse array"),
        ("{f = function() end}", "cannot encode function"),
    ],
)
def test_tables_without_json_form_are_errors(table: str, message: str) -> None:
    with pytest.raises(LuaScriptError, match=message):
        returned(f"function F() return {table} end")


def test_a_self_containing_table_is_an_error() -> None:
    with pytest.raises(LuaScriptError, match="recursively nested"):
        returned("function F() local t = {} t.self = t return t end")


def test_repair_turns_empty_arrays_back_into_objects_where_the_reference_had_one() -> None:
    """Karmada's repair: {} where the reference has {}, [] where it has [], dropped otherwise."""
    reference = {"spec": {"selector": {}, "ports": [], "items": [{"labels": {}}]}}
    result = {"spec": {"selector": [], "ports": [], "extra": [], "items": [{"labels": []}]}}
    assert repair_empty(result, [reference], expect_object=True) == {
        "spec": {"selector": {}, "ports": [], "items": [{"labels": {}}]}
    }


def test_a_whole_empty_result_is_an_object_when_one_is_expected() -> None:
    assert repair_empty([], [], expect_object=True) == {}
    assert repair_empty([], [], expect_object=False) == []


def test_shared_parts_of_an_input_arrive_whole() -> None:
    """A dict shared by two parents (as Python-built objects may be) reaches Lua twice, not once."""
    shared = {"cpu": "1"}
    obj = {"containers": [{"resources": shared}, {"resources": shared}]}
    assert returned("function F(o) return o.containers[2].resources.cpu end", obj) == "1"


def test_nulls_in_arrays_are_skipped() -> None:
    """As gopher-lua's Append skips nil: [1, null, 3] is a sequence of two."""
    assert returned("function F(o) return #o.items end", {"items": [1, None, 3]}) == 2
