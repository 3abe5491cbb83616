"""Lua customizations: Karmada's ResourceInterpreterCustomization scripts, run in a bounded sandbox.

Why it exists: users teach Karmada how to split, retain, health-check and aggregate their own kinds
with Lua scripts (`config.karmada.io/v1alpha1` ResourceInterpreterCustomization), and the scripts
they already have must run here unchanged. Karmada runs them on gopher-lua (Lua 5.1) with a few
libraries and a `kube` helper module; this package runs them on lupa's Lua 5.1 with the same
globals, the same `require("kube")` helpers (`kube`), the same conversions between JSON objects and
Lua tables (`conversion`), one function per interpreter operation (`operations`) and Karmada's
precedence of customizations by name (`customizations`). A script gets no `io`, `debug`, `load*`,
`dofile` or `require` beyond `kube`, a count of VM instructions, a wall-clock deadline and a memory
budget (`sandbox`); whatever it does, a call returns a result or raises `LuaScriptError` naming the
customization and the operation, so a controller falls back to the built-in interpreter and says so.

It is pure (no I/O): controllers read the customizations with an informer and hand them in.
"""

from flotilla.interpreter.lua.customizations import (
    Customization,
    CustomizationIndex,
    Operation,
    parse_customization,
)
from flotilla.interpreter.lua.operations import CustomizedInterpreter
from flotilla.interpreter.lua.sandbox import LuaLimits, LuaSandbox, LuaScriptError

__all__ = [
    "Customization",
    "CustomizationIndex",
    "CustomizedInterpreter",
    "LuaLimits",
    "LuaSandbox",
    "LuaScriptError",
    "Operation",
    "parse_customization",
]
