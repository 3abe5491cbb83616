"""`flotilla up` / `flotilla down` as a user runs them: real processes, kubectl, signals, a killed component.

The tests share one data dir and run in file order, as a user's sessions would: a first `up` (any
free port) reaches three Ready members and is stopped by `flotilla down`; a second `up` reuses the
port and the joined members and is stopped by Ctrl-C; a third is itself killed with SIGKILL, and the
fourth stops what it left running before starting, then loses its controller manager, its sim and
its API server to `kill -9` one after the other — each is restarted while the rest keep running —
and is stopped by Ctrl-C. After each run, no process may mention the data dir. `down` and the
refused second `up` run in the test process through click's runner: the same code as the command,
without paying for another interpreter start.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from flotilla.cli.main import cli
from tests.support.kubectl import Kubectl
from tests.support.waiting import eventually

pytestmark = pytest.mark.kubectl

MEMBERS = ["member1", "member2", "member3"]


def processes_mentioning(path: Path) -> list[str]:
    """Command lines of live processes (zombies excluded) that have `path` among their arguments."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            stat = (entry / "stat").read_text()
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if str(path) in command and not stat[stat.rindex(")") + 2 :].startswith("Z"):
            found.append(f"{entry.name}: {command}")
    return found


def pid_alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return not stat[stat.rindex(")") + 2 :].startswith("Z")


@dataclass
class UpRun:
    """One `flotilla up` in the foreground, its output captured to files."""

    data_dir: Path
    args: list[str] = field(default_factory=list)
    process: subprocess.Popen[bytes] | None = None

    def start(self) -> UpRun:
        self.data_dir.parent.mkdir(parents=True, exist_ok=True)
        self.out = self.data_dir.parent / f"up-{id(self)}.out"
        self.err = self.data_dir.parent / f"up-{id(self)}.err"
        with self.out.open("wb") as out, self.err.open("wb") as err:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "flotilla", "up", "--data-dir", str(self.data_dir), *self.args],
                stdout=out,
                stderr=err,
                cwd=self.data_dir.parent,
            )
        return self

    def stdout(self) -> str:
        return self.out.read_text(errors="replace")

    def stderr(self) -> str:
        return self.err.read_text(errors="replace")

    def wait_for(self, text: str, timeout: float = 60.0) -> None:
        assert self.process is not None

        def seen() -> bool:
            if self.process is not None and self.process.poll() is not None:
                raise AssertionError(
                    f"flotilla up exited ({self.process.returncode}) before {text!r}:\n"
                    f"{self.stdout()}\n{self.stderr()}"
                )
            return text in self.stdout()

        eventually(seen, timeout=timeout, what=f"{text!r} in the output of flotilla up")

    def wait_ready(self) -> UpRun:
        self.wait_for("Flotilla is up")
        return self

    def exit_code(self, timeout: float = 30.0) -> int:
        assert self.process is not None
        return self.process.wait(timeout)

    def state(self) -> dict[str, Any]:
        state: dict[str, Any] = json.loads((self.data_dir / "up.json").read_text())
        return state

    def pids(self) -> dict[str, int]:
        state = self.state()
        pids = {name: entry["pid"] for name, entry in state["components"].items()}
        return {**pids, "up": state["upPid"]}

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait()


def flotilla(*args: str) -> Result:
    """Run a `flotilla` command in this process (another terminal, as far as `up` can tell)."""
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def assert_nothing_left(data_dir: Path, pids: dict[str, int]) -> None:
    eventually(
        lambda: not [name for name, pid in pids.items() if pid_alive(pid)],
        timeout=10,
        what=f"every recorded process gone: {pids}",
    )
    assert processes_mentioning(data_dir) == []


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    directory = tmp_path_factory.mktemp("up") / "flotilla"
    yield directory
    # Whatever happened in the tests, leave no process behind.
    flotilla("down", "--data-dir", str(directory), "--grace", "2")
    for line in processes_mentioning(directory):
        os.kill(int(line.split(":", 1)[0]), signal.SIGKILL)


@pytest.fixture(scope="module")
def first_run(data_dir: Path) -> Iterator[UpRun]:
    run = UpRun(data_dir, ["--members", "3", "--secure-port", "0"]).start()
    yield run.wait_ready()
    run.kill()


@pytest.fixture(scope="module")
def second_run(data_dir: Path, first_run: UpRun) -> Iterator[UpRun]:
    assert first_run.exit_code() == 0, "the first run is stopped before the second starts"
    run = UpRun(data_dir).start()
    yield run.wait_ready()
    run.kill()


def hub_port(run: UpRun) -> int:
    match = re.search(r"API server ready on https://127\.0\.0\.1:(\d+)", run.stdout())
    assert match, run.stdout()
    return int(match.group(1))


