"""Object lifecycle through kubectl: generated names, finalizers, namespaces, collections, warnings."""

from __future__ import annotations

import json
import time

import pytest
import yaml

from tests.support.kubectl import Kubectl

pytestmark = pytest.mark.kubectl


def test_generate_name_gets_a_random_suffix(kubectl: Kubectl, namespace: str) -> None:
    """create -f with generateName stores an object named prefix + five random characters."""
    manifest = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"generateName": "gen-"}}
    names = {
        kubectl("create", "-n", namespace, "-f", "-", "-o", "name", input=json.dumps(manifest)).strip()
        for _ in range(3)
    }
    assert len(names) == 3
    for name in names:
        short = name.removeprefix("configmap/")
        assert short.startswith("gen-") and len(short) == len("gen-") + 5


def test_finalizers_hold_an_object_until_removed(kubectl: Kubectl, namespace: str) -> None:
    """Deleting an object with a finalizer sets deletionTimestamp; removing the finalizer deletes it."""
    manifest = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "held", "finalizers": ["example.com/hold"]},
    }
    kubectl("create", "-n", namespace, "-f", "-", input=yaml.safe_dump(manifest))
    kubectl("delete", "cm", "held", "-n", namespace, "--wait=false")
    live = kubectl.json("get", "cm", "held", "-n", namespace)
    assert live["metadata"]["deletionTimestamp"]
    refused = kubectl.run(
        "patch",
        "cm",
        "held",
        "-n",
        namespace,
        "--type=json",
        "-p",
        '[{"op":"add","path":"/metadata/finalizers/-","value":"example.com/more"}]',
        check=False,
    )
    assert refused.returncode != 0 and "no new finalizers can be added" in refused.stderr
    kubectl("patch", "cm", "held", "-n", namespace, "--type=merge", "-p", '{"metadata":{"finalizers":null}}')
    assert kubectl.run("get", "cm", "held", "-n", namespace, check=False).returncode != 0


def test_deleting_a_namespace_deletes_its_content(kubectl: Kubectl) -> None:
    """A deleted namespace turns Terminating, refuses new content, empties, then disappears."""
    name = f"doomed-{int(time.time() * 1000) % 10**7}"
    kubectl("create", "namespace", name)
    kubectl("create", "configmap", "inside", "-n", name)
    kubectl("create", "deployment", "app", "-n", name, "--image=nginx")
    kubectl("delete", "namespace", name, "--timeout=30s")
    assert kubectl.run("get", "namespace", name, check=False).returncode != 0
    assert kubectl.run("get", "cm", "inside", "-n", name, check=False).returncode != 0


def test_default_namespaces_exist_and_cannot_be_deleted(kubectl: Kubectl) -> None:
    """default, kube-system, kube-public and kube-node-lease exist; deleting default is forbidden."""
    names = kubectl("get", "ns", "-o", "name").split()
    for name in ("default", "kube-system", "kube-public", "kube-node-lease"):
        assert f"namespace/{name}" in names
    refused = kubectl.run("delete", "namespace", "default", check=False)
    assert refused.returncode != 0 and "forbidden" in refused.stderr


def test_delete_collection_by_label(api_client: object, kubectl: Kubectl, namespace: str) -> None:
    """DELETE on a collection with a label selector deletes exactly the matching objects."""
    from kubernetes import client

    core = client.CoreV1Api(api_client)  # type: ignore[arg-type]
    for name, team in (("a", "red"), ("b", "red"), ("c", "blue")):
        core.create_namespaced_config_map(
            namespace, client.V1ConfigMap(metadata=client.V1ObjectMeta(name=name, labels={"team": team}))
        )
    core.delete_collection_namespaced_config_map(namespace, label_selector="team=red")
    assert [cm.metadata.name for cm in core.list_namespaced_config_map(namespace).items] == ["c"]


def test_warn_validation_drops_unknown_fields_with_a_warning(kubectl: Kubectl, namespace: str) -> None:
    """--validate=warn stores the object without the unknown field and prints the server's warning."""
    manifest = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "warned"}, "bogus": True}
    result = kubectl.run("create", "-n", namespace, "--validate=warn", "-f", "-", input=json.dumps(manifest))
    assert 'Warning: unknown field "bogus"' in result.stderr
    assert "bogus" not in kubectl.json("get", "cm", "warned", "-n", namespace)


def test_generation_tracks_spec_changes_only(kubectl: Kubectl, namespace: str) -> None:
    """Label changes keep metadata.generation; spec changes bump it."""
    kubectl("create", "deployment", "gen", "-n", namespace, "--image=nginx")
    assert kubectl.json("get", "deploy", "gen", "-n", namespace)["metadata"]["generation"] == 1
    kubectl("label", "deploy", "gen", "-n", namespace, "a=b")
    assert kubectl.json("get", "deploy", "gen", "-n", namespace)["metadata"]["generation"] == 1
    kubectl("set", "image", "deploy/gen", "-n", namespace, "nginx=nginx:1.27")
    assert kubectl.json("get", "deploy", "gen", "-n", namespace)["metadata"]["generation"] == 2
