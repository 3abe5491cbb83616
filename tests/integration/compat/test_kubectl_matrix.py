"""kubectl 1.27, 1.28, 1.33 and the system kubectl over one command matrix against the hub.

Each kubectl version works in a namespace of its own on one federation and runs what its users run
every day: apply client-side (validation on) and server-side, the migration between them, edit, diff,
explain, wait for conditions, rollout status, the three patch types and watch. Older kubectls fetch
/openapi/v2 where newer ones read /openapi/v3, and kubectl's apply migration sends a JSON patch on
metadata.resourceVersion and managedFields: the matrix exists to catch exactly such gaps.
"""

from __future__ import annotations

import json
import queue
import stat
import subprocess
import threading
from pathlib import Path
from typing import Any

import pytest

from tests.integration.compat.conftest import client_namespace
from tests.integration.compat.workloads import condition_status, config_map, deployment
from tests.integration.federation import Federation
from tests.support.kubectl import Kubectl, kubectl_version_binary

pytestmark = pytest.mark.kubectl

VERSIONS = ("1.27", "1.28", "1.33", "system")


@pytest.fixture(params=VERSIONS, ids=[f"kubectl-{version}" for version in VERSIONS])
def kubectl(
    request: pytest.FixtureRequest, federation: Federation, hub_admin: Kubectl, tmp_path: Path
) -> Kubectl:
    """The kubectl of one version against the hub, with a fresh cache (discovery and OpenAPI fetched anew)."""
    version = str(request.param)
    binary = "kubectl" if version == "system" else kubectl_version_binary(int(version.split(".")[1]))
    if binary is None:
        pytest.skip(f"kubectl {version} is not installed beside the system kubectl")
    client_namespace(hub_admin, namespace_of(version))
    return Kubectl(federation.hub.kubeconfig, tmp_path / "cache", binary=binary)


def namespace_of(version: str) -> str:
    return "kubectl-" + version.replace(".", "-")


def ns(kubectl: Kubectl) -> str:
    """The namespace of this kubectl's version."""
    name = Path(kubectl.binary).name
    return namespace_of(name.removeprefix("kubectl.") if name != "kubectl" else "system")


def apply(kubectl: Kubectl, obj: dict[str, Any], *flags: str) -> subprocess.CompletedProcess[str]:
    return kubectl.run("apply", "-n", ns(kubectl), *flags, "-f", "-", input=json.dumps(obj))


def test_apply_client_side_validates_and_updates(kubectl: Kubectl, hub_admin: Kubectl) -> None:
    """apply creates, applies a change as 'configured', and (validation on) refuses an unknown field."""
    manifest = deployment("csa")
    assert "created" in apply(kubectl, manifest).stdout
    manifest["spec"]["template"]["spec"]["containers"][0]["image"] = "nginx:1.26"
    assert "configured" in apply(kubectl, manifest).stdout
    live = hub_admin.json("get", "deploy", "csa", "-n", ns(kubectl))
    assert live["spec"]["template"]["spec"]["containers"][0]["image"] == "nginx:1.26"
    manifest["spec"]["replicaz"] = 3
    refused = kubectl.run("apply", "-n", ns(kubectl), "-f", "-", input=json.dumps(manifest), check=False)
    assert refused.returncode != 0
    assert 'unknown field "spec.replicaz"' in refused.stderr, refused.stderr
    assert "openapi" not in refused.stderr.lower(), refused.stderr


def test_server_side_apply_takes_over_a_client_side_apply(kubectl: Kubectl, hub_admin: Kubectl) -> None:
    """apply --server-side after a client-side apply migrates ownership silently: a field dropped goes."""
    manifest = config_map("migrated", kept="1", dropped="2")
    apply(kubectl, manifest)
    del manifest["data"]["dropped"]
    result = apply(kubectl, manifest, "--server-side")
    assert "migration" not in result.stderr and "Warning" not in result.stderr, result.stderr
    live = hub_admin.json("get", "configmap", "migrated", "-n", ns(kubectl), "--show-managed-fields")
    assert live["data"] == {"kept": "1"}
    managers = {(entry["manager"], entry["operation"]) for entry in live["metadata"]["managedFields"]}
    assert ("kubectl", "Apply") in managers
    assert ("kubectl-client-side-apply", "Update") not in managers, managers