def test_up_brings_three_member_clusters_to_ready(first_run: UpRun, tmp_path: Path) -> None:
    """`up --members 3 --secure-port 0` ends with three Ready clusters, labelled by region and zone."""
    hub = Kubectl(first_run.data_dir / "hub.kubeconfig", tmp_path / "cache")
    clusters = {c["metadata"]["name"]: c for c in hub.json("get", "clusters")["items"]}
    assert sorted(clusters) == MEMBERS
    for cluster in clusters.values():
        ready = [c for c in cluster["status"]["conditions"] if c["type"] == "Ready"]
        assert ready and ready[0]["status"] == "True"
        labels = cluster["metadata"]["labels"]
        assert labels["topology.kubernetes.io/region"] == cluster["spec"]["region"]
        assert [labels["topology.kubernetes.io/zone"]] == cluster["spec"]["zones"]
    assert {c["spec"]["region"] for c in clusters.values()} == {"region-a", "region-b"}
    member = Kubectl(first_run.data_dir / "members" / "member1.kubeconfig", tmp_path / "member-cache")
    assert len(member.json("get", "nodes")["items"]) == 3
    output = first_run.stdout()
    assert "API server ready on https://127.0.0.1:" in output
    assert "joined member1 (region-a/region-a-1)" in output
    assert f"export KUBECONFIG={first_run.data_dir / 'hub.kubeconfig'}" in output
    assert sorted(first_run.state()["components"]) == ["apiserver", "controller-manager", "dashboard", "sim"]
    assert "the dashboard, signed in as the hub's admin" in output
    assert (first_run.data_dir / "examples" / "nginx.yaml").exists()
    for component in ("apiserver", "sim", "controller-manager"):
        assert (first_run.data_dir / "logs" / f"{component}.log").stat().st_size > 0


def test_the_first_up_turns_cluster_failover_on(first_run: UpRun, tmp_path: Path) -> None:
    """Unlike Karmada's default, a dead member's workloads move: two ClusterTaintPolicies taint an
    unreachable or not-ready member NoExecute (and untaint it once Ready again)."""
    hub = Kubectl(first_run.data_dir / "hub.kubeconfig", tmp_path / "cache")
    policies = {p["metadata"]["name"]: p["spec"] for p in hub.json("get", "clustertaintpolicies")["items"]}
    assert sorted(policies) == ["flotilla-not-ready", "flotilla-unreachable"]
    unreachable = policies["flotilla-unreachable"]
    assert unreachable["taints"] == [{"key": "cluster.karmada.io/unreachable", "effect": "NoExecute"}]
    assert unreachable["addOnConditions"] == [
        {"conditionType": "Ready", "operator": "In", "statusValues": ["Unknown"]}
    ]
    assert unreachable["removeOnConditions"] == [
        {"conditionType": "Ready", "operator": "In", "statusValues": ["True"]}
    ]
    assert (
        "cluster failover on: ClusterTaintPolicies flotilla-unreachable, flotilla-not-ready"
        in first_run.stdout()
    )


def test_a_second_up_on_a_running_data_dir_is_refused(first_run: UpRun) -> None:
    """While one `up` runs, another on the same data dir exits 1 naming the running one."""
    result = flotilla("up", "--data-dir", str(first_run.data_dir))
    assert result.exit_code == 1
    assert "already running" in result.stderr and f"pid {first_run.pids()['up']}" in result.stderr


def test_down_stops_every_process_up_started(first_run: UpRun) -> None:
    """`flotilla down` from another terminal stops `up` and its components; `up` exits 0."""
    pids = first_run.pids()
    result = flotilla("down", "--data-dir", str(first_run.data_dir))
    assert result.exit_code == 0, result.output
    assert "stopped: up" in result.stdout
    for component in ("controller-manager", "sim", "apiserver"):
        assert component in result.stdout
    assert first_run.exit_code() == 0
    assert_nothing_left(first_run.data_dir, pids)
    assert first_run.state()["components"] == {} and first_run.state()["upPid"] is None


def test_up_again_reuses_the_port_and_the_joined_members(
    first_run: UpRun, second_run: UpRun, tmp_path: Path
) -> None:
    """A second `up` without flags listens on the first run's port and joins nobody again."""
    assert hub_port(second_run) == hub_port(first_run)
    output = second_run.stdout()
    assert "already joined: member1, member2, member3" in output
    assert "✓ joined" not in output and "OK joined" not in output
    assert "cluster failover on" not in output, "only the first up of a data dir installs the policies"
    hub = Kubectl(second_run.data_dir / "hub.kubeconfig", tmp_path / "cache")
    assert sorted(c["metadata"]["name"] for c in hub.json("get", "clusters")["items"]) == MEMBERS


def test_ctrl_c_stops_up_and_every_component(second_run: UpRun) -> None:
    """SIGINT (Ctrl-C) on `up` stops every component and `up` exits 0."""
    pids = second_run.pids()
    assert second_run.process is not None
    second_run.process.send_signal(signal.SIGINT)
    assert second_run.exit_code() == 0
    assert "stopped: controller-manager, dashboard, apiserver, sim" in second_run.stdout()
    assert_nothing_left(second_run.data_dir, pids)


@dataclass
class AfterKilledUp:
    """An `up` started where an earlier one was killed with SIGKILL, and that earlier one's pids."""

    run: UpRun
    leftovers: dict[str, int]


