"""The load a workload puts on a simulated cluster: set by `flotilla sim load`, or by an annotation.

A load is a workload's TOTAL usage in one cluster (`cpu` in cores, `memory` in bytes), either
dimension optional. Two ways to set it:

- `flotilla sim load deployment/web -n NS --cluster member1 --cpu 2 --memory 1Gi` (`--clear` removes
  it): kept by the sim itself, in `<data-dir>/<cluster>/loads.json`, so nothing the hub writes into
  the member (it re-applies its copy of the workload) can undo it, and a restart keeps it;
- the annotations `load.sim.flotilla.io/cpu` and `load.sim.flotilla.io/memory` on the workload,
  which travel with a template from the hub to every member it is propagated to (each member gets
  the same total, so divide it per cluster in an OverridePolicy if that matters).

The command's load wins over the annotations. Kinds are named as kubectl names them (`deployment`,
`deploy`, `deployments.apps`, `Deployment` alike); a load is kept under the kind's name.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

from flotilla.api.quantities import (
    Format,
    Quantity,
    QuantityError,
    canonical,
    parse_quantity,
    parse_quantity_string,
)
from flotilla.api.scheme import GroupVersionKind

CPU_ANNOTATION = "load.sim.flotilla.io/cpu"
MEMORY_ANNOTATION = "load.sim.flotilla.io/memory"
LOADS_FILE = "loads.json"

_KIND_NAMES = {
    GroupVersionKind("apps", "v1", "Deployment"): ("deployment", "deployments", "deploy"),
    GroupVersionKind("apps", "v1", "ReplicaSet"): ("replicaset", "replicasets", "rs"),
    GroupVersionKind("apps", "v1", "StatefulSet"): ("statefulset", "statefulsets", "sts"),
    GroupVersionKind("apps", "v1", "DaemonSet"): ("daemonset", "daemonsets", "ds"),
    GroupVersionKind("batch", "v1", "Job"): ("job", "jobs"),
    GroupVersionKind("batch", "v1", "CronJob"): ("cronjob", "cronjobs", "cj"),
    GroupVersionKind("", "v1", "Pod"): ("pod", "pods", "po"),
}
KINDS = {
    alias: gvk
    for gvk, aliases in _KIND_NAMES.items()
    for name in aliases
    for alias in (name, f"{name}.{gvk.group}" if gvk.group else name)
}
"""What a load may be set on: kubectl's names of the kinds that own pods, and a single pod."""


class LoadError(ValueError):
    """A load that cannot be set; the message says what to fix."""


def workload_kind(text: str) -> GroupVersionKind:
    """The kind kubectl's `text` names (`deploy` → apps/v1 Deployment); `LoadError` for any other."""
    gvk = KINDS.get(text.lower())
    if gvk is None:
        known = ", ".join(sorted(gvk.kind.lower() for gvk in _KIND_NAMES))
        raise LoadError(f"a load is set on a workload that owns pods ({known}), not on {text!r}")
    return gvk


@dataclass(frozen=True, slots=True)
class Load:
    """A workload's total usage in one cluster; None: that dimension is not set (base usage)."""

    cpu: Fraction | None = None
    memory: Fraction | None = None

    @property
    def empty(self) -> bool:
        return self.cpu is None and self.memory is None

    def to_json(self) -> dict[str, str]:
        body = {}
        if self.cpu is not None:
            body["cpu"] = _text(self.cpu)
        if self.memory is not None:
            body["memory"] = _text(self.memory, Format.BINARY_SI)
        return body

    @classmethod
    def from_json(cls, body: Mapping[str, Any]) -> Load:
        """A load from `{"cpu": "2", "memory": "1Gi"}`; `LoadError` for a bad or negative quantity."""
        return cls(cpu=_amount(body.get("cpu"), "cpu"), memory=_amount(body.get("memory"), "memory"))


def _text(amount: Fraction, notation: Format = Format.DECIMAL_SI) -> str:
    return canonical(Quantity(amount, notation))


def _amount(value: Any, dimension: str) -> Fraction | None:
    if value is None or value == "":
        return None
    try:
        quantity = parse_quantity_string(value) if isinstance(value, str) else parse_quantity(value)
    except QuantityError as exc:
        raise LoadError(f"{dimension} load {value!r} is not a quantity: {exc}") from exc
    if quantity.amount < 0:
        raise LoadError(f"{dimension} load {value!r} is negative")
    return quantity.amount


def annotated_load(annotations: Mapping[str, Any] | None) -> Load | None:
    """The load a workload's annotations set, or None (also for annotations that do not parse)."""
    if not annotations:
        return None
    try:
        load = Load(
            cpu=_amount(annotations.get(CPU_ANNOTATION), "cpu"),
            memory=_amount(annotations.get(MEMORY_ANNOTATION), "memory"),
        )
    except LoadError:
        return None
    return None if load.empty else load


LoadKey = tuple[str, str, str]
"""(kind, namespace, name) of the workload a load is set on."""


class LoadBook:
    """The loads `flotilla sim load` set in one cluster, kept in a file beside its store."""

    def __init__(self, directory: Path) -> None:
        self.path = directory / LOADS_FILE
        self.loads: dict[LoadKey, Load] = {}

    def read(self) -> None:
        """Load the file (a missing or unreadable one: no loads). Blocking: small, read at start."""
        try:
            entries = json.loads(self.path.read_text())
        except (FileNotFoundError, ValueError):
            return
        for entry in entries if isinstance(entries, list) else []:
            try:
                kind = workload_kind(entry["kind"]).kind
                key = (kind, str(entry["namespace"]), str(entry["name"]))
                load = Load.from_json(entry)
            except (LoadError, KeyError, TypeError, AttributeError):
                continue
            if not load.empty:
                self.loads[key] = load

    def set(self, key: LoadKey, load: Load) -> str:
        """Set (an empty load: clear) the load of `key`; the file's new text, for `write`."""
        if load.empty:
            self.loads.pop(key, None)
        else:
            self.loads[key] = load
        entries = [
            {"kind": kind, "namespace": namespace, "name": name, **load.to_json()}
            for (kind, namespace, name), load in sorted(self.loads.items())
        ]
        return json.dumps(entries, indent=2)

    def get(self, key: LoadKey) -> Load | None:
        return self.loads.get(key)

    def write(self, text: str) -> None:
        """Replace the file with `text` (blocking: call it in a thread)."""
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text(text)
        os.chmod(tmp, 0o600)
        tmp.replace(self.path)
