"""A customization in Karmada's shape for a made-up kind (`apps.example.io/v1` Fleet), for these tests."""

from __future__ import annotations

from typing import Any

FLEET_API_VERSION = "apps.example.io/v1"

GET_REPLICAS = """
local kube = require("kube")
function GetReplicas(obj)
  local replica = obj.spec.replicas
  local requirement = kube.accuratePodRequirements(obj.spec.template)
  return replica, requirement
end
"""

REVISE_REPLICA = """
function ReviseReplica(obj, desiredReplica)
  obj.spec.replicas = desiredReplica
  return obj
end
"""

RETAIN = """
function Retain(desiredObj, observedObj)
  if observedObj.spec.paused ~= nil then
    desiredObj.spec.paused = observedObj.spec.paused
  end
  return desiredObj
end
"""

REFLECT_STATUS = """
function ReflectStatus(observedObj)
  if observedObj.status == nil then
    return {}
  end
  return { readyReplicas = observedObj.status.readyReplicas, generation = observedObj.metadata.generation }
end
"""

AGGREGATE_STATUS = """
function AggregateStatus(desiredObj, statusItems)
  if statusItems == nil then
    return desiredObj
  end
  local ready = 0
  local clusters = {}
  for i = 1, #statusItems do
    local item = statusItems[i]
    if item.status ~= nil and item.status.readyReplicas ~= nil then
      ready = ready + item.status.readyReplicas
    end
    table.insert(clusters, item.clusterName)
  end
  desiredObj.status = { readyReplicas = ready, clusters = clusters }
  return desiredObj
end
"""

INTERPRET_HEALTH = """
function InterpretHealth(observedObj)
  if observedObj.status == nil or observedObj.status.readyReplicas == nil then
    return false
  end
  return observedObj.status.readyReplicas == observedObj.spec.replicas
end
"""

GET_DEPENDENCIES = """
local kube = require("kube")
function GetDependencies(desiredObj)
  return kube.getPodDependencies(desiredObj.spec.template, desiredObj.metadata.namespace)
end
"""


def fleet_customization(name: str = "fleet", **scripts: str) -> dict[str, Any]:
    rules = {
        "replicaResource": GET_REPLICAS,
        "replicaRevision": REVISE_REPLICA,
        "retention": RETAIN,
        "statusReflection": REFLECT_STATUS,
        "statusAggregation": AGGREGATE_STATUS,
        "healthInterpretation": INTERPRET_HEALTH,
        "dependencyInterpretation": GET_DEPENDENCIES,
        **scripts,
    }
    return {
        "apiVersion": "config.karmada.io/v1alpha1",
        "kind": "ResourceInterpreterCustomization",
        "metadata": {"name": name},
        "spec": {
            "target": {"apiVersion": FLEET_API_VERSION, "kind": "Fleet"},
            "customizations": {field: {"luaScript": script} for field, script in rules.items() if script},
        },
    }


def fleet(replicas: int = 4, ready: int | None = None) -> dict[str, Any]:
    obj: dict[str, Any] = {
        "apiVersion": FLEET_API_VERSION,
        "kind": "Fleet",
        "metadata": {"name": "web", "namespace": "default", "generation": 2, "labels": {}},
        "spec": {
            "replicas": replicas,
            "selector": {},
            "template": {
                "metadata": {"labels": {"app": "web"}},
                "spec": {
                    "containers": [
                        {
                            "name": "web",
                            "image": "nginx",
                            "resources": {"requests": {"cpu": "250m", "memory": "64Mi"}},
                            "envFrom": [{"configMapRef": {"name": "web-config"}}],
                        }
                    ],
                    "nodeSelector": {"zone": "a"},
                },
            },
        },
    }
    if ready is not None:
        obj["status"] = {"readyReplicas": ready}
    return obj
