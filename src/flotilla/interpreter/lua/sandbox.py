"""The Lua 5.1 sandbox a customization's script runs in, and its limits.

Karmada runs scripts on gopher-lua with the base, table, string and math libraries, an `os` cut down
to `time` and `date`, `require` that finds only the `kube` module, and `collectgarbage`, `dofile`,
`getfenv`, `getmetatable`, `load`, `loadfile`, `loadstring`, `rawequal`, `rawget`, `rawset`,
`setfenv`, `setmetatable`, `module` and `newproxy` replaced by functions that raise. The environment
here is the same, built in Lua from a private copy of the real libraries before `debug` and the rest
are dropped from the script's reach.

Limits, per call: a count hook stops a script after `LuaLimits.instructions` VM instructions or
`seconds` of wall-clock time (whichever first; `pcall` cannot swallow the stop, it is raised again
on return); the runtime is created with a memory budget (lupa enforces it on every allocation) and
is thrown away after a call that ran out of memory or time, so the next call starts clean. Each
script runs in a fresh copy of the globals, so one call's globals never leak into the next.

A runtime is not shared between threads (one per thread), so callers may run calls in worker threads
to keep CPU-heavy scripts off an event loop.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from lupa import lua51

from flotilla.interpreter.lua import conversion, kube

_SETUP = r"""
local limits = ...
local real_sethook, clock = debug.sethook, os.clock
local opcall, oxpcall, unpack_, select_, error_ = pcall, xpcall, unpack, select, error
local LIMIT = "script exceeded its limit of "
local state = { stopped = nil, count = 0, deadline = 0 }

local function hook()
  state.count = state.count + limits.step
  if state.stopped then error_(state.stopped, 0) end
  if state.count > limits.instructions then
    state.stopped = LIMIT .. limits.instructions .. " instructions"
  elseif clock() > state.deadline then
    state.stopped = LIMIT .. limits.seconds .. " seconds"
  end
  if state.stopped then error_(state.stopped, 0) end
end

local function rethrow_stop(...)
  if state.stopped then error_(state.stopped, 0) end
  return ...
end

local base = {
  assert = assert, error = error, ipairs = ipairs, next = next, pairs = pairs, print = function() end,
  select = select, tonumber = tonumber, tostring = tostring, type = type, unpack = unpack,
  _VERSION = _VERSION,
  pcall = function(...) return rethrow_stop(opcall(...)) end,
  xpcall = function(...) return rethrow_stop(oxpcall(...)) end,
}
local function copy(lib, names)
  local out = {}
  for _, name in ipairs(names) do out[name] = lib[name] end
  return out
end
base.string = copy(string, {"byte", "char", "find", "format", "gmatch", "gsub", "len", "lower", "match",
  "rep", "reverse", "sub", "upper"})
base.table = copy(table, {"concat", "insert", "maxn", "remove", "sort"})
base.math = copy(math, {"abs", "acos", "asin", "atan", "atan2", "ceil", "cos", "cosh", "deg", "exp",
  "floor", "fmod", "frexp", "huge", "ldexp", "log", "log10", "max", "min", "modf", "pi", "pow", "rad",
  "random", "sin", "sinh", "sqrt", "tan", "tanh"})
base.os = copy(os, {"time", "date"})
for _, name in ipairs({"collectgarbage", "dofile", "getfenv", "getmetatable", "load", "loadfile",
    "loadstring", "rawequal", "rawget", "rawset", "setfenv", "setmetatable", "module", "newproxy"}) do
  base[name] = function()
    error_("call function " .. name .. " is not supported in karmada customized resourceinterpreter.", 2)
  end
end
local modules = {}
base.require = function(name)
  local module = modules[name]
  if module == nil then error_("module '" .. tostring(name) .. "' not found", 2) end
  return module
end
local string_meta = getmetatable("")
string_meta.__index = base.string