def test_server_side_apply_reports_conflicts(kubectl: Kubectl) -> None:
    """A second field manager's server-side apply of a field another owns is a conflict naming the owner."""
    apply(kubectl, config_map("owned", key="one"), "--server-side", "--field-manager=first")
    conflict = kubectl.run(
        "apply", "-n", ns(kubectl), "--server-side", "--field-manager=second", "-f", "-",
        input=json.dumps(config_map("owned", key="two")), check=False,
    )  # fmt: skip
    assert conflict.returncode != 0
    assert "conflict" in conflict.stderr.lower() and "first" in conflict.stderr, conflict.stderr


def test_edit_saves_the_editors_change(kubectl: Kubectl, hub_admin: Kubectl, tmp_path: Path) -> None:
    """kubectl edit opens the live object in $EDITOR and saves what the editor changed."""
    apply(kubectl, config_map("edited", colour="blue"))
    editor = tmp_path / "editor.sh"
    editor.write_text('#!/bin/sh\nsed -i "s/colour: blue/colour: green/" "$1"\n')
    editor.chmod(editor.stat().st_mode | stat.S_IXUSR)
    result = kubectl.run("edit", "configmap", "edited", "-n", ns(kubectl), env={"EDITOR": str(editor)})
    assert "edited" in result.stdout, result.stdout + result.stderr
    assert hub_admin.json("get", "configmap", "edited", "-n", ns(kubectl))["data"] == {"colour": "green"}


def test_diff_shows_a_change_and_nothing_else(kubectl: Kubectl) -> None:
    """kubectl diff exits 0 for the live manifest, 1 with the changed line for a changed one."""
    manifest = deployment("diffed")
    apply(kubectl, manifest)
    same = kubectl.run("diff", "-n", ns(kubectl), "-f", "-", input=json.dumps(manifest), check=False)
    assert same.returncode == 0, same.stdout + same.stderr
    manifest["spec"]["template"]["spec"]["containers"][0]["image"] = "nginx:1.27"
    changed = kubectl.run("diff", "-n", ns(kubectl), "-f", "-", input=json.dumps(manifest), check=False)
    assert changed.returncode == 1, changed.stdout + changed.stderr
    changed_lines = [line.replace(" ", "") for line in changed.stdout.splitlines()]
    assert "+-image:nginx:1.27" in changed_lines and "--image:nginx:1.25" in changed_lines, changed.stdout


def test_explain_built_in_and_karmada_fields(kubectl: Kubectl) -> None:
    """kubectl explain describes a built-in field and a Karmada policy's field."""
    replicas = kubectl("explain", "deployment.spec.replicas")
    assert "replicas" in replicas and "<integer>" in replicas, replicas
    placement = kubectl("explain", "propagationpolicy.spec.placement")
    assert "clusterAffinity" in placement, placement


def test_unknown_kind_is_named_plainly(kubectl: Kubectl) -> None:
    """Applying a kind the hub does not serve says so, not that OpenAPI could not be downloaded."""
    unknown = {"apiVersion": "example.com/v1", "kind": "Gadget", "metadata": {"name": "g"}}
    result = kubectl.run("apply", "-n", ns(kubectl), "-f", "-", input=json.dumps(unknown), check=False)
    assert result.returncode != 0
    assert "Gadget" in result.stderr and "openapi" not in result.stderr.lower(), result.stderr


def test_wait_and_rollout_status_see_the_members_roll_out(kubectl: Kubectl, hub_admin: Kubectl) -> None:
    """wait --for=condition=Available and rollout status end once both members run the Deployment."""
    apply(kubectl, deployment("waited"))
    kubectl("wait", "--for=condition=Available", "deploy/waited", "-n", ns(kubectl), "--timeout=90s")
    kubectl("rollout", "status", "deploy/waited", "-n", ns(kubectl), "--timeout=90s")
    live = hub_admin.json("get", "deploy", "waited", "-n", ns(kubectl))
    assert condition_status(live, "Available") == "True"
    assert live["status"]["readyReplicas"] == 2


