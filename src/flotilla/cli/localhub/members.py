"""Which simulated member clusters `flotilla up` runs, and how each is described to the hub.

`flotilla up --members N` runs `member1` … `memberN`, spread over two regions with two zones each
(the simulator's own default scheme, so the nodes of a member carry the same topology labels as its
Cluster object). `flotilla up --config FILE` takes a YAML list of members:

    members:
    - name: sz
      region: cn-south          # → spec.region and label topology.kubernetes.io/region
      zone: cn-south-1a         # → spec.zones and label topology.kubernetes.io/zone
      provider: cloud-one       # → spec.provider and label provider
      nodes: 3                  # nodeCPU, nodeMemory, nodePods, kubernetesVersion: as `flotilla sim`
      labels: {tier: gold}      # more labels of the Cluster (and of the member's nodes)

Either way the result is one document in `flotilla sim --config` format, kept as `DIR/sim.yaml`:
the sim process reads it, the next `up` without flags reuses it, and the join step reads the same
file back through the simulator's parser, so a member's region, zones and labels cannot disagree
between the sim and the hub. Everything here is pure: documents in, documents out.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from flotilla.sim.config import ConfigError, default_labels
from flotilla.sim.spec import ClusterSpec

REGION_LABEL = "topology.kubernetes.io/region"
ZONE_LABEL = "topology.kubernetes.io/zone"
PROVIDER_LABEL = "provider"

MAX_MEMBERS = 100
"""One sim process serves a hundred clusters comfortably (bench/sim.py); more is a typo."""

_SHORTHANDS = {"region": REGION_LABEL, "zone": ZONE_LABEL, "provider": PROVIDER_LABEL}
_PASSED_THROUGH = ("name", "nodes", "nodeCPU", "nodeMemory", "nodePods", "kubernetesVersion", "labels")
_KNOWN_FIELDS = frozenset(_PASSED_THROUGH) | frozenset(_SHORTHANDS)

__all__ = [
    "MAX_MEMBERS",
    "ConfigError",
    "MemberPlacement",
    "default_member_names",
    "default_sim_config",
    "missing_labels",
    "placement_of",
    "sim_config_from_document",
]


def default_member_names(count: int) -> list[str]:
    """`member1` … `member<count>`, Karmada's names for the members of its local-up script."""
    if not 1 <= count <= MAX_MEMBERS:
        raise ConfigError(f"--members must be between 1 and {MAX_MEMBERS}, not {count}")
    return [f"member{index}" for index in range(1, count + 1)]


def default_sim_config(count: int) -> dict[str, Any]:
    """The sim document of `--members count`: default names, each with its region and zone written out."""
    return {
        "clusters": [
            {"name": name, "labels": default_labels(index)}
            for index, name in enumerate(default_member_names(count))
        ]
    }


def sim_config_from_document(document: Any, source: str) -> dict[str, Any]:
    """The sim document of an `up --config` file (`members:`, or `clusters:` as the sim spells it).

    `region`, `zone` and `provider` become the labels the sim and the hub read them from; everything
    else is checked again by the simulator's parser when the file is read back.
    """
    entries = None
    if isinstance(document, dict):
        entries = document.get("members", document.get("clusters"))
    if not isinstance(entries, list) or not entries:
        raise ConfigError(f"{source}: expected a top-level 'members:' list with at least one member")
    if len(entries) > MAX_MEMBERS:
        raise ConfigError(f"{source}: at most {MAX_MEMBERS} members, not {len(entries)}")
    return {"clusters": [_sim_entry(entry, f"{source}: members[{i}]") for i, entry in enumerate(entries)]}


def _sim_entry(entry: Any, where: str) -> dict[str, Any]:
    if not isinstance(entry, dict):
        raise ConfigError(f"{where} must be a mapping with at least a 'name'")
    unknown = sorted(set(entry) - _KNOWN_FIELDS)
    if unknown:
        raise ConfigError(
            f"{where}: unknown field(s) {', '.join(unknown)}; known: {', '.join(sorted(_KNOWN_FIELDS))}"
        )
    labels = entry.get("labels") or {}
    if not isinstance(labels, dict):
        raise ConfigError(f"{where}.labels must map label names to strings")
    labels = dict(labels)
    for shorthand, label in _SHORTHANDS.items():
        if shorthand not in entry:
            continue
        value = entry[shorthand]
        if not isinstance(value, str) or not value:
            raise ConfigError(f"{where}.{shorthand} must be a non-empty string")
        if labels.get(label, value) != value:
            raise ConfigError(f"{where}: {shorthand} {value!r} contradicts label {label}={labels[label]!r}")
        labels[label] = value
    # The simulator fills a missing zone from its own two-region scheme; a zone of another region
    # would contradict a region given here, so such a member gets a zone of its own region instead.
    if REGION_LABEL in labels and ZONE_LABEL not in labels:
        labels[ZONE_LABEL] = f"{labels[REGION_LABEL]}-1"
    sim_entry = {key: entry[key] for key in _PASSED_THROUGH if key in entry and key != "labels"}
    if labels:
        sim_entry["labels"] = labels
    return sim_entry


@dataclass(frozen=True, slots=True)
class MemberPlacement:
    """How a member is described on the hub: the Cluster's spec fields and its labels."""

    name: str
    region: str
    zones: tuple[str, ...]
    provider: str
    labels: dict[str, str]


def placement_of(spec: ClusterSpec) -> MemberPlacement:
    """The Cluster description of a simulated cluster, from the same spec the sim serves it with."""
    return MemberPlacement(
        name=spec.name,
        region=spec.region,
        zones=tuple(spec.zones),
        provider=spec.provider,
        labels=dict(spec.labels),
    )


def missing_labels(cluster: dict[str, Any], placement: MemberPlacement) -> dict[str, str]:
    """The member's labels the Cluster does not carry yet (a value someone changed is left alone)."""
    present = (cluster.get("metadata") or {}).get("labels") or {}
    return {key: value for key, value in placement.labels.items() if key not in present}
