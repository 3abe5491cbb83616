"""Which clusters a `flotilla sim` process serves: from command-line flags or a YAML file.

clusters:
- name: sz
  nodes: 3
  nodeCPU: "8"
  nodeMemory: 32Gi
  nodePods: 110
  kubernetesVersion: v1.32.4
  labels: {topology.kubernetes.io/region: cn-south, topology.kubernetes.io/zone: cn-south-1a, provider: sim}
execs:                      # kwok's ClusterExec: `kubectl exec` runs the command here (off unless given)
- selector: {matchNamespaces: [default], matchNames: [web-0]}   # no selector: every pod
  containers: [app]                                             # none: every container
  local: {workDir: /tmp, envs: [{name: GREETING, value: hello}]}
  timeoutSeconds: 300
logs:                       # kwok's ClusterLogs: a container's log is this file
- logsFile: /var/log/app.log
  previousLogsFile: /var/log/app.1.log                          # what `logs --previous` shows
horizontalPodAutoscaler:    # kube-controller-manager's --horizontal-pod-autoscaler-* (kube's defaults)
  syncPeriodSeconds: 15
  downscaleStabilizationSeconds: 300
  tolerance: 0.1
  cpuInitializationPeriodSeconds: 300
  initialReadinessDelaySeconds: 30
`execs`, `logs` and `horizontalPodAutoscaler` at the top apply to every cluster; a cluster's own
`execs`/`logs` replace them, its own `horizontalPodAutoscaler` fields override theirs.
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path
from typing import Any

import yaml

from flotilla.sim.spec import (
    AutoscalerSettings,
    ClusterSpec,
    ExecRule,
    LogRule,
    PodSelector,
    PodStreams,
    Timing,
)

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
    assert isinstance(data, dict)  # narrowed above, for the type checker
    unknown = sorted(set(data) - {"clusters", "execs", "logs", "horizontalPodAutoscaler"})
    if unknown:
        raise ConfigError(
            f"{path}: unknown top-level field(s) {', '.join(unknown)}; "
            "known: clusters, execs, logs, horizontalPodAutoscaler"
        )
    streams = pod_streams(data, str(path))
    autoscaling = autoscaler_settings(data, str(path))
    specs = [_spec(entry, index, path, timing, streams, autoscaling) for index, entry in enumerate(entries)]
    _check_unique([s.name for s in specs])
    return specs


def _spec(
    entry: Any,
    index: int,
    path: Path,
    timing: Timing,
    streams: PodStreams,
    autoscaling: AutoscalerSettings,
) -> ClusterSpec:
    where = f"{path}: clusters[{index}]"
    if not isinstance(entry, dict) or not isinstance(entry.get("name"), str):
        raise ConfigError(f"{where} needs a 'name'")
    known = {
        "name",
        "nodes",
        "nodeCPU",
        "nodeMemory",
        "nodePods",
        "labels",
        "kubernetesVersion",
        "execs",
        "logs",
        "horizontalPodAutoscaler",
    }
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
        streams=pod_streams(entry, where, streams),
        autoscaling=autoscaler_settings(entry, where, autoscaling),
    )


def pod_streams(data: dict[str, Any], where: str, inherited: PodStreams | None = None) -> PodStreams:
    """The `execs` and `logs` of a mapping (the file's top level or one cluster's entry); what it does not
    give is `inherited`."""
    inherited = inherited or PodStreams()
    execs = inherited.execs
    if "execs" in data:
        execs = tuple(_exec_rule(e, f"{where}.execs[{i}]") for i, e in enumerate(_list(data["execs"], where)))
    logs = inherited.logs
    if "logs" in data:
        logs = tuple(_log_rule(e, f"{where}.logs[{i}]") for i, e in enumerate(_list(data["logs"], where)))
    return PodStreams(execs=execs, logs=logs)


_AUTOSCALER_FIELDS = {
    "syncPeriodSeconds": "sync_period",
    "downscaleStabilizationSeconds": "downscale_stabilization",
    "tolerance": "tolerance",
    "cpuInitializationPeriodSeconds": "cpu_initialization_period",
    "initialReadinessDelaySeconds": "initial_readiness_delay",
}


def autoscaler_settings(
    data: dict[str, Any], where: str, inherited: AutoscalerSettings | None = None
) -> AutoscalerSettings:
    """The `horizontalPodAutoscaler` of a mapping (the file's top level or one cluster's entry); the
    fields it does not give are `inherited`'s."""
    settings = inherited or AutoscalerSettings()
    if "horizontalPodAutoscaler" not in data:
        return settings
    where = f"{where}.horizontalPodAutoscaler"
    given = _fields(data["horizontalPodAutoscaler"] or {}, where, set(_AUTOSCALER_FIELDS))
    values: dict[str, float] = {}
    for name, value in given.items():
        if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
            raise ConfigError(f"{where}.{name} must be a non-negative number")
        values[_AUTOSCALER_FIELDS[name]] = float(value)
    if values.get("sync_period") == 0:
        raise ConfigError(f"{where}.syncPeriodSeconds must be more than 0")
    return dataclasses.replace(settings, **values)


