"""The karmadactl verbs end to end: `flotilla apply`, `promote`, `cordon` / `uncordon` and `taint`.

One hub, one `flotilla sim` serving member1…member3 (joined in Push mode) and one controller
manager are shared by the module; every test works in its own namespace and checks the results
with kubectl against the hub and the members. The verbs run as the installed `flotilla` binary.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from flotilla.api.scheme import GroupVersionKind
from flotilla.cli.propagation.policies import apply_policy, policy_name
from tests.integration.federation import (
    Federation,
    deployment,
    members_named,
    nginx_walkthrough,
    template_ready,
)
from tests.support.kubectl import Kubectl
from tests.support.waiting import eventually

pytestmark = pytest.mark.kubectl

MEMBERS = ("member1", "member2", "member3")


@pytest.fixture(scope="module")
def federation(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Federation]:
    with Federation(tmp_path_factory.mktemp("verbs"), members_named(*MEMBERS)) as federation:
        yield federation.start()


def config_map(name: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": {"k": "v"}}


def everywhere(obj: dict[str, Any], ns: str) -> list[dict[str, Any]]:
    """`obj` in `ns` and the policy `apply --all-clusters` writes for it (kubectl applies them faster)."""
    placed = {**obj, "metadata": {**obj["metadata"], "namespace": ns}}
    gvk = GroupVersionKind("", "v1", obj["kind"])
    return [placed, apply_policy(gvk, obj["metadata"]["name"], ns, None)]


def manifest_file(directory: Path, documents: list[dict[str, Any]]) -> str:
    path = directory / f"{uuid.uuid4().hex[:6]}.yaml"
    path.write_text(yaml.safe_dump_all(documents))
    return str(path)


def scheduled_clusters(hub: Kubectl, ns: str, binding: str) -> set[str] | None:
    found = hub.json_or_none("get", "resourcebinding", binding, "-n", ns)
    clusters = (found or {}).get("spec", {}).get("clusters")
    return {target["name"] for target in clusters} if clusters else None


def test_apply_walkthrough_reaches_ready_on_the_hub_and_reapplying_is_unchanged(
    federation: Federation, hub: Kubectl, ns: str, tmp_path: Path
) -> None:
    """The nginx walkthrough through `flotilla apply` shows 2/2 on the hub; applying again changes nothing."""
    path = manifest_file(tmp_path, nginx_walkthrough("member1", "member2"))
    first = federation.flotilla("apply", "-f", path, "-n", ns)
    assert first.returncode == 0, first.stderr
    assert first.stdout == (
        "deployment.apps/nginx created\npropagationpolicy.policy.karmada.io/nginx-propagation created\n"
    )
    eventually(lambda: template_ready(hub, ns, "nginx") == "2/2", timeout=45, what="READY 2/2 on the hub")
    assert scheduled_clusters(hub, ns, "nginx-deployment") == {"member1", "member2"}
    again = federation.flotilla("apply", "-f", path, "-n", ns)
    assert again.returncode == 0, again.stderr
    assert again.stdout == (
        "deployment.apps/nginx unchanged\npropagationpolicy.policy.karmada.io/nginx-propagation unchanged\n"
    )


def test_apply_all_clusters_puts_a_configmap_in_every_member(
    federation: Federation, hub: Kubectl, members: dict[str, Kubectl], ns: str
) -> None:
    """`--all-clusters` adds karmadactl's generated policy; the ConfigMap reaches every member."""
    result = federation.flotilla(
        "apply", "-f", "-", "-n", ns, "--all-clusters", input=yaml.safe_dump(config_map("settings"))
    )
    assert result.returncode == 0, result.stderr
    generated = policy_name(ns, "settings", GroupVersionKind("", "v1", "ConfigMap"))
    assert result.stdout == (
        f"configmap/settings created\npropagationpolicy.policy.karmada.io/{generated} created\n"
    )
    policy = hub.json("get", "propagationpolicy", generated, "-n", ns)
    assert policy["spec"]["resourceSelectors"] == [
        {"apiVersion": "v1", "kind": "ConfigMap", "name": "settings", "namespace": ns}
    ]
    eventually(
        lambda: all(member.succeeds("get", "configmap", "settings", "-n", ns) for member in members.values()),
        timeout=30,
        what="the ConfigMap in every member",
    )


def test_an_invalid_manifest_fails_naming_the_field_while_the_others_are_applied(
    federation: Federation, hub: Kubectl, ns: str, tmp_path: Path
) -> None:
    """A negative replica count is the hub's Invalid error naming the field; the ConfigMap is applied."""
    path = manifest_file(tmp_path, [deployment("broken", -1), config_map("fine")])
    result = federation.flotilla("apply", "-f", path, "-n", ns)
    assert result.returncode == 1
    assert result.stdout == "configmap/fine created\n"
    assert f'Error from server (Invalid): error when applying "{path}"' in result.stderr
    assert "spec.replicas" in result.stderr
    assert "Traceback" not in result.stderr
    assert hub.succeeds("get", "configmap", "fine", "-n", ns)
    assert not hub.succeeds("get", "deployment", "broken", "-n", ns)


