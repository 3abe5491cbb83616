"""Which clusters a `flotilla sim` process serves: from command-line flags or a YAML file.

clusters:
- name: sz
  nodes: 3
  nodeCPU: "8"
  nodeMemory: 32Gi
  nodePods: 110
  kubernetesVersion: v1.32.4
  labels: {topology.kubernetes.io/region: cn-south, topology.kubernetes.io/zone: cn-south-1a, provider: sim}
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml

from flotilla.sim.spec import ClusterSpec, Timing

_NAME = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?\Z")


class ConfigError(ValueError):
    """The cluster list is not usable; the message says what to fix."""


def check_name(name: str) -> str:
    if not _NAME.match(name) or len(name) > 48:
        raise ConfigError(
            f"cluster name {name!r} must be a DNS label of at most 48 characters: lower-case letters, digits "
            "and '-', starting and ending with a letter or digit"
        )
    return name


def clusters_from_flags(
    names: str, *, nodes: int, node_cpu: str, node_memory: str, node_pods: int, timing: Timing
) -> list[ClusterSpec]:
    found = [n.strip() for n in names.split(",") if n.strip()]
    if not found:
        raise ConfigError("--clusters needs at least one name, e.g. --clusters member1,member2")
    _check_unique(found)
    return [
        ClusterSpec(
            check_name(name),
            nodes=nodes,
            node_cpu=node_cpu,
            node_memory=node_memory,
            node_pods=node_pods,
            labels=default_labels(index),
            timing=timing,
        )
        for index, name in enumerate(found)
    ]


def default_labels(index: int) -> dict[str, str]:
    """Spread clusters over two regions with two zones each, so placement examples have something to pick."""
    region = ("region-a", "region-b")[index % 2]
    return {
        "topology.kubernetes.io/region": region,
        "topology.kubernetes.io/zone": f"{region}-{1 + index // 2 % 2}",
        "provider": "flotilla-sim",
    }


def clusters_from_file(path: Path, timing: Timing) -> list[ClusterSpec]:
    try:
        data = yaml.safe_load(path.read_text())
    except (OSError, yaml.YAMLError) as exc:
        raise ConfigError(f"cannot read {path}: {exc}") from exc
    entries = data.get("clusters") if isinstance(data, dict) else None
    if not isinstance(entries, list) or not entries:
        raise ConfigError(f"{path}: expected a top-level 'clusters:' list with at least one cluster")
    specs = [_spec(entry, index, path, timing) for index, entry in enumerate(entries)]
    _check_unique([s.name for s in specs])
    return specs


def _spec(entry: Any, index: int, path: Path, timing: Timing) -> ClusterSpec:
    where = f"{path}: clusters[{index}]"
    if not isinstance(entry, dict) or not isinstance(entry.get("name"), str):
        raise ConfigError(f"{where} needs a 'name'")
    known = {"name", "nodes", "nodeCPU", "nodeMemory", "nodePods", "labels", "kubernetesVersion"}
    unknown = sorted(set(entry) - known)
    if unknown:
        raise ConfigError(
            f"{where}: unknown field(s) {', '.join(unknown)}; known: {', '.join(sorted(known))}"
        )
    labels = entry.get("labels") or {}
    if not isinstance(labels, dict) or not all(isinstance(v, str) for v in labels.values()):
        raise ConfigError(f"{where}.labels must map label names to strings")
    nodes = entry.get("nodes", 3)
    if not isinstance(nodes, int) or nodes < 0:
        raise ConfigError(f"{where}.nodes must be a non-negative integer")
    version = str(entry.get("kubernetesVersion", "v1.32.4"))
    if not re.fullmatch(r"v1\.\d+\.\d+", version):
        raise ConfigError(f"{where}.kubernetesVersion must look like v1.32.4")
    return ClusterSpec(
        check_name(entry["name"]),
        nodes=nodes,
        node_cpu=str(entry.get("nodeCPU", "8")),
        node_memory=str(entry.get("nodeMemory", "32Gi")),
        node_pods=int(entry.get("nodePods", 110)),
        labels={**default_labels(index), **labels},
        kubernetes_version=version,
        timing=timing,
    )


def _check_unique(names: list[str]) -> None:
    seen: set[str] = set()
    for name in names:
        if name in seen:
            raise ConfigError(f"cluster name {name!r} is given twice")
        seen.add(name)
