"""The sandbox: Karmada's globals, nothing more, and limits that stop a script with a clear error."""

from __future__ import annotations

import time

import pytest

from flotilla.interpreter.lua import LuaLimits, LuaSandbox, LuaScriptError


def run(script: str, *args: object, sandbox: LuaSandbox | None = None) -> list[object]:
    return (sandbox or LuaSandbox()).call(script, "F", list(args), 1)


@pytest.mark.parametrize(
    "expression",
    ["os.execute", "os.getenv", "os.remove", "os.exit", "io", "debug", "package", "coroutine"],
)
def test_dangerous_globals_are_absent(expression: str) -> None:
    """What a script could use to reach the host is nil inside the sandbox."""
    assert run(f"function F() return {expression} == nil end") == [True]


def test_os_execute_cannot_run() -> None:
    """Calling os.execute fails as a call of nil, with the script's line number."""
    with pytest.raises(LuaScriptError, match=r"luaScript:3: attempt to call field 'execute' \(a nil value\)"):
        run("function F()\n  local x = 1\n  return os.execute('true')\nend")


@pytest.mark.parametrize(
    "name", ["loadstring", "load", "dofile", "loadfile", "setmetatable", "getmetatable", "rawset", "setfenv"]
)
def test_karmadas_refused_functions_raise(name: str) -> None:
    """The functions Karmada replaces raise its message when called."""
    with pytest.raises(LuaScriptError, match=f"call function {name} is not supported"):
        run(f"function F() return {name}('x') end")


def test_require_finds_only_kube() -> None:
    """`require("kube")` gives Karmada's helpers; any other module is not found."""
    assert run('function F() return type(require("kube").resourceAdd) end') == ["function"]
    with pytest.raises(LuaScriptError, match="module 'os' not found"):
        run('function F() return require("os") end')


def test_safe_libraries_work() -> None:
    """string, table, math and os.time/os.date are there, and strings have their methods."""
    script = """function F()
      local t = {3, 1, 2}
      table.sort(t)
      return ("%s-%d"):format(table.concat(t, ","), math.floor(2.7)) .. string.upper("x") .. type(os.time())
    end"""
    assert run(script) == ["1,2,3-2Xnumber"]


def test_globals_do_not_leak_between_calls() -> None:
    """Each call runs the script in a fresh global table."""
    sandbox = LuaSandbox()
    script = "counter = (counter or 0) + 1\nfunction F() return counter end"
    assert run(script, sandbox=sandbox) == [1]
    assert run(script, sandbox=sandbox) == [1]


def test_a_changed_library_does_not_leak_into_the_next_call() -> None:
    """Libraries are copied per call (lazily): a script's change to `string` dies with the call."""
    sandbox = LuaSandbox()
    assert run("string.upper = nil\nfunction F() return string.upper end", sandbox=sandbox) == [None]
    assert run('function F() return string.upper("a") end', sandbox=sandbox) == ["A"]


@pytest.mark.parametrize("name", ["error", "string", "math"])
def test_a_global_assigned_nil_reads_nil(name: str) -> None:
    """As in gopher-lua, a global set to nil (a function or a library) reads nil afterwards."""
    assert run(f"{name} = nil\nfunction F() return {name} == nil end") == [True]
    assert run(f"{name} = 1\n{name} = nil\nfunction F() return {name} == nil end") == [True]


def test_an_endless_loop_stops_at_the_instruction_limit() -> None:
    """`while true do end` stops quickly with the limit named."""
    limits = LuaLimits(instructions=1_000_000)
    started = time.monotonic()
    with pytest.raises(LuaScriptError, match="exceeded its limit of 1000000 instructions"):
        run("function F() while true do end end", sandbox=LuaSandbox(limits))
    assert time.monotonic() - started < 2


def test_pcall_cannot_swallow_the_limit() -> None:
    """A script that catches errors still stops when its time is up."""
    script = "function F() while true do pcall(function() while true do end end) end end"
    with pytest.raises(LuaScriptError, match="exceeded its limit"):
        run(script, sandbox=LuaSandbox(LuaLimits(instructions=1_000_000)))


def test_a_memory_bomb_stops_at_the_memory_limit() -> None:
    """A script that allocates without end fails with the memory limit, and the next call works."""
    sandbox = LuaSandbox(LuaLimits(memory_bytes=16 * 1024 * 1024))
    script = "function F() local t = {} for i = 1, 1e9 do t[i] = string.rep('x', 1000) .. i end end"
    with pytest.raises(LuaScriptError, match="memory limit of 16777216 bytes"):
        run(script, sandbox=sandbox)
    assert run("function F() return 1 end", sandbox=sandbox) == [1]


def test_a_syntax_error_names_the_line() -> None:
    """check() reports Lua's compile error with its line."""
    with pytest.raises(LuaScriptError, match=r"luaScript:3: unexpected symbol near 'end'"):
        LuaSandbox().check("function F()\n  return 1 +\nend")


def test_a_missing_function_is_an_error() -> None:
    """A script without the operation's function fails as Karmada's does."""
    with pytest.raises(LuaScriptError, match="not found function F"):
        run("function G() end")


def test_a_runtime_error_names_the_line() -> None:
    """Indexing nil reports the line where it happened."""
    with pytest.raises(LuaScriptError, match=r"luaScript:2: attempt to index"):
        run("function F(obj)\n  return obj.spec.missing.field\nend", {"spec": {}})


def test_a_helper_error_names_the_helper_and_the_calling_line() -> None:
    """A bad argument to a kube helper fails with the helper's name and the script's line."""
    script = (
        'local kube = require("kube")\nfunction F()\n'
        '  local total = kube.resourceAdd("1", "lots")\n  return total\nend'
    )
    with pytest.raises(LuaScriptError, match=r"luaScript:3: kube.resourceAdd: bad argument #2"):
        run(script)