def _list(value: Any, where: str) -> list[Any]:
    if not isinstance(value, list):
        raise ConfigError(f"{where}: execs and logs must be lists")
    return value


def _strings(value: Any, where: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{where} must be a list of strings")
    return tuple(value)


def _fields(entry: Any, where: str, known: set[str]) -> dict[str, Any]:
    if not isinstance(entry, dict):
        raise ConfigError(f"{where} must be a mapping")
    unknown = sorted(set(entry) - known)
    if unknown:
        raise ConfigError(
            f"{where}: unknown field(s) {', '.join(unknown)}; known: {', '.join(sorted(known))}"
        )
    return entry


def _selector(entry: dict[str, Any], where: str) -> PodSelector:
    selector = _fields(entry.get("selector") or {}, f"{where}.selector", {"matchNamespaces", "matchNames"})
    return PodSelector(
        match_namespaces=_strings(selector.get("matchNamespaces"), f"{where}.selector.matchNamespaces"),
        match_names=_strings(selector.get("matchNames"), f"{where}.selector.matchNames"),
    )


def _exec_rule(entry: Any, where: str) -> ExecRule:
    rule = _fields(entry, where, {"selector", "containers", "local", "timeoutSeconds"})
    local = _fields(rule.get("local"), f"{where}.local", {"workDir", "envs"})
    envs: list[tuple[str, str]] = []
    for index, env in enumerate(local.get("envs") or []):
        pair = _fields(env, f"{where}.local.envs[{index}]", {"name", "value"})
        if not isinstance(pair.get("name"), str) or not pair["name"]:
            raise ConfigError(f"{where}.local.envs[{index}] needs a 'name'")
        envs.append((pair["name"], str(pair.get("value", ""))))
    timeout = rule.get("timeoutSeconds", 300)
    if not isinstance(timeout, int | float) or timeout <= 0:
        raise ConfigError(f"{where}.timeoutSeconds must be a positive number")
    return ExecRule(
        selector=_selector(rule, where),
        containers=_strings(rule.get("containers"), f"{where}.containers"),
        work_dir=str(local.get("workDir") or ""),
        envs=tuple(envs),
        timeout_seconds=float(timeout),
    )


def _log_rule(entry: Any, where: str) -> LogRule:
    rule = _fields(entry, where, {"selector", "containers", "logsFile", "previousLogsFile"})
    if not isinstance(rule.get("logsFile"), str) or not rule["logsFile"]:
        raise ConfigError(f"{where} needs a 'logsFile'")
    return LogRule(
        logs_file=rule["logsFile"],
        selector=_selector(rule, where),
        containers=_strings(rule.get("containers"), f"{where}.containers"),
        previous_logs_file=str(rule.get("previousLogsFile") or ""),
    )


def _check_unique(names: list[str]) -> None:
    seen: set[str] = set()
    for name in names:
        if name in seen:
            raise ConfigError(f"cluster name {name!r} is given twice")
        seen.add(name)