def test_promote_adopts_a_deployment_running_in_a_member_in_place(
    federation: Federation, hub: Kubectl, members: dict[str, Kubectl], ns: str
) -> None:
    """The member's Deployment becomes a hub template bound to that member, keeping its UID, now managed."""
    member = members["member3"]
    eventually(
        lambda: member.succeeds("get", "namespace", ns), timeout=30, what="namespace propagated to member3"
    )
    member("create", "deployment", "web", "--image", "nginx", "--replicas", "1", "-n", ns)
    uid = member.json("get", "deployment", "web", "-n", ns)["metadata"]["uid"]

    result = federation.flotilla("promote", "deployment", "web", "-n", ns, "--cluster", "member3")
    assert result.returncode == 0, result.stderr
    generated = policy_name(ns, "web", GroupVersionKind("apps", "v1", "Deployment"))
    assert result.stdout == (
        "deployment.apps/web promoted from cluster member3\n"
        f"propagationpolicy.policy.karmada.io/{generated} created\n"
    )
    template = hub.json("get", "deployment", "web", "-n", ns)
    assert template["metadata"]["annotations"]["work.karmada.io/conflict-resolution"] == "overwrite"
    eventually(
        lambda: scheduled_clusters(hub, ns, "web-deployment") == {"member3"},
        timeout=30,
        what="binding scheduled to member3",
    )
    adopted = eventually(
        lambda: (
            (found := member.json("get", "deployment", "web", "-n", ns))["metadata"]
            .get("labels", {})
            .get("karmada.io/managed")
            == "true"
            and found
        ),
        timeout=30,
        what="the member Deployment is managed",
    )
    assert adopted["metadata"]["uid"] == uid
    for other in ("member1", "member2"):
        assert not members[other].succeeds("get", "deployment", "web", "-n", ns)

    again = federation.flotilla("promote", "deploy", "web", "-n", ns, "-C", "member3")
    assert again.returncode == 1
    assert "already exists on the hub" in again.stderr


def test_cordon_keeps_new_workloads_off_a_cluster_until_uncordoned(
    federation: Federation, hub: Kubectl, members: dict[str, Kubectl], ns: str
) -> None:
    """A cordoned cluster is skipped by a new all-clusters workload; uncordoning brings it back."""
    result = federation.flotilla("cordon", "member2")
    try:
        assert (result.returncode, result.stdout) == (0, "cluster/member2 cordoned\n"), result.stderr
        assert federation.flotilla("cordon", "member2").stdout == "cluster/member2 already cordoned\n"
        hub.apply_yaml(everywhere(config_map("c1"), ns))
        eventually(
            lambda: scheduled_clusters(hub, ns, "c1-configmap") == {"member1", "member3"},
            timeout=30,
            what="scheduled around the cordoned member2",
        )
    finally:
        uncordoned = federation.flotilla("uncordon", "member2")
    assert (uncordoned.returncode, uncordoned.stdout) == (0, "cluster/member2 uncordoned\n"), (
        uncordoned.stderr
    )
    eventually(
        lambda: scheduled_clusters(hub, ns, "c1-configmap") == set(MEMBERS),
        timeout=30,
        what="rescheduled onto member2 after uncordon",
    )
    eventually(
        lambda: members["member2"].succeeds("get", "configmap", "c1", "-n", ns),
        timeout=30,
        what="on member2",
    )


def test_taint_no_schedule_repels_new_workloads_and_a_trailing_dash_removes_it(
    federation: Federation, hub: Kubectl, ns: str
) -> None:
    """A NoSchedule taint repels a new workload; re-adding needs --overwrite; `key:Effect-` removes it."""
    tainted = federation.flotilla("taint", "clusters", "member3", "dedicated=ops:NoSchedule")
    try:
        assert (tainted.returncode, tainted.stdout) == (0, "cluster.cluster.karmada.io/member3 tainted\n")
        repeated = federation.flotilla("taint", "clusters", "member3", "dedicated=other:NoSchedule")
        assert repeated.returncode == 1
        assert "member3 already has dedicated taint(s) with same effect(s) and --overwrite is false" in (
            repeated.stderr
        )
        hub.apply_yaml(everywhere(config_map("t1"), ns))
        eventually(
            lambda: scheduled_clusters(hub, ns, "t1-configmap") == {"member1", "member2"},
            timeout=30,
            what="scheduled around the tainted member3",
        )
    finally:
        removed = federation.flotilla("taint", "clusters", "member3", "dedicated:NoSchedule-")
    assert (removed.returncode, removed.stdout) == (0, "cluster.cluster.karmada.io/member3 untainted\n")
    taints = hub.json("get", "cluster", "member3")["spec"].get("taints") or []
    assert all(taint["key"] != "dedicated" for taint in taints)
