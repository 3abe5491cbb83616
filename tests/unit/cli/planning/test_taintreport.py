"""`flotilla plan --taint` output compared with golden files, and the data forms' shape.

Set FLOTILLA_UPDATE_GOLDEN=1 to rewrite the golden files after an intended change of layout.
"""

from __future__ import annotations

import json

import yaml

from flotilla.cli.planning.taintreport import render_taint_plan
from tests.unit.cli.planning.taintworld import DIVIDED, binding, maintenance_bindings, what_if
from tests.unit.cli.planning.test_report import assert_golden

MAINTENANCE = "member2=maintenance:NoExecute"


def test_text_output_matches_the_golden_file() -> None:
    """Divided and Duplicated workloads, untolerated, tolerated for a while and for good, one untouched."""
    assert_golden(
        "taint_maintenance.txt", render_taint_plan(what_if(maintenance_bindings(), MAINTENANCE), "text")
    )


def test_json_output_matches_the_golden_file() -> None:
    """The JSON form holds the same what-if as data, placements in spec.clusters form."""
    assert_golden(
        "taint_maintenance.json", render_taint_plan(what_if(maintenance_bindings(), MAINTENANCE), "json")
    )


def test_yaml_and_json_hold_the_same_document() -> None:
    """Both data forms decode to one document."""
    plan = what_if(maintenance_bindings(), MAINTENANCE, "member3=disk=slow:NoSchedule")
    assert yaml.safe_load(render_taint_plan(plan, "yaml")) == json.loads(render_taint_plan(plan, "json"))


def test_the_document_names_the_moved_replicas() -> None:
    """An evicted cluster's replicas, when it goes, and the placement after are data a script can check."""
    document = json.loads(render_taint_plan(what_if(maintenance_bindings(), MAINTENANCE), "json"))
    web = next(item for item in document["bindings"] if item["name"] == "web-deployment")
    assert web["evictions"] == [
        {
            "cluster": "member2",
            "when": "now",
            "taint": "maintenance:NoExecute",
            "reason": "maintenance:NoExecute is not tolerated",
            "replicas": 2,
        }
    ]
    assert web["after"] == [{"name": "member1", "replicas": 3}, {"name": "member3", "replicas": 3}]
    assert document["unaffected"] == 1
    assert document["taints"] == [
        {"cluster": "member2", "key": "maintenance", "effect": "NoExecute", "new": True}
    ]


def test_nothing_affected_is_one_line() -> None:
    """A taint on a cluster no binding uses prints the taint and a count, no blocks."""
    plan = what_if([binding("solo", {"member1": 3}, DIVIDED)], "member3=maintenance:NoExecute")
    text = render_taint_plan(plan, "text")
    assert text.endswith("\nNo binding is affected (1 looked at).\n")
    assert "Binding:" not in text
