"""Lua customization cost per call beside the built-in Python interpreter, for the same kind, same run.

A Deployment is interpreted twice: by the built-in rules (`flotilla.interpreter`) and by a
ResourceInterpreterCustomization in Karmada's shape targeting `apps/v1 Deployment` (written here:
GetReplicas through `kube.accuratePodRequirements`, AggregateStatus summing the counters of every
member as the built-in rule does). Each operation is timed over many calls after a warm-up:

- GetReplicas on a Deployment with two containers, requests, a node selector and tolerations;
- AggregateStatus of the same Deployment with 10 members' statuses.

Ratio = Lua / built-in per call (each the best of 10 rounds, taken in turn); issue #20's goal is <= 5x.

Run: `.venv/bin/python bench/interpreter.py [--calls 5000]`.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from flotilla.interpreter import aggregate_status, get_replicas
from flotilla.interpreter.lua import CustomizationIndex, CustomizedInterpreter

GET_REPLICAS = """
local kube = require("kube")
function GetReplicas(obj)
  local replica = obj.spec.replicas
  if replica == nil then replica = 1 end
  local requirement = kube.accuratePodRequirements(obj.spec.template)
  return replica, requirement
end
"""

AGGREGATE_STATUS = """
function AggregateStatus(desiredObj, statusItems)
  if statusItems == nil then return desiredObj end
  local status = { replicas = 0, readyReplicas = 0, updatedReplicas = 0, availableReplicas = 0,
    unavailableReplicas = 0 }
  local generation = desiredObj.metadata.generation
  local observed = generation
  for i = 1, #statusItems do
    local item = statusItems[i].status
    if item ~= nil then
      status.replicas = status.replicas + (item.replicas or 0)
      status.readyReplicas = status.readyReplicas + (item.readyReplicas or 0)
      status.updatedReplicas = status.updatedReplicas + (item.updatedReplicas or 0)
      status.availableReplicas = status.availableReplicas + (item.availableReplicas or 0)
      status.unavailableReplicas = status.unavailableReplicas + (item.unavailableReplicas or 0)
      if item.observedGeneration == nil or item.generation == nil
          or item.observedGeneration < item.generation then
        observed = desiredObj.status and desiredObj.status.observedGeneration or 0
      end
    else
      observed = desiredObj.status and desiredObj.status.observedGeneration or 0
    end
  end
  status.observedGeneration = observed
  desiredObj.status = status
  return desiredObj
end
"""


def customization() -> dict[str, Any]:
    return {
        "apiVersion": "config.karmada.io/v1alpha1",
        "kind": "ResourceInterpreterCustomization",
        "metadata": {"name": "bench-deployment"},
        "spec": {
            "target": {"apiVersion": "apps/v1", "kind": "Deployment"},
            "customizations": {
                "replicaResource": {"luaScript": GET_REPLICAS},
                "statusAggregation": {"luaScript": AGGREGATE_STATUS},
            },
        },
    }


def deployment() -> dict[str, Any]:
    container = {
        "image": "nginx:1.27",
        "resources": {"requests": {"cpu": "250m", "memory": "128Mi"}, "limits": {"cpu": "500m"}},
        "env": [{"name": "MODE", "value": "bench"}],
    }
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "default", "generation": 3, "labels": {"app": "web"}},
        "spec": {
            "replicas": 20,
            "selector": {"matchLabels": {"app": "web"}},
            "template": {
                "metadata": {"labels": {"app": "web"}},
                "spec": {
                    "containers": [{"name": "web", **container}, {"name": "sidecar", **container}],
                    "nodeSelector": {"disk": "ssd"},
                    "tolerations": [{"key": "dedicated", "operator": "Equal", "value": "web"}],
                },
            },
        },
        "status": {"observedGeneration": 3},
    }


def status_items(members: int) -> list[dict[str, Any]]:
    return [
        {
            "clusterName": f"member{index}",
            "applied": True,
            "health": "Healthy",
            "status": {
                "replicas": 2,
                "readyReplicas": 2,
                "updatedReplicas": 2,
                "availableReplicas": 2,
                "observedGeneration": 3,
                "generation": 3,
                "resourceTemplateGeneration": 3,
            },
        }
        for index in range(members)
    ]


ROUNDS = 10
"""Each figure is the best of this many rounds (as `timeit` reports), the built-in's and Lua's rounds
taken in turn: on a shared machine a slow round says more about the neighbours than about the code,
and alternating gives both sides the same neighbours."""


def per_call(built_in: Callable[[], object], lua: Callable[[], object], calls: int) -> tuple[float, float]:
    """The best per-call time of each, over rounds taken in turn."""
    for _ in range(min(calls, 200)):
        built_in()
        lua()
    best = [float("inf"), float("inf")]
    per_round = max(1, calls // ROUNDS)
    for _ in range(ROUNDS):
        for side, run in enumerate((built_in, lua)):
            started = time.perf_counter()
            for _ in range(per_round):
                run()
            best[side] = min(best[side], (time.perf_counter() - started) / per_round)
    return best[0], best[1]


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--calls", type=int, default=5000)
    parser.add_argument("--members", type=int, default=10)
    args = parser.parse_args()

    lua = CustomizedInterpreter(CustomizationIndex.from_objects([customization()]))
    obj = deployment()
    items = status_items(args.members)
    now = datetime.now(UTC)
    built_in_replicas = get_replicas(obj)
    lua_replicas = lua.get_replicas(obj)
    # The same answer (the built-in rule also names the namespace, which kube's helper leaves out).
    if built_in_replicas is None or lua_replicas is None or lua_replicas.requirements is None:
        raise SystemExit("no replicas interpreted")
    expected = {**(built_in_replicas.requirements or {}), "namespace": None}
    if {**lua_replicas.requirements, "namespace": None} != expected:
        raise SystemExit(f"different requirements: {lua_replicas.requirements} vs {expected}")

    rows = [
        ("GetReplicas", *per_call(lambda: get_replicas(obj), lambda: lua.get_replicas(obj), args.calls)),
        (
            f"AggregateStatus ({args.members} members)",
            *per_call(
                lambda: aggregate_status(obj, items, now=now),
                lambda: lua.aggregate_status(obj, items),
                args.calls,
            ),
        ),
    ]
    print(f"{'operation':<30} {'built-in µs':>12} {'Lua µs':>10} {'ratio':>7}  goal <= 5x")
    for name, built_in, customized in rows:
        ratio = customized / built_in
        verdict = "ok" if ratio <= 5 else "over"
        print(f"{name:<30} {built_in * 1e6:>12.1f} {customized * 1e6:>10.1f} {ratio:>6.1f}x  {verdict}")


if __name__ == "__main__":
    main()
