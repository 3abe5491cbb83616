"""Pull-mode registration end to end: bootstrap tokens, `flotilla register`, and manual acceptance.

One hub (auto acceptance) with a controller manager, one hub with manual acceptance and one
`flotilla sim` process serving the members share the module. Members register with tokens made by
`flotilla token create --print-register-command`, exactly as an operator would copy the printed line.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from tests.integration.federation import Federation, members_named
from tests.support.kubectl import Kubectl
from tests.support.processes import ServerProcess, flotilla
from tests.support.waiting import eventually

pytestmark = pytest.mark.kubectl

MEMBERS = ("pull-a", "pull-b", "pull-c")
TOKEN_REFUSED = (
    "the bootstrap token is invalid or expired; create a new one with `flotilla token create` on the hub"
)


class Environment:
    """A Federation whose members are not joined (they register), and a second hub accepting manually."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.federation = Federation(
            root,
            members_named(*MEMBERS),
            manager_args=["--cluster-status-interval", "1"],
            pod_start_seconds=None,
        )
        self.hub, self.sim = self.federation.hub, self.federation.sim
        self.manual_hub = ServerProcess(root / "manual-hub", ["--cluster-acceptance", "manual"])
        self.agent_dirs: list[Path] = []

    def start(self) -> Environment:
        self.federation.start_hub_and_sim()
        self.manual_hub.start()
        self.federation.manager.start()
        # One token per hub serves every registration (a token is reusable until it expires); one
        # more expired a minute ago (no test waits for a token to expire).
        self.printed = {hub.data_dir: self.print_register_command(hub) for hub in (self.hub, self.manual_hub)}
        self.expired = self.with_token(self.printed[self.hub.data_dir], self.token_secret(seconds=-60))
        return self

    def token_secret(self, seconds: int) -> str:
        """A bootstrap token stored with kubectl (faster than another CLI run), valid `seconds` (expired
        that long ago when negative)."""
        token_id = uuid.uuid4().hex[:6]
        token = f"{token_id}.{uuid.uuid4().hex[:16]}"
        expiration = datetime.now(UTC) + timedelta(seconds=seconds)
        secret = {
            "apiVersion": "v1",
            "kind": "Secret",
            "metadata": {"name": f"bootstrap-token-{token_id}", "namespace": "kube-system"},
            "type": "bootstrap.kubernetes.io/token",
            "stringData": {
                "token-id": token_id,
                "token-secret": token.split(".")[1],
                "expiration": expiration.strftime("%Y-%m-%dT%H:%M:%SZ"),
                "usage-bootstrap-authentication": "true",
                "usage-bootstrap-signing": "true",
            },
        }
        Kubectl(self.hub.kubeconfig, self.root / "cache-tokens").apply_yaml(secret)
        return token

    @staticmethod
    def with_token(words: list[str], token: str) -> list[str]:
        changed = list(words)
        changed[changed.index("--token") + 1] = token
        return changed

    @staticmethod
    def print_register_command(hub: ServerProcess, *extra: str) -> list[str]:
        """The words of `flotilla register …` as `token create --print-register-command` prints them."""
        kubeconfig = str(hub.kubeconfig)
        printed = flotilla("token", "create", "--print-register-command", "--kubeconfig", kubeconfig, *extra)
        words = printed.stdout.split()
        assert words[:2] == ["flotilla", "register"], printed.stdout
        return words[1:]

    def stop(self) -> None:
        for data_dir in self.agent_dirs:
            with contextlib.suppress(OSError, ValueError):
                os.kill(int((data_dir / "agent.pid").read_text()), signal.SIGTERM)
        self.federation.stop()
        self.manual_hub.stop()

    def register_args(self, hub: ServerProcess, member: str, name: str, *extra: str) -> list[str]:
        """The printed `flotilla register …` line of this hub's token, plus the member's flags."""
        data_dir = self.root / f"agent-{name}-{len(self.agent_dirs)}"
        self.agent_dirs.append(data_dir)
        return [
            *self.printed[hub.data_dir],
            "--kubeconfig",
            str(self.sim.kubeconfig(member)),
            "--cluster-name",
            name,
            "--data-dir",
            str(data_dir),
            "--detach",
            *extra,
        ]


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Environment]:
    environment = Environment(tmp_path_factory.mktemp("registration"))
    try:
        yield environment.start()
    finally:
        environment.stop()