@pytest.fixture(scope="module")
def after_killed_up(data_dir: Path, second_run: UpRun) -> Iterator[AfterKilledUp]:
    assert second_run.exit_code() == 0, "the second run is stopped before the next starts"
    killed = UpRun(data_dir).start()
    try:
        eventually(lambda: (data_dir / "up.json").exists() and len(killed.pids()) == 4, timeout=60)
        leftovers = {name: pid for name, pid in killed.pids().items() if name != "up"}
    finally:
        killed.kill()
    assert all(pid_alive(pid) for pid in leftovers.values()), "SIGKILL of up leaves its components"
    run = UpRun(data_dir).start()
    run.wait_for("simulated member cluster(s) serving")  # by then all three components run
    yield AfterKilledUp(run, leftovers)
    run.kill()


def test_up_after_a_killed_up_stops_its_leftovers_first(after_killed_up: AfterKilledUp) -> None:
    """The components of an `up` killed with SIGKILL are stopped by the next `up` before it starts."""
    assert "Stopping what an earlier `flotilla up` left running" in after_killed_up.run.stdout()
    assert [name for name, pid in after_killed_up.leftovers.items() if pid_alive(pid)] == []
    assert set(after_killed_up.run.pids().values()).isdisjoint(after_killed_up.leftovers.values())


def killed_and_restarted(
    run: UpRun, component: str, meanwhile: Callable[[], None] = lambda: None
) -> tuple[int, int]:
    """`kill -9` a component of a Ready `up`, run `meanwhile` once `up` has seen it die, and return
    its old and new pids once `up` says it restarted it."""
    old = run.pids()[component]
    os.kill(old, signal.SIGKILL)
    run.wait_for(f"{component} exited with signal SIGKILL (pid {old}); restarting it in 1s.")
    meanwhile()
    run.wait_for(f"{component} restarted (pid ")
    new = run.pids()[component]
    assert new != old and pid_alive(new) and not pid_alive(old)
    return old, new


def test_a_killed_controller_manager_is_restarted_while_the_hub_serves(
    after_killed_up: AfterKilledUp, tmp_path: Path
) -> None:
    """`kill -9` of the controller manager: `up` names it, shows its log and starts it again; the
    API server and the sim keep their pids and the hub answers kubectl throughout."""
    run = after_killed_up.run
    run.wait_ready()
    before = run.pids()
    hub = Kubectl(run.data_dir / "hub.kubeconfig", tmp_path / "cache")

    def hub_serves() -> None:
        assert hub.succeeds("get", "clusters")

    killed_and_restarted(run, "controller-manager", hub_serves)
    after = run.pids()
    assert (after["apiserver"], after["sim"], after["up"]) == (
        before["apiserver"],
        before["sim"],
        before["up"],
    )
    output = run.stdout()
    assert f"Last lines of {Path('flotilla') / 'logs' / 'controller-manager.log'}:" in output
    assert "event=" in output  # lines of the manager's own log follow
    assert sorted(c["metadata"]["name"] for c in hub.json("get", "clusters")["items"]) == MEMBERS
    health = run.state()["endpoints"]["controllerManagerHealth"]  # the new manager's, recorded
    with urllib.request.urlopen(f"{health}/healthz", timeout=5) as answer:
        assert answer.read() == b"ok"


def test_a_killed_sim_is_restarted_and_its_members_serve_again(
    after_killed_up: AfterKilledUp, tmp_path: Path
) -> None:
    """`kill -9` of the sim: it comes back on its ports and kubectl reaches the members again."""
    run = after_killed_up.run
    killed_and_restarted(run, "sim")
    member = Kubectl(run.data_dir / "members" / "member1.kubeconfig", tmp_path / "member-cache")
    eventually(lambda: member.succeeds("get", "nodes"), timeout=30, what="member1 answering again")
    assert len(member.json("get", "nodes")["items"]) == 3


def test_a_killed_api_server_is_restarted_on_the_same_port_from_its_store(
    after_killed_up: AfterKilledUp, tmp_path: Path
) -> None:
    """`kill -9` of the API server: it comes back on the same port with the same data, so the
    kubeconfigs handed out keep working; the other components keep running."""
    run = after_killed_up.run
    before = run.pids()
    port = hub_port(run)
    killed_and_restarted(run, "apiserver")
    after = run.pids()
    assert (after["controller-manager"], after["sim"]) == (before["controller-manager"], before["sim"])
    hub = Kubectl(run.data_dir / "hub.kubeconfig", tmp_path / "cache")
    assert f":{port}" in hub("config", "view", "-o", "jsonpath={.clusters[0].cluster.server}")
    assert sorted(c["metadata"]["name"] for c in hub.json("get", "clusters")["items"]) == MEMBERS


def test_ctrl_c_after_restarts_stops_every_component(after_killed_up: AfterKilledUp) -> None:
    """The restarted components are stopped like the others: `up` exits 0 and leaves nothing behind."""
    run = after_killed_up.run
    pids = run.pids()
    assert run.process is not None
    run.process.send_signal(signal.SIGINT)
    assert run.exit_code() == 0
    assert_nothing_left(run.data_dir, pids)