def test_three_patch_types(kubectl: Kubectl, hub_admin: Kubectl) -> None:
    """Strategic merge (containers merged by name), JSON merge and JSON patch all apply to a Deployment."""
    apply(kubectl, deployment("patched"))
    namespace = ns(kubectl)
    strategic = {"spec": {"template": {"spec": {"containers": [{"name": "web", "image": "nginx:1.27"}]}}}}
    kubectl("patch", "deploy", "patched", "-n", namespace, "-p", json.dumps(strategic))
    merge = '{"metadata":{"labels":{"by":"merge"}}}'
    kubectl("patch", "deploy", "patched", "-n", namespace, "--type", "merge", "-p", merge)
    replicas = '[{"op":"replace","path":"/spec/replicas","value":3}]'
    kubectl("patch", "deploy", "patched", "-n", namespace, "--type", "json", "-p", replicas)
    live = hub_admin.json("get", "deploy", "patched", "-n", namespace)
    containers = live["spec"]["template"]["spec"]["containers"]
    assert [(c["name"], c["image"]) for c in containers] == [("web", "nginx:1.27")]
    assert live["metadata"]["labels"]["by"] == "merge"
    assert live["spec"]["replicas"] == 3


def test_json_patch_guarded_by_the_resource_version(kubectl: Kubectl, hub_admin: Kubectl) -> None:
    """A JSON patch testing metadata.resourceVersion applies when current, is refused in words when stale.

    This is the patch kopf and Helm send to add a finalizer. A ConfigMap is used because no controller
    writes it between the read and the patch.
    """
    namespace = ns(kubectl)
    apply(kubectl, config_map("guarded", key="v"))
    version = hub_admin.json("get", "configmap", "guarded", "-n", namespace)["metadata"]["resourceVersion"]
    guarded = json.dumps(
        [
            {"op": "test", "path": "/metadata/resourceVersion", "value": version},
            {"op": "add", "path": "/metadata/finalizers", "value": ["compat.example.com/guard"]},
        ]
    )
    kubectl("patch", "configmap", "guarded", "-n", namespace, "--type", "json", "-p", guarded)
    live = hub_admin.json("get", "configmap", "guarded", "-n", namespace)
    assert live["metadata"]["finalizers"] == ["compat.example.com/guard"]
    stale = kubectl.run(
        "patch", "configmap", "guarded", "-n", namespace, "--type", "json", "-p", guarded, check=False
    )
    assert stale.returncode != 0, stale.stdout
    assert "resourceVersion" in stale.stderr and "{'" not in stale.stderr, stale.stderr
    unguard = '[{"op":"remove","path":"/metadata/finalizers"}]'
    kubectl("patch", "configmap", "guarded", "-n", namespace, "--type", "json", "-p", unguard)


def test_watch_prints_changes_as_they_happen(kubectl: Kubectl, hub_admin: Kubectl) -> None:
    """kubectl get -w prints an object created and then changed while it watches."""
    namespace = ns(kubectl)
    columns = "custom-columns=NAME:.metadata.name,V:.data.v"
    lines: queue.Queue[str] = queue.Queue()
    with kubectl.popen("get", "configmaps", "-n", namespace, "-w", "-o", columns) as watcher:
        reader = threading.Thread(
            target=lambda: [lines.put(line) for line in watcher.stdout or ()], daemon=True
        )
        reader.start()
        try:
            hub_admin.apply_yaml(config_map("watched", v="one"), "-n", namespace)
            wait_for_line(lines, "watched", "one")
            patch = '{"data":{"v":"two"}}'
            hub_admin("patch", "configmap", "watched", "-n", namespace, "--type", "merge", "-p", patch)
            wait_for_line(lines, "watched", "two")
        finally:
            watcher.kill()
            watcher.wait(timeout=10)
            reader.join(timeout=10)


def wait_for_line(lines: queue.Queue[str], *words: str, timeout: float = 30.0) -> str:
    """The next line from the watch that has every one of `words`; fails after `timeout` seconds."""
    while True:
        try:
            line = lines.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(f"kubectl -w printed no line with {words} within {timeout}s") from None
        if all(word in line.split() for word in words):
            return line
