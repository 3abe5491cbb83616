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


def test_the_scale_bench_runs_small_and_reports_every_figure(tmp_path: Path) -> None:
    result = subprocess.run(
        [
            sys.executable,
            "scale.py",
            "--clusters=3",
            "--workloads=12",
            "--sim-processes=2",
            "--settle=0",
            "--timeout=240",
            f"--keep={tmp_path}",
        ],
        cwd=BENCH,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    missing = [figure for figure in FIGURES if figure not in result.stdout]
    assert not missing, f"not reported: {missing}\n{result.stdout}"