local loadstring_, setfenv_ = loadstring, setfenv
local LIBRARIES = { string = true, table = true, math = true, os = true }

-- A fresh copy of the globals per call: a script's globals are real globals, as in Karmada (a script
-- may assign nil to `error` and read nil back), and nothing it changes outlives it. The libraries
-- are copied on first use only (most scripts touch one or none of them): `__index` copies one when
-- a script first reads it, and a name the script has assigned (nil included) is never looked up again.
local setmetatable_, rawset_ = setmetatable, rawset
local function fresh_env()
  local env, assigned = {}, {}
  for name, value in pairs(base) do
    if not LIBRARIES[name] then env[name] = value end
  end
  return setmetatable_(env, {
    __index = function(t, name)
      if assigned[name] or not LIBRARIES[name] then return nil end
      local copied = {}
      for key, fn in pairs(base[name]) do copied[key] = fn end
      assigned[name] = true
      rawset_(t, name, copied)
      return copied
    end,
    __newindex = function(t, name, value)
      assigned[name] = true
      rawset_(t, name, value)
    end,
  })
end

local function compile(script, chunkname)
  return loadstring_(script, chunkname)
end

local function run(chunk, fname, nresults, ...)
  local env = fresh_env()
  setfenv_(chunk, env)
  state.stopped, state.count, state.deadline = nil, 0, clock() + limits.seconds
  real_sethook(hook, "", limits.step)
  local results = { opcall(function(...)
    chunk()
    local fn = env[fname]
    if fn == nil then error_("not found function " .. fname, 0) end
    if type(fn) ~= "function" then error_(fname .. " is not a function: " .. type(fn), 0) end
    return fn(...)
  end, ...) }
  real_sethook()
  local stopped = state.stopped
  state.stopped = nil
  if stopped then return false, stopped, true end
  if not results[1] then return false, results[2], false end
  local out = {}
  for i = 1, nresults do out[i] = results[i + 1] end
  return true, out, false
end

local function defines(chunk, fname)
  local env = fresh_env()
  setfenv_(chunk, env)
  state.stopped, state.count, state.deadline = nil, 0, clock() + limits.seconds
  real_sethook(hook, "", limits.step)
  local ok, message = opcall(chunk)
  real_sethook()
  local stopped = state.stopped
  state.stopped = nil
  if stopped then return false, stopped end
  if not ok then return false, message end
  return type(env[fname]) == "function"
end

-- Helpers written in Python are called through Lua closures, so scripts see functions and their
-- errors carry the calling line.
local function install(name, functions)
  local module = {}
  for key, fn in pairs(functions) do
    module[key] = function(...)
      local ok, result = opcall(fn, ...)
      -- Level 2: the message names the script's line that called the helper.
      if not ok then error_(name .. "." .. key .. ": " .. tostring(result), 2) end
      return result
    end
  end
  modules[name] = module
end

debug, io, package, coroutine, require, dofile, loadfile, load = nil, nil, nil, nil, nil, nil, nil, nil
return compile, run, defines, install
"""

_LUA_OUT_OF_MEMORY = "not enough memory"
"""Lua's message when an allocation fails (lupa refuses it past the runtime's budget)."""
_KEEP_COMPILED = 256
"""How many compiled scripts a runtime keeps (customizations are few; their scripts are reused)."""


class LuaScriptError(Exception):
    """A script failed to compile or to run, or returned what its operation does not take."""


@dataclass(frozen=True, slots=True)
class LuaLimits:
    """What one call may use."""

    instructions: int = 20_000_000
    """VM instructions per call (counted in steps of `step`); Karmada's limit is 1 s of time only."""
    seconds: float = 1.0
    """Wall-clock time per call, as Karmada's context timeout."""
    memory_bytes: int = 64 * 1024 * 1024
    """The runtime's whole memory budget (lupa enforces it per allocation)."""
    step: int = 1000
    """How often the hook checks the limits, in instructions."""


