"""The sim config's `execs` and `logs` (kwok's ClusterExec and ClusterLogs): parsed, inherited, checked."""

from __future__ import annotations

from pathlib import Path

import pytest

from flotilla.sim.config import ConfigError, clusters_from_file
from flotilla.sim.spec import PodSelector, Timing

CONFIG = """
clusters:
- name: a
- name: b
  logs: []
execs:
- selector: {matchNamespaces: [default], matchNames: [web]}
  containers: [app]
  local: {workDir: /tmp, envs: [{name: GREETING, value: hi}]}
  timeoutSeconds: 5
logs:
- logsFile: /var/log/app.log
  previousLogsFile: /var/log/app.1.log
"""


def test_top_level_rules_apply_to_every_cluster_unless_it_gives_its_own(tmp_path: Path) -> None:
    path = tmp_path / "sim.yaml"
    path.write_text(CONFIG)
    a, b = clusters_from_file(path, Timing())
    rule = a.streams.exec_rule("default", "web", "app")
    assert rule is not None
    assert (rule.work_dir, rule.envs, rule.timeout_seconds) == ("/tmp", (("GREETING", "hi"),), 5.0)
    assert a.streams.exec_rule("default", "web", "sidecar") is None
    assert a.streams.exec_rule("other", "web", "app") is None
    assert b.streams.exec_rule("default", "web", "app") == rule
    log = a.streams.log_rule("any", "pod", "c")
    assert log is not None and log.previous_logs_file == "/var/log/app.1.log"
    assert b.streams.log_rule("any", "pod", "c") is None


def test_without_rules_nothing_is_served(tmp_path: Path) -> None:
    path = tmp_path / "sim.yaml"
    path.write_text("clusters: [{name: a}]\n")
    (a,) = clusters_from_file(path, Timing())
    assert a.streams.exec_rule("default", "web", "app") is None
    assert a.streams.log_rule("default", "web", "app") is None


def test_an_empty_selector_selects_every_pod() -> None:
    assert PodSelector().selects("any", "pod")
    assert not PodSelector(match_names=("web",)).selects("any", "pod")


@pytest.mark.parametrize(
    ("extra", "complaint"),
    [
        ("execs: [{local: {workdir: /tmp}}]", "unknown field(s) workdir"),
        ("execs: [{containers: [app]}]", "local must be a mapping"),
        ("execs: [{local: {}, timeoutSeconds: 0}]", "timeoutSeconds must be a positive number"),
        ("logs: [{containers: [app]}]", "needs a 'logsFile'"),
        ("logs: {logsFile: x}", "must be lists"),
        ("exec: []", "unknown top-level field(s) exec"),
    ],
)
def test_a_bad_rule_says_what_to_fix(tmp_path: Path, extra: str, complaint: str) -> None:
    path = tmp_path / "sim.yaml"
    path.write_text("clusters: [{name: a}]\n" + extra + "\n")
    with pytest.raises(ConfigError, match=None) as caught:
        clusters_from_file(path, Timing())
    assert complaint in str(caught.value)
