"""Golden files for the kubelet stages: an input pod, and the status each stage writes (fixed clock)."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
import yaml

from flotilla.sim.kubelet.stages import STAGES, StageContext, stage_for
from flotilla.sim.spec import Timing

GOLDEN = Path(__file__).parent / "golden"
CASES = sorted(GOLDEN.glob("*.yaml"))


def load(path: Path) -> dict[str, Any]:
    case = yaml.safe_load(path.read_text())
    assert isinstance(case, dict)
    return case


def test_there_is_a_golden_file_for_every_stage() -> None:
    """Each stage of the kubelet is pinned by at least one golden input/output pair."""
    covered = {load(path)["stage"] for path in CASES}
    assert covered == {stage.name for stage in STAGES}


@pytest.mark.parametrize("path", CASES, ids=[path.stem for path in CASES])
def test_a_stage_turns_its_input_pod_into_the_golden_status(path: Path) -> None:
    """The input pod selects the named stage, which writes exactly the expected status (or deletes)."""
    case = load(path)
    stage = stage_for(case["pod"])
    assert stage is not None and stage.name == case["stage"]
    if case.get("delete"):
        assert stage.delete and stage.next_status is None
        return
    assert stage.next_status is not None
    now = datetime.fromisoformat(case["now"].replace("Z", "+00:00"))
    context = StageContext(now, host_ip=case.get("hostIP", ""), pod_ip=case.get("podIP", ""))
    status = stage.next_status(case["pod"], context)
    assert status == case["status"]
    moved = {**case["pod"], "status": status}
    assert not stage.matches(moved), "a stage's outcome must not select the same stage again"


def test_every_stage_delay_names_a_timing_field() -> None:
    """Delays are Timing fields, so a cluster's timing (0 in tests) governs them."""
    timing = Timing(pod_start=1.5, pod_complete=2.5)
    delays = {stage.name: stage.delay_seconds(timing) for stage in STAGES}
    assert delays == {"pod-delete": 0.0, "pod-ready": 1.5, "pod-complete": 2.5, "pod-ready-again": 0.0}


def test_a_pod_without_a_node_or_already_finished_matches_no_stage() -> None:
    """Unscheduled pods wait for the scheduler; Succeeded pods rest."""
    unscheduled = {"metadata": {"name": "p"}, "spec": {"containers": []}, "status": {"phase": "Pending"}}
    finished = {"metadata": {"name": "p"}, "spec": {"nodeName": "n"}, "status": {"phase": "Succeeded"}}
    assert stage_for(unscheduled) is None
    assert stage_for(finished) is None


def test_a_pod_deleted_with_grace_zero_waiting_on_finalizers_is_left_alone() -> None:
    """Once deleted for good, a pod held by finalizers is not deleted again and again."""
    held = {
        "metadata": {"deletionTimestamp": "2026-01-01T00:00:00Z", "deletionGracePeriodSeconds": 0},
        "spec": {"nodeName": "n"},
        "status": {"phase": "Succeeded"},
    }
    assert stage_for(held) is None
