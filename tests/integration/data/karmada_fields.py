"""Karmada's CRDs as facts: the field list `test_karmada_parity` compares the hub's served schemas with.

How `karmada_fields.json` was made: from a checkout of github.com/karmada-io/karmada at commit
f8fdd02df3760fd9521624f284877fa84e7be6ef (master, 2026-08-21; `git describe`:
v1.19.0-rc.0-18-gf8fdd02df, the newest Karmada when this was written), from the repository root:

    python -m tests.integration.data.karmada_fields <karmada checkout> \
        > tests/integration/data/karmada_fields.json

which reads the CRDs Karmada installs (`charts/karmada/_crds/bases/<group>/*.yaml`) of the kinds a
Flotilla hub also serves (`SHARED_CRDS`) and writes, per CRD: its names, scope, and per version
whether it is served and stored, its subresources, its printer columns (without descriptions),
and one entry per schema node — `.spec.placement` for a property, `[]` for a list's items, `{}`
for a map's values — holding every keyword of that node except its description and children:
`type`, `format`, `enum`, `default`, `required`, `nullable`, bounds and patterns, `anyOf`, and
every `x-kubernetes-*` marker. Descriptions are prose, not behaviour, and are left out.

The test applies the same `crd_facts` to the CRDs a running hub serves and needs nothing but the
JSON file; `differences` compares, and `documented_differences` reads the table of
`docs/design/karmada-parity.md` that explains each difference kept. Rerun this script against a
newer Karmada to move the baseline, and the test lists what changed.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import yaml

SHARED_CRDS = (
    "policy/policy.karmada.io_propagationpolicies.yaml",
    "policy/policy.karmada.io_clusterpropagationpolicies.yaml",
    "policy/policy.karmada.io_overridepolicies.yaml",
    "policy/policy.karmada.io_clusteroverridepolicies.yaml",
    "policy/policy.karmada.io_clustertaintpolicies.yaml",
    "policy/policy.karmada.io_federatedresourcequotas.yaml",
    "work/work.karmada.io_resourcebindings.yaml",
    "work/work.karmada.io_clusterresourcebindings.yaml",
    "work/work.karmada.io_works.yaml",
    "apps/apps.karmada.io_workloadrebalancers.yaml",
    "autoscaling/autoscaling.karmada.io_federatedhpas.yaml",
    "autoscaling/autoscaling.karmada.io_cronfederatedhpas.yaml",
)
"""Karmada's CRDs of the kinds a hub serves (Cluster is not among them: Karmada serves it from
its aggregated API server, not as a CRD)."""

CRD_DIRECTORY = Path("charts/karmada/_crds/bases")
CHILDREN = ("description", "properties", "items", "additionalProperties")
NAME_FIELDS = ("kind", "listKind", "plural", "singular", "shortNames", "categories")
COLUMN_FIELDS = ("name", "type", "format", "jsonPath", "priority")

Facts = dict[str, Any]


def schema_nodes(node: Mapping[str, Any], path: str = "") -> Iterator[tuple[str, Facts]]:
    """Every node of a structural schema with its path and its own keywords (children left out)."""
    facts = {key: value for key, value in node.items() if key not in CHILDREN}
    if "required" in facts:
        facts["required"] = sorted(facts["required"])
    yield path or ".", facts
    for name, child in sorted((node.get("properties") or {}).items()):
        yield from schema_nodes(child, f"{path}.{name}")
    if isinstance(node.get("items"), dict):
        yield from schema_nodes(node["items"], f"{path}[]")
    if isinstance(node.get("additionalProperties"), dict):
        yield from schema_nodes(node["additionalProperties"], f"{path}{{}}")


def _column(column: Mapping[str, Any]) -> Facts:
    return {key: column[key] for key in COLUMN_FIELDS if column.get(key) not in (None, "", 0)}


def version_facts(version: Mapping[str, Any]) -> Facts:
    schema = (version.get("schema") or {}).get("openAPIV3Schema") or {}
    return {
        "served": bool(version.get("served")),
        "storage": bool(version.get("storage")),
        "subresources": sorted(version.get("subresources") or {}),
        "printerColumns": [_column(column) for column in version.get("additionalPrinterColumns") or []],
        "fields": dict(schema_nodes(schema)),
    }


def crd_facts(crd: Mapping[str, Any]) -> Facts:
    """What a CRD says about its kind, apart from prose: names, scope, and each version's schema."""
    spec = crd.get("spec") or {}
    names = spec.get("names") or {}
    return {
        "group": spec.get("group", ""),
        "scope": spec.get("scope", ""),
        "names": {key: names[key] for key in NAME_FIELDS if key in names},
        "versions": {
            str(version.get("name")): version_facts(version) for version in spec.get("versions") or []
        },
    }


