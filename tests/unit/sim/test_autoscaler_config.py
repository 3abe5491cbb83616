"""The sim config's `horizontalPodAutoscaler` (kube's HPA controller flags): parsed, inherited, checked."""

from __future__ import annotations

from pathlib import Path

import pytest

from flotilla.sim.config import ConfigError, clusters_from_file
from flotilla.sim.spec import AutoscalerSettings, Timing

CONFIG = """
clusters:
- name: a
- name: b
  horizontalPodAutoscaler: {downscaleStabilizationSeconds: 60}
horizontalPodAutoscaler:
  syncPeriodSeconds: 1
  cpuInitializationPeriodSeconds: 0
"""


def test_kubes_defaults_without_a_setting(tmp_path: Path) -> None:
    path = tmp_path / "sim.yaml"
    path.write_text("clusters: [{name: a}]\n")
    assert clusters_from_file(path, Timing())[0].autoscaling == AutoscalerSettings(
        sync_period=15, downscale_stabilization=300, tolerance=0.1
    )


def test_a_cluster_overrides_the_top_level_fields_it_gives(tmp_path: Path) -> None:
    path = tmp_path / "sim.yaml"
    path.write_text(CONFIG)
    a, b = (spec.autoscaling for spec in clusters_from_file(path, Timing()))
    assert (a.sync_period, a.cpu_initialization_period, a.downscale_stabilization) == (1, 0, 300)
    assert (b.sync_period, b.cpu_initialization_period, b.downscale_stabilization) == (1, 0, 60)


@pytest.mark.parametrize(
    ("setting", "complaint"),
    [
        ("{syncPeriod: 1}", "unknown field(s) syncPeriod"),
        ("{tolerance: -1}", "horizontalPodAutoscaler.tolerance must be a non-negative number"),
        ("{syncPeriodSeconds: 0}", "syncPeriodSeconds must be more than 0"),
        (
            "{initialReadinessDelaySeconds: soon}",
            "initialReadinessDelaySeconds must be a non-negative number",
        ),
    ],
)
def test_a_bad_setting_says_which_field_to_fix(tmp_path: Path, setting: str, complaint: str) -> None:
    path = tmp_path / "sim.yaml"
    path.write_text(f"clusters: [{{name: a}}]\nhorizontalPodAutoscaler: {setting}\n")
    with pytest.raises(ConfigError, match=complaint.replace("(", r"\(").replace(")", r"\)")):
        clusters_from_file(path, Timing())