class _Runtime:
    def __init__(self, limits: LuaLimits) -> None:
        self.lua = lua51.LuaRuntime(
            register_eval=False, register_builtins=False, unpack_returned_tuples=True,
            max_memory=limits.memory_bytes,
        )  # fmt: skip
        table = self.lua.table_from(
            {"instructions": limits.instructions, "seconds": limits.seconds, "step": limits.step}
        )
        self.compile, self.run, self.defines, install = self.lua.execute(_SETUP, table)
        install("kube", kube.kube_module(self.lua))
        self.compiled: OrderedDict[str, Any] = OrderedDict()

    def chunk(self, script: str) -> Any:
        chunk = self.compiled.get(script)
        if chunk is not None:
            self.compiled.move_to_end(script)
            return chunk
        compiled = self.compile(script, "=luaScript")
        # Lua's loadstring returns the chunk alone, or nil and the message.
        if isinstance(compiled, tuple):
            raise LuaScriptError(str(compiled[1]))
        chunk = compiled
        self.compiled[script] = chunk
        if len(self.compiled) > _KEEP_COMPILED:
            self.compiled.popitem(last=False)
        return chunk


class LuaSandbox:
    """Runs a script's function with converted arguments; one runtime per thread."""

    def __init__(self, limits: LuaLimits | None = None) -> None:
        self.limits = limits or LuaLimits()
        self._local = threading.local()

    def _runtime(self) -> _Runtime:
        runtime: _Runtime | None = getattr(self._local, "runtime", None)
        if runtime is None:
            runtime = _Runtime(self.limits)
            self._local.runtime = runtime
        return runtime

    def _discard(self) -> None:
        self._local.runtime = None

    def _out_of_memory(self) -> str:
        return f"script exceeded its memory limit of {self.limits.memory_bytes} bytes"

    def check(self, script: str) -> None:
        """Compile `script`; raise LuaScriptError with Lua's message (and line) if it does not."""
        try:
            self._runtime().chunk(script)
        except lua51.LuaError as error:
            raise LuaScriptError(str(error)) from error

    def defines(self, script: str, function: str) -> bool:
        """Whether running `script` (its top level only) defines the global `function`; raise
        LuaScriptError if the script does not compile or its top level fails."""
        runtime = self._runtime()
        try:
            result = runtime.defines(runtime.chunk(script), function)
        except lua51.LuaError as error:
            self._discard()
            raise LuaScriptError(str(error)) from error
        if isinstance(result, tuple):
            self._discard()
            raise LuaScriptError(str(result[1]))
        return bool(result)

    def call(
        self,
        script: str,
        function: str,
        args: Sequence[Any],
        nresults: int,
        convert: Callable[[Any], Any] | None = None,
    ) -> list[Any]:
        """Run `script`, then call its global `function` with `args` (JSON values) and return its first
        `nresults` results as Lua values passed through `convert` (raw Lua values if None)."""
        runtime = self._runtime()
        try:
            chunk = runtime.chunk(script)
            lua_args = [conversion.to_lua(runtime.lua, arg) for arg in args]
            ok, out, stopped = runtime.run(chunk, function, nresults, *lua_args)
            if not ok:
                if stopped:
                    self._discard()
                if str(out) == _LUA_OUT_OF_MEMORY:
                    self._discard()
                    raise LuaScriptError(self._out_of_memory())
                raise LuaScriptError(str(out))
            results = [out[index + 1] for index in range(nresults)]
            return [convert(value) for value in results] if convert else results
        except lua51.LuaMemoryError as error:
            self._discard()
            raise LuaScriptError(self._out_of_memory()) from error
        except lua51.LuaError as error:
            self._discard()
            raise LuaScriptError(str(error)) from error
        except conversion.ConversionError as error:
            raise LuaScriptError(str(error)) from error
        except MemoryError as error:
            self._discard()
            raise LuaScriptError(self._out_of_memory()) from error