def differences(crd: str, karmada: Facts, served: Facts) -> dict[str, tuple[Any, Any]]:
    """What differs between Karmada's facts of one CRD and the served ones, keyed by
    `<crd> <version> <path> <keyword>` (fewer words for CRD- and version-level facts), valued
    (Karmada's, ours); a value absent on one side is None."""
    found: dict[str, tuple[Any, Any]] = {}
    _compare(
        found,
        crd,
        {"group": karmada["group"], "scope": karmada["scope"], **karmada["names"]},
        {"group": served["group"], "scope": served["scope"], **served["names"]},
    )
    for version in sorted(set(karmada["versions"]) | set(served["versions"])):
        expected, actual = karmada["versions"].get(version), served["versions"].get(version)
        if expected is None or actual is None:
            found[f"{crd} {version}"] = (expected is not None, actual is not None)
            continue
        prefix = f"{crd} {version}"
        _compare(
            found,
            prefix,
            {k: v for k, v in expected.items() if k != "fields"},
            {k: v for k, v in actual.items() if k != "fields"},
        )
        for path in sorted(set(expected["fields"]) | set(actual["fields"])):
            ours, theirs = actual["fields"].get(path), expected["fields"].get(path)
            if ours is None or theirs is None:
                found[f"{prefix} {path}"] = (theirs is not None, ours is not None)
            else:
                _compare(found, f"{prefix} {path}", theirs, ours)
    return found


def _compare(found: dict[str, tuple[Any, Any]], prefix: str, karmada: Facts, served: Facts) -> None:
    for key in sorted(set(karmada) | set(served)):
        if karmada.get(key) != served.get(key):
            found[f"{prefix} {key}"] = (karmada.get(key), served.get(key))


def documented_differences(note: Path) -> set[str]:
    """The keys of the differences table in the parity note: its rows whose first cell is a CRD
    name; the first four cells (CRD, version, path, keyword; `—` for none) joined by spaces."""
    keys: set[str] = set()
    for line in note.read_text().splitlines():
        cells = [cell.strip().strip("`") for cell in line.strip().strip("|").split("|")]
        if len(cells) >= 5 and cells[0].endswith(".karmada.io"):
            keys.add(" ".join(cell for cell in cells[:4] if cell and cell != "—"))
    return keys


def _karmada_version(checkout: Path) -> str:
    described = subprocess.run(
        ["git", "-C", str(checkout), "describe", "--tags"], capture_output=True, text=True, check=False
    )
    return described.stdout.strip() or "unknown"


def karmada_fields(checkout: Path, version: str = "") -> Facts:
    """The facts of every shared CRD in a Karmada checkout, keyed by CRD name."""
    crds: dict[str, Facts] = {}
    for relative in SHARED_CRDS:
        crd = yaml.safe_load((checkout / CRD_DIRECTORY / relative).read_text())
        crds[crd["metadata"]["name"]] = crd_facts(crd)
    return {"karmada": version or _karmada_version(checkout), "crds": crds}


def main(argv: list[str]) -> int:
    if len(argv) not in (2, 3):
        print(f"usage: {argv[0]} <karmada checkout> [<karmada version>]", file=sys.stderr)
        return 2
    facts = karmada_fields(Path(argv[1]), argv[2] if len(argv) == 3 else "")
    print(json.dumps(facts, indent=1, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
