"""`flotilla interpret` run as a process on files: karmadactl's flags, its output, errors with Lua lines."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import yaml

from tests.unit.interpreter.lua.customizations import fleet, fleet_customization

FLOTILLA = str(Path(sys.executable).parent / "flotilla")


def interpret(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [FLOTILLA, "interpret", *args], check=False, capture_output=True, text=True, timeout=60
    )


def write(path: Path, obj: Any) -> str:
    path.write_text(yaml.safe_dump(obj), encoding="utf-8")
    return str(path)


def results(stdout: str) -> list[Any]:
    """The YAML values karmadactl's output format prints after each `# [i/n] name:` line."""
    return [yaml.safe_load(part.split("\n", 1)[1]) for part in stdout.split("---\n")[1:]]


def test_interpret_replica_prints_replicas_and_requirements(tmp_path: Path) -> None:
    customization = write(tmp_path / "ric.yaml", fleet_customization())
    observed = write(tmp_path / "fleet.yaml", fleet(replicas=5))
    answer = interpret("-f", customization, "--operation", "interpretReplica", "--observed-file", observed)
    assert answer.returncode == 0, answer.stderr
    assert "# [1/2] replica:" in answer.stdout
    assert "# [2/2] requires:" in answer.stdout
    replica, requires = results(answer.stdout)
    assert replica == 5
    assert requires["resourceRequest"] == {"cpu": "250m", "memory": "64Mi"}


def test_revise_replica_takes_desired_replica(tmp_path: Path) -> None:
    customization = write(tmp_path / "ric.yaml", fleet_customization())
    observed = write(tmp_path / "fleet.yaml", fleet(replicas=5))
    answer = interpret(
        "--customization", customization, "--operation", "ReviseReplica", "--observed", observed,
        "--desired-replica", "2",
    )  # fmt: skip
    assert answer.returncode == 0, answer.stderr
    assert results(answer.stdout)[0]["spec"]["replicas"] == 2


def test_aggregate_status_reads_the_status_file(tmp_path: Path) -> None:
    customization = write(tmp_path / "ric.yaml", fleet_customization())
    desired = write(tmp_path / "fleet.yaml", fleet())
    items = [
        {"clusterName": "member1", "status": {"readyReplicas": 1}, "applied": True},
        {"clusterName": "member2", "status": {"readyReplicas": 2}, "applied": True},
    ]
    status = write(tmp_path / "status.yaml", items)
    answer = interpret(
        "-f", customization, "--operation", "aggregateStatus", "--desired-file", desired,
        "--status-file", status,
    )  # fmt: skip
    assert answer.returncode == 0, answer.stderr
    assert results(answer.stdout)[0]["status"] == {"readyReplicas": 3, "clusters": ["member1", "member2"]}


def test_retain_needs_both_objects(tmp_path: Path) -> None:
    customization = write(tmp_path / "ric.yaml", fleet_customization())
    observed_object = fleet()
    observed_object["spec"]["paused"] = True
    desired = write(tmp_path / "desired.yaml", fleet())
    observed = write(tmp_path / "observed.yaml", observed_object)
    answer = interpret("-f", customization, "--operation", "retain", "--desired-file", desired)
    assert answer.returncode != 0
    assert "observed-file options are not set" in answer.stderr
    answer = interpret(
        "-f", customization, "--operation", "retain", "--desired-file", desired, "--observed-file", observed
    )
    assert answer.returncode == 0, answer.stderr
    assert results(answer.stdout)[0]["spec"]["paused"] is True


def test_health_and_a_failing_script_with_its_line(tmp_path: Path) -> None:
    """A healthy object prints `true`; a script that indexes a number fails with its line, exit 1."""
    customization = write(tmp_path / "ric.yaml", fleet_customization())
    healthy = write(tmp_path / "healthy.yaml", fleet(replicas=2, ready=2))
    answer = interpret("-f", customization, "--operation", "interpretHealth", "--observed-file", healthy)
    assert answer.returncode == 0, answer.stderr
    assert results(answer.stdout) == [True]
    broken = fleet_customization(
        healthInterpretation="function InterpretHealth(o)\n  local ready = o.status.readyReplicas\n"
        "  return ready.count > 0\nend"
    )
    answer = interpret(
        "-f", write(tmp_path / "broken.yaml", broken), "--operation", "interpretHealth",
        "--observed-file", healthy,
    )  # fmt: skip
    assert answer.returncode == 1
    assert "Execute InterpretHealth error:" in answer.stderr
    assert "luaScript:3: attempt to index local 'ready' (a number value)" in answer.stderr


def test_an_endless_loop_stops(tmp_path: Path) -> None:
    looping = fleet_customization(healthInterpretation="function InterpretHealth(o) while true do end end")
    answer = interpret(
        "-f", write(tmp_path / "loop.yaml", looping), "--operation", "interpretHealth",
        "--observed-file", write(tmp_path / "fleet.yaml", fleet()),
    )  # fmt: skip
    assert answer.returncode == 1
    assert "exceeded its limit" in answer.stderr


def test_check_reports_each_operation(tmp_path: Path) -> None:
    """--check prints PASS, UNSET or ERROR with Lua's line per operation, exit 1 on any error."""
    good = write(tmp_path / "good.yaml", fleet_customization("good"))
    answer = interpret("-f", good, "--check")
    assert answer.returncode == 0, answer.stdout
    assert "TARGET: apps.example.io/v1 Fleet" in answer.stdout
    assert "InterpretComponent:  UNSET" in answer.stdout
    assert "InterpretReplica:    PASS" in answer.stdout
    bad = fleet_customization(
        "bad",
        replicaResource="function GetReplicas(obj)\n  return obj.spec.replicas +\nend",
        statusReflection="function Reflect(obj) return {} end",
    )
    answer = interpret("-f", write(tmp_path / "bad.yaml", bad), "--check")
    assert answer.returncode == 1
    assert "InterpretReplica:    ERROR: luaScript:3: unexpected symbol near 'end'" in answer.stdout
    assert "does not define the function ReflectStatus" in answer.stdout


def test_usage_errors(tmp_path: Path) -> None:
    customization = write(tmp_path / "ric.yaml", fleet_customization())
    fleet_file = write(tmp_path / "fleet.yaml", fleet())
    answer = interpret("-f", customization, "--operation", "explode", "--observed-file", fleet_file)
    assert answer.returncode == 2
    assert "operation explode is not supported" in answer.stderr
    answer = interpret(
        "-f", customization, "--operation", "interpretHealth", "--observed-file", fleet_file,
        "--desired-file", fleet_file,
    )  # fmt: skip
    assert "can not specify both desired-file and observed-file" in answer.stderr
    other = write(tmp_path / "deploy.yaml", {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {}})
    answer = interpret("-f", customization, "--operation", "interpretHealth", "--observed-file", other)
    assert answer.returncode == 1
    assert "no customization scripts InterpretHealth" in answer.stderr
