"""kubectl 1.27, 1.28 and 1.33 (shipped beside the system kubectl) against one server, validation on.

kubectl 1.27 and 1.28 download `/openapi/v2` (gnostic protobuf) before every validating command —
apply, edit, diff — and `explain --output plaintext-openapiv2` reads nothing else; 1.33 reads
`/openapi/v3`. Each version works in a namespace of its own on the module's server, with a fresh
cache, so every OpenAPI document is fetched anew.
"""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

import pytest

from tests.support.kubectl import Kubectl, kubectl_version_binary
from tests.support.processes import ServerProcess

pytestmark = pytest.mark.kubectl

MINORS = (27, 28, 33)
V2_READERS = (27, 28)
"""The versions that still read /openapi/v2."""


@pytest.fixture(params=MINORS, ids=[f"kubectl-1.{minor}" for minor in MINORS])
def versioned(request: pytest.FixtureRequest, server: ServerProcess, tmp_path: Path) -> Kubectl:
    """kubectl 1.<minor> against the module's server, with a cache of its own."""
    minor = int(request.param)
    binary = kubectl_version_binary(minor)
    if binary is None:
        pytest.skip(f"kubectl 1.{minor} is not installed beside the system kubectl")
    return Kubectl(server.kubeconfig, tmp_path / "cache", binary=binary)


@pytest.fixture
def namespace(versioned: Kubectl) -> str:
    """A fresh namespace, made by the kubectl under test (a protobuf create from 1.27/1.28)."""
    name = f"kv-{uuid.uuid4().hex[:8]}"
    versioned("create", "namespace", name)
    return name


def minor_of(kubectl: Kubectl) -> int:
    return int(Path(kubectl.binary).name.rsplit(".", 1)[-1])


def deployment(name: str, image: str = "nginx:1.25") -> dict[str, Any]:
    labels = {"app": name}
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": labels},
            "template": {
                "metadata": {"labels": labels},
                "spec": {"containers": [{"name": "c", "image": image}]},
            },
        },
    }


def apply(kubectl: Kubectl, namespace: str, manifest: dict[str, Any]) -> Any:
    return kubectl.run("apply", "-n", namespace, "-f", "-", input=json.dumps(manifest), check=False)


def test_apply_validates_strictly_and_updates(versioned: Kubectl, namespace: str) -> None:
    """apply (validation on) creates and configures a Deployment; an unknown field is refused by name."""
    manifest = deployment("applied")
    created = apply(versioned, namespace, manifest)
    assert created.returncode == 0 and "created" in created.stdout, created.stderr
    manifest["spec"]["template"]["spec"]["containers"][0]["image"] = "nginx:1.26"
    assert "configured" in apply(versioned, namespace, manifest).stdout
    live = versioned.json("get", "deploy", "applied", "-n", namespace)
    assert live["spec"]["template"]["spec"]["containers"][0]["image"] == "nginx:1.26"
    manifest["spec"]["replicaz"] = 3
    refused = apply(versioned, namespace, manifest)
    assert refused.returncode != 0
    assert 'unknown field "spec.replicaz"' in refused.stderr, refused.stderr
    assert "openapi" not in refused.stderr.lower(), refused.stderr


def test_generators_scale_and_tables_work(versioned: Kubectl, namespace: str) -> None:
    """Discovery, a protobuf create, scale and a server-side table work as they always did."""
    assert "deployments" in versioned("api-resources")
    versioned("create", "configmap", "made", "-n", namespace, "--from-literal=a=b")
    apply(versioned, namespace, deployment("scaled"))
    versioned("scale", "deploy", "scaled", "-n", namespace, "--replicas=3")
    assert versioned.json("get", "deploy", "scaled", "-n", namespace)["spec"]["replicas"] == 3
    assert versioned("get", "deploy", "-n", namespace).split("\n")[0].split()[:2] == ["NAME", "READY"]


def test_edit_saves_the_editors_change(versioned: Kubectl, namespace: str, tmp_path: Path) -> None:
    """edit (validation on) opens the live Deployment in $EDITOR and saves what the editor changed."""
    apply(versioned, namespace, deployment("edited"))
    editor = tmp_path / "editor.sh"
    editor.write_text("#!/bin/sh\nsed -i 's/image: nginx:1.25/image: nginx:1.27/' \"$1\"\n")
    editor.chmod(0o755)
    result = versioned.run("edit", "deploy", "edited", "-n", namespace, env={"EDITOR": str(editor)})
    assert "edited" in result.stdout, result.stdout + result.stderr
    live = versioned.json("get", "deploy", "edited", "-n", namespace)
    assert live["spec"]["template"]["spec"]["containers"][0]["image"] == "nginx:1.27"


def test_diff_shows_the_change_and_nothing_else(versioned: Kubectl, namespace: str) -> None:
    """Client-side diff exits 0 for the live manifest, 1 with the changed line for a changed one."""
    manifest = deployment("diffed")
    apply(versioned, namespace, manifest)
    same = versioned.run("diff", "-n", namespace, "-f", "-", input=json.dumps(manifest), check=False)
    assert same.returncode == 0, same.stdout + same.stderr
    changed_manifest = deployment("diffed", image="nginx:1.28")
    changed = versioned.run(
        "diff", "-n", namespace, "-f", "-", input=json.dumps(changed_manifest), check=False
    )
    assert changed.returncode == 1, changed.stdout + changed.stderr
    lines = changed.stdout.splitlines()
    assert any(line.startswith("+") and "image: nginx:1.28" in line for line in lines), changed.stdout
    assert any(line.startswith("-") and "image: nginx:1.25" in line for line in lines), changed.stdout


def test_explain_describes_built_in_and_karmada_fields(versioned: Kubectl) -> None:
    """explain prints a built-in field's type and a Karmada policy's fields (from v2 too, where read)."""
    outputs = [()]
    if minor_of(versioned) in V2_READERS:
        outputs.append(("--output", "plaintext-openapiv2"))
    for output in outputs:
        replicas = versioned("explain", "deployment.spec.replicas", *output)
        assert "replicas" in replicas and "<integer>" in replicas, replicas
        placement = versioned("explain", "propagationpolicy.spec.placement", *output)
        assert "clusterAffinity" in placement, placement


def test_an_unknown_kind_is_named_plainly(versioned: Kubectl, namespace: str) -> None:
    """A kind the server does not serve is reported as such, never as OpenAPI failing to download."""
    unknown = {"apiVersion": "example.com/v1", "kind": "Gadget", "metadata": {"name": "g"}}
    applied = apply(versioned, namespace, unknown)
    assert applied.returncode != 0
    assert 'no matches for kind "Gadget"' in applied.stderr, applied.stderr
    assert "openapi" not in applied.stderr.lower(), applied.stderr
    explained = versioned.run("explain", "gadgets", check=False)
    assert explained.returncode != 0
    assert 'the server doesn\'t have a resource type "gadgets"' in explained.stderr, explained.stderr
