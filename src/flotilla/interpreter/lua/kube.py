"""The `kube` module a script gets from `require("kube")`: Karmada's helper functions.

Karmada's `luavm/kube.go` defines four, and scripts call them by these names:

- `resourceAdd(q1, q2, ...)`: the sum of resource quantities (nil counts as zero), as a quantity
  string in canonical form (`"1500m"`, `"3Gi"`);
- `accuratePodRequirements(podTemplate)`: a pod template's replica requirements
  (`{nodeClaim = {...}, resourceRequest = {...}}`, or nil when it claims and requests nothing);
- `getPodDependencies(podTemplate, namespace)`: the ConfigMaps, Secrets, ServiceAccounts and PVCs it
  refers to, as dependency references (`namespace` nil means `default`);
- `getResourceQuantity(q)`: a quantity as a number (an approximation, as Go's `AsApproximateFloat64`).

They reuse the built-in interpreter's own rules, so a script and the built-in interpreter agree on
what a pod template needs.
"""

from __future__ import annotations

from collections import OrderedDict
from fractions import Fraction
from typing import Any

from lupa import lua51

from flotilla.api.quantities import Format, Quantity, QuantityError, canonical, parse_quantity
from flotilla.interpreter.dependencies import pod_template_dependencies
from flotilla.interpreter.lua import conversion
from flotilla.interpreter.replicas import replica_requirements


def _quantity(value: Any, position: int) -> Quantity:
    if value is None:
        return Quantity(Fraction(0), Format.DECIMAL_SI)
    if not isinstance(value, str | bytes):
        got = lua51.lua_type(value) or "number"
        raise TypeError(f"bad argument #{position} (string expected, got {got})")
    text = value.decode() if isinstance(value, bytes) else value
    try:
        return parse_quantity(text)
    except QuantityError as error:
        raise ValueError(f"bad argument #{position}: {error}") from error


def _pod_template(value: Any, function: str) -> dict[str, Any]:
    if lua51.lua_type(value) != "table":
        raise ValueError(f"bad argument #1 to {function} (table expected)")
    template = conversion.from_lua(value)
    return template if isinstance(template, dict) else {}


_REQUIREMENT_FIELDS = """
local function project(template)
  local spec = template.spec
  if type(spec) ~= "table" then return { spec = spec } end
  local out = { affinity = spec.affinity, nodeSelector = spec.nodeSelector, tolerations = spec.tolerations,
    priorityClassName = spec.priorityClassName, overhead = spec.overhead }
  for _, field in ipairs({ "containers", "initContainers" }) do
    local containers = spec[field]
    if type(containers) == "table" then
      local kept = {}
      for key, container in pairs(containers) do
        if type(container) == "table" then
          kept[key] = { resources = container.resources, restartPolicy = container.restartPolicy }
        else
          kept[key] = container
        end
      end
      containers = kept
    end
    out[field] = containers
  end
  return { spec = out }
end

-- The projection's content as a flat list of tokens: "{" and "}" around a table, "k" .. key for a
-- string key, "s" .. value for a string, numbers and booleans as they are. Equal lists mean equal
-- content, so Python can key a cache on it without walking the tables itself.
local function flatten(value, out, n, depth)
  if depth > 100 then error("too deeply nested", 0) end
  local kind = type(value)
  if kind == "table" then
    n = n + 1; out[n] = "{"
    for key, item in pairs(value) do
      n = n + 1
      if type(key) == "string" then out[n] = "k" .. key else out[n] = key end
      n = flatten(item, out, n, depth + 1)
    end
    n = n + 1; out[n] = "}"
  elseif kind == "string" then
    n = n + 1; out[n] = "s" .. value
  else
    n = n + 1; out[n] = value
  end
  return n
end

return function(template)
  local projected = project(template)
  local ok, tokens = pcall(function()
    local out = {}
    flatten(projected, out, 0, 0)
    return out
  end)
  return projected, ok and tokens or nil
end
"""
"""The fields of a pod template that `accuratePodRequirements` reads, picked out in Lua (converting a
whole template to Python — env, probes, volumes — cost more than the rule itself), with a flat list
of their content to look the answer up by."""
_KEEP_REQUIREMENTS = 256
"""How many pod templates' requirements a runtime remembers (the same templates come back on every
reconcile, and the rule is pure)."""


def kube_module(runtime: lua51.LuaRuntime) -> Any:
    """The `kube` table for `runtime`."""

    def resource_add(*values: Any) -> str:
        total = Fraction(0)
        notation = Format.DECIMAL_SI
        for position, value in enumerate(values, start=1):
            quantity = _quantity(value, position)
            if total == 0:
                notation = quantity.format
            total += quantity.amount
        return canonical(Quantity(total, notation))

    requirement_fields = runtime.execute(_REQUIREMENT_FIELDS)
    known: OrderedDict[tuple[Any, ...], dict[str, Any] | None] = OrderedDict()

    def pod_requirements(template: Any) -> dict[str, Any] | None:
        # Only what the requirements are made of crosses into Python (not env, probes, volumes…).
        projected, tokens = requirement_fields(template)
        key = tuple(tokens.values()) if tokens is not None else None
        if key is not None and key in known:
            known.move_to_end(key)
            return known[key]
        converted = conversion.from_lua(projected)
        spec = (converted.get("spec") if isinstance(converted, dict) else None) or {}
        requirements = replica_requirements(spec)
        if requirements is not None:
            requirements.pop("priorityClassName", None)
        if key is not None:
            known[key] = requirements
            if len(known) > _KEEP_REQUIREMENTS:
                known.popitem(last=False)
        return requirements

    def accurate_pod_requirements(*args: Any) -> Any:
        if len(args) != 1:
            raise ValueError("getPodRequirements only accepts one argument")
        if lua51.lua_type(args[0]) != "table":
            raise ValueError("bad argument #1 to accuratePodRequirements (table expected)")
        requirements = pod_requirements(args[0])
        if requirements is None:
            return None
        # Fresh tables every call (a script may change them); the dict is ours and shares nothing.
        return runtime.table_from(requirements, recursive=True)

    def get_pod_dependencies(*args: Any) -> Any:
        if len(args) != 2:
            raise ValueError("getPodDependencies only accepts two argument")
        spec = _pod_template(args[0], "getPodDependencies").get("spec") or {}
        namespace = args[1]
        if namespace is None:
            namespace = "default"
        elif isinstance(namespace, int | float):
            namespace = str(conversion.from_lua(namespace))
        elif isinstance(namespace, bytes):
            namespace = namespace.decode()
        elif not isinstance(namespace, str):
            raise ValueError("bad argument #2 (string expected)")
        return conversion.to_lua(runtime, pod_template_dependencies(spec, namespace))

    def get_resource_quantity(*args: Any) -> float:
        if len(args) != 1:
            raise ValueError("getResourceQuantity only accepts one argument")
        number = float(_quantity(args[0], 1).amount)
        if number < 0:
            raise ValueError(f"int approximation unexpectedly returned a negative value: {args[0]!r}")
        return number

    return runtime.table_from(
        {
            "resourceAdd": resource_add,
            "accuratePodRequirements": accurate_pod_requirements,
            "getPodDependencies": get_pod_dependencies,
            "getResourceQuantity": get_resource_quantity,
        }
    )
