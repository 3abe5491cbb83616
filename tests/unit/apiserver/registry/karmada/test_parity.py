"""The Karmada CRDs a hub installs equal Karmada's field list, but for the differences the parity note
explains; and the comparison itself finds what differs.

`tests/integration/test_karmada_parity.py` makes the same comparison on the CRDs a running hub
serves; this one runs on the CRDs as built, so a schema change meets it in the unit suite.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from flotilla.apiserver.registry.karmada import karmada_crds
from tests.integration.data.karmada_fields import crd_facts, differences, documented_differences

ROOT = Path(__file__).parents[5]
DATA = ROOT / "tests" / "integration" / "data" / "karmada_fields.json"
PARITY_NOTE = ROOT / "docs" / "design" / "karmada-parity.md"


def test_the_built_crds_differ_from_karmadas_only_where_the_note_says() -> None:
    karmada = json.loads(DATA.read_text())["crds"]
    ours = {crd["metadata"]["name"]: crd_facts(crd) for crd in karmada_crds()}
    found = {key for name, facts in karmada.items() for key in differences(name, facts, ours[name])}
    documented = documented_differences(PARITY_NOTE)
    assert sorted(found - documented) == []
    assert sorted(documented - found) == []


def _crd(schema: dict[str, Any], **version: Any) -> dict[str, Any]:
    return {
        "spec": {
            "group": "g.karmada.io",
            "scope": "Namespaced",
            "names": {"kind": "K", "plural": "ks"},
            "versions": [
                {
                    "name": "v1",
                    "served": True,
                    "storage": True,
                    "schema": {"openAPIV3Schema": schema},
                    **version,
                }
            ],
        }
    }


def test_missing_paths_and_differing_keywords_are_reported_by_key() -> None:
    selector = {
        "type": "object",
        "x-kubernetes-map-type": "atomic",
        "properties": {"matchLabels": {"type": "object"}},
    }
    theirs = crd_facts(
        _crd({"type": "object", "properties": {"selector": selector, "gone": {"type": "string"}}})
    )
    plain = {"type": "object", "properties": {"matchLabels": {"type": "object"}}}
    ours = crd_facts(_crd({"type": "object", "properties": {"selector": plain}}, subresources={"status": {}}))
    assert differences("ks.g.karmada.io", theirs, ours) == {
        "ks.g.karmada.io v1 subresources": ([], ["status"]),
        "ks.g.karmada.io v1 .gone": (True, False),
        "ks.g.karmada.io v1 .selector x-kubernetes-map-type": ("atomic", None),
    }


def test_descriptions_are_not_facts() -> None:
    described = crd_facts(_crd({"type": "object", "description": "one"}))
    assert described == crd_facts(_crd({"type": "object", "description": "another"}))