@pytest.fixture
def hub(env: Environment, tmp_path: Path) -> Kubectl:
    return Kubectl(env.hub.kubeconfig, tmp_path / "cache-hub")


def data_dir_of(args: list[str]) -> Path:
    return Path(args[args.index("--data-dir") + 1])


def test_tokens_are_created_listed_and_deleted_as_kubeadm_does(env: Environment, hub: Kubectl) -> None:
    """create stores a bootstrap-token Secret kubectl sees; list shows it; delete removes it."""
    kubeconfig = str(env.hub.kubeconfig)
    token = flotilla(
        "token", "create", "--ttl", "2h", "--description", "for the lab", "--kubeconfig", kubeconfig
    )
    token_id, _, secret = token.stdout.strip().partition(".")
    assert len(token_id) == 6
    assert len(secret) == 16
    stored = hub.json("get", "secret", "-n", "kube-system", f"bootstrap-token-{token_id}")
    assert stored["type"] == "bootstrap.kubernetes.io/token"
    assert set(stored["data"]) >= {"usage-bootstrap-authentication", "usage-bootstrap-signing", "expiration"}
    listed = flotilla("token", "list", "--kubeconfig", kubeconfig).stdout.splitlines()
    assert listed[0].split()[:4] == ["TOKEN", "TTL", "EXPIRES", "USAGES"]
    (row,) = [line for line in listed if line.startswith(token.stdout.strip())]
    assert row.split()[1] in ("1h", "2h")
    assert "authentication,signing" in row
    assert "for the lab" in row
    assert "system:bootstrappers:karmada:default-cluster-token" in row
    deleted = flotilla("token", "delete", token_id, "zzzzzz", "--kubeconfig", kubeconfig, check=False)
    assert deleted.stdout.strip() == f'bootstrap token "{token_id}" deleted'
    assert deleted.returncode == 1
    assert 'bootstrap token "zzzzzz" not found' in deleted.stderr
    gone = hub.run("get", "secret", "-n", "kube-system", f"bootstrap-token-{token_id}", check=False)
    assert "NotFound" in gone.stderr


def test_register_creates_the_pull_cluster_and_starts_the_agent(
    env: Environment, hub: Kubectl, tmp_path: Path
) -> None:
    """The Cluster appears in Pull mode with the member's id; the agent runs with its own identity."""
    args = env.register_args(
        env.hub, "pull-a", "pull-a", "--cluster-region", "region-1", "--cluster-zones", "z1,z2"
    )
    result = flotilla(*args)
    assert "cluster pull-a registered with the hub" in result.stdout
    assert "agent started (pid" in result.stdout
    cluster = hub.json("get", "cluster", "pull-a")
    member_id = Kubectl(env.sim.kubeconfig("pull-a"), tmp_path / "cache-member").json(
        "get", "namespace", "kube-system"
    )["metadata"]["uid"]
    spec = cluster["spec"]
    assert (spec["syncMode"], spec["id"], spec["region"], spec["zones"]) == (
        "Pull",
        member_id,
        "region-1",
        ["z1", "z2"],
    )
    assert "apiEndpoint" not in spec
    assert "secretRef" not in spec

    data_dir = data_dir_of(args)
    assert (data_dir / "hub.kubeconfig").stat().st_mode & 0o777 == 0o600
    pid = int((data_dir / "agent.pid").read_text())
    os.kill(pid, 0)  # alive
    agent = Kubectl(data_dir / "hub.kubeconfig", tmp_path / "cache-agent")
    whoami = agent("auth", "whoami", "-o", "jsonpath={.status.userInfo.username}")
    assert whoami == "system:karmada:agent:pull-a"
    assert (
        agent(
            "auth", "can-i", "update", "clusters.cluster.karmada.io/pull-a", "--subresource", "status"
        ).strip()
        == "yes"
    )
    refused = agent.run(
        "auth", "can-i", "list", "works.work.karmada.io", "-n", "karmada-es-pull-b", check=False
    )
    assert refused.stdout.strip() == "no"


