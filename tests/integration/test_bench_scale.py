"""`bench/scale.py` in its small mode, as a smoke test: it runs end to end and prints every figure.

Nothing is timed here (the machine running the suite is busy); the bench's own goals are for a
quiet machine. What must hold: every template becomes READY, and each section reports.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench"

FIGURES = (
    "every template READY on the hub",
    "Works",
    "CPU seconds until READY",
    "RSS apiserver",
    "RSS controller-manager",
    "RSS sim0",
    "RSS sim1",
    "API server + controller manager peak",
    "KiB of API server RSS",
    "manager drained after READY",
    "controller manager cold start",
    "writes meanwhile",
    "API server restart",
    "kubectl get deploy -A",
    "flotilla get deploy -A (members)",
)


def run_bench(tmp_path: Path, *options: str) -> str:
    result = subprocess.run(
        [
            sys.executable,
            "scale.py",
            "--clusters=3",
            "--workloads=12",
            "--sim-processes=2",
            "--settle=0",
            "--timeout=240",
            "--lease-duration=4",
            f"--keep={tmp_path}",
            *options,
        ],
        cwd=BENCH,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


def test_the_scale_bench_runs_small_and_reports_every_figure(tmp_path: Path) -> None:
    stdout = run_bench(tmp_path)
    missing = [figure for figure in FIGURES if figure not in stdout]
    assert not missing, f"not reported: {missing}\n{stdout}"
    assert "not within the budget" not in stdout


def test_a_run_out_of_budget_reports_how_far_placement_got_and_goes_on(tmp_path: Path) -> None:
    """A budget that leaves placement no time: the READY count is reported as a miss, and every
    later figure is still printed (the cold start on a hub still placing)."""
    stdout = run_bench(tmp_path, "--budget=60", "--reserve=59")
    assert "not within the budget" in stdout and "goal: all READY, missed" in stdout, stdout
    later = [figure for figure in FIGURES if figure != "manager drained after READY"]
    missing = [figure.replace("until READY", "until") for figure in later]
    missing = [figure for figure in missing if figure not in stdout]
    assert not missing, f"not reported: {missing}\n{stdout}"
    assert "cold start with placement still running" in stdout
