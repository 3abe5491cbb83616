"""kubectl 1.27 and 1.33 (shipped beside the system kubectl) against the server: a smoke subset."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from tests.support.kubectl import Kubectl, kubectl_version_binary
from tests.support.processes import ServerProcess

pytestmark = pytest.mark.kubectl


@pytest.mark.parametrize("minor", [27, 33])
def test_other_kubectl_versions_work(server: ServerProcess, tmp_path: Path, minor: int) -> None:
    """Discovery, create, apply twice, get, scale, explain and delete work with kubectl 1.<minor>.

    kubectl 1.27 validates manifests and explains fields only from /openapi/v2, which this server
    deliberately does not serve (it answers 404; kubectl 1.28+ use /openapi/v3): with 1.27 the smoke
    run applies with --validate=false and skips explain.
    """
    binary = kubectl_version_binary(minor)
    if binary is None:
        pytest.skip(f"kubectl 1.{minor} is not installed beside the system kubectl")
    kubectl = Kubectl(server.kubeconfig, tmp_path / "cache", binary=binary)
    namespace = f"v{minor}"
    kubectl("create", "namespace", namespace)
    assert "deployments" in kubectl("api-resources")
    manifest = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "smoke"},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": {"app": "smoke"}},
            "template": {
                "metadata": {"labels": {"app": "smoke"}},
                "spec": {"containers": [{"name": "c", "image": "nginx:1.25"}]},
            },
        },
    }
    validate = ["--validate=false"] if minor < 28 else []
    kubectl("apply", "-n", namespace, *validate, "-f", "-", input=yaml.safe_dump(manifest))
    manifest["spec"]["template"]["spec"]["containers"][0]["image"] = "nginx:1.26"  # type: ignore[index]
    assert "configured" in kubectl(
        "apply", "-n", namespace, *validate, "-f", "-", input=yaml.safe_dump(manifest)
    )
    kubectl("create", "configmap", "smoke", "-n", namespace, "--from-literal=a=b")
    kubectl("scale", "deploy", "smoke", "-n", namespace, "--replicas=3")
    live = kubectl.json("get", "deploy", "smoke", "-n", namespace)
    assert live["spec"]["replicas"] == 3
    assert live["spec"]["template"]["spec"]["containers"][0]["image"] == "nginx:1.26"
    assert kubectl("get", "deploy", "-n", namespace).split("\n")[0].split()[:2] == ["NAME", "READY"]
    if minor >= 28:
        assert "FIELD: replicas <integer>" in kubectl("explain", "deployment.spec.replicas")
    kubectl("delete", "configmap", "smoke", "-n", namespace)