def test_a_wrong_ca_hash_stops_registration_naming_both_hashes(env: Environment, hub: Kubectl) -> None:
    """The hub's CA must be the pinned one; nothing is created otherwise."""
    args = env.register_args(env.hub, "pull-b", "pull-b")
    position = args.index("--discovery-token-ca-cert-hash") + 1
    actual, args[position] = args[position], "sha256:" + "0" * 64
    result = flotilla(*args, check=False)
    assert result.returncode == 1
    assert "the hub's CA does not match --discovery-token-ca-cert-hash" in result.stderr
    assert "sha256:" + "0" * 64 in result.stderr
    assert actual in result.stderr
    assert not hub.succeeds("get", "cluster", "pull-b")


def test_a_deleted_token_is_refused_clearly(env: Environment) -> None:
    """Deleting a token on the hub makes register stop with the message to create a new one."""
    token = env.token_secret(seconds=3600)
    words = env.with_token(env.printed[env.hub.data_dir], token)
    flotilla("token", "delete", token, "--kubeconfig", str(env.hub.kubeconfig))
    member = ["--kubeconfig", str(env.sim.kubeconfig("pull-b")), "--cluster-name", "pull-b"]
    result = flotilla(*words, *member, "--data-dir", str(env.root / "deleted"), check=False)
    assert result.returncode == 1
    assert TOKEN_REFUSED in result.stderr


def test_an_expired_token_is_refused_clearly(env: Environment) -> None:
    """A token past its expiration is refused the same way."""
    member = ["--kubeconfig", str(env.sim.kubeconfig("pull-b")), "--cluster-name", "pull-b"]
    result = flotilla(*env.expired, *member, "--data-dir", str(env.root / "expired"), check=False)
    assert result.returncode == 1
    assert TOKEN_REFUSED in result.stderr


def test_a_second_member_cannot_take_a_registered_name(env: Environment, hub: Kubectl) -> None:
    """Another member (another cluster id) registering as pull-a is refused with the reason."""
    if not hub.succeeds("get", "cluster", "pull-a"):
        flotilla(*env.register_args(env.hub, "pull-a", "pull-a"))
    result = flotilla(*env.register_args(env.hub, "pull-c", "pull-a"), check=False)
    assert result.returncode == 1
    assert "cluster pull-a is already registered by another member" in result.stderr


def test_manual_acceptance_blocks_register_until_the_operator_accepts(
    env: Environment, tmp_path: Path
) -> None:
    """register waits (and says so) until `flotilla accept NAME`, then completes."""
    args = env.register_args(env.manual_hub, "pull-c", "pull-c", "--timeout", "2m")
    output = tmp_path / "register.out"
    with output.open("w") as sink:
        process = subprocess.Popen(
            [sys.executable, "-m", "flotilla", *args], stdout=sink, stderr=subprocess.STDOUT
        )
    try:
        eventually(
            lambda: "waiting for the hub operator to run `flotilla accept pull-c`" in output.read_text(),
            timeout=30,
            what="register says it waits for flotilla accept",
        )
        assert process.poll() is None, output.read_text()
        kubeconfig = str(env.manual_hub.kubeconfig)
        waiting = flotilla("accept", "--list", "--kubeconfig", kubeconfig).stdout
        assert any(line.split()[0] == "pull-c" for line in waiting.splitlines()[1:]), waiting
        manual = Kubectl(env.manual_hub.kubeconfig, tmp_path / "cache-manual")
        assert not manual.succeeds("get", "cluster", "pull-c")
        accepted = flotilla("accept", "pull-c", "--kubeconfig", kubeconfig)
        assert accepted.stdout.strip() == "cluster pull-c accepted"
        assert process.wait(timeout=60) == 0, output.read_text()
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert "agent started (pid" in output.read_text()
    assert manual.json("get", "cluster", "pull-c")["spec"]["syncMode"] == "Pull"
    (condition,) = [
        c
        for csr in manual.json("get", "csr")["items"]
        for c in (csr.get("status") or {}).get("conditions", [])
        if c["type"] == "Approved"
    ]
    assert condition["reason"] == "AcceptedByOperator"
