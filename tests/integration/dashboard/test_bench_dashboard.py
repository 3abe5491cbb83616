"""`bench/dashboard.py` in its small mode: it lays a fleet, serves it and prints every figure.

Nothing is timed here (the machine running the suite is busy); the goal is for a quiet machine.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[3] / "bench"


def test_the_bench_prints_the_first_render_of_both_pages() -> None:
    """Each figure is printed: the API's answers for the overview and the list, and the browser's renders."""
    result = subprocess.run(
        [sys.executable, "dashboard.py", "--clusters=3", "--workloads=40", "--runs=1"],
        cwd=BENCH,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert "fleet laid: 3 clusters, 40 workloads" in result.stdout
    assert "API overview:" in result.stdout and "(40 workloads;" in result.stdout
    assert "API workload list:" in result.stdout and "(40 rows;" in result.stdout
    if shutil.which("chromium") and shutil.which("chromedriver"):
        assert "browser first render overview:" in result.stdout, result.stdout
        assert "browser first render workloads:" in result.stdout, result.stdout
