"""The system kubectl (1.32) against a real `flotilla apiserver` process, command by command."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
import yaml

from tests.support.kubectl import Kubectl

pytestmark = pytest.mark.kubectl


def deployment(name: str, image: str = "nginx:1.25", replicas: int = 2) -> dict[str, object]:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "labels": {"tier": "web"}},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app": name}},
            "template": {
                "metadata": {"labels": {"app": name}},
                "spec": {"containers": [{"name": "nginx", "image": image, "ports": [{"containerPort": 80}]}]},
            },
        },
    }


def test_api_resources_lists_builtin_kinds_with_short_names(kubectl: Kubectl) -> None:
    """api-resources shows the built-in resources with their short names, groups and scopes."""
    out = kubectl("api-resources")
    lines = {line.split()[0]: line for line in out.splitlines()[1:]}
    assert "deploy" in lines["deployments"] and "apps/v1" in lines["deployments"]
    assert "ns" in lines["namespaces"] and "false" in lines["namespaces"]
    for resource in (
        "configmaps",
        "secrets",
        "services",
        "pods",
        "nodes",
        "events",
        "leases",
        "ingresses",
        "endpointslices",
        "horizontalpodautoscalers",
        "poddisruptionbudgets",
        "cronjobs",
        "customresourcedefinitions",
        "certificatesigningrequests",
        "clusterroles",
        "networkpolicies",
    ):
        assert resource in lines, resource


def test_api_versions_lists_every_group_version(kubectl: Kubectl) -> None:
    """api-versions includes the core group and every built-in group version."""
    versions = kubectl("api-versions").split()
    for expected in (
        "v1",
        "apps/v1",
        "batch/v1",
        "autoscaling/v2",
        "policy/v1",
        "networking.k8s.io/v1",
        "discovery.k8s.io/v1",
        "coordination.k8s.io/v1",
        "rbac.authorization.k8s.io/v1",
        "apiextensions.k8s.io/v1",
        "certificates.k8s.io/v1",
        "events.k8s.io/v1",
    ):
        assert expected in versions


def test_create_from_file_then_get_in_every_output_format(kubectl: Kubectl, namespace: str) -> None:
    """create -f stores the object; get prints it as a table, wide table, YAML, JSON and name."""
    kubectl("create", "-n", namespace, "-f", "-", input=yaml.safe_dump(deployment("web")))
    table = kubectl("get", "deploy", "web", "-n", namespace)
    assert table.split("\n")[0].split() == ["NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE"]
    assert table.split("\n")[1].split()[:2] == ["web", "0/2"]
    wide = kubectl("get", "deploy", "web", "-n", namespace, "-o", "wide")
    assert wide.split("\n")[0].split()[-3:] == ["CONTAINERS", "IMAGES", "SELECTOR"]
    assert "nginx:1.25" in wide and "app=web" in wide
    as_yaml = yaml.safe_load(kubectl("get", "deploy", "web", "-n", namespace, "-o", "yaml"))
    assert as_yaml["spec"]["replicas"] == 2
    assert as_yaml["metadata"]["generation"] == 1
    assert as_yaml["metadata"]["uid"] and as_yaml["metadata"]["resourceVersion"]
    as_json = kubectl.json("get", "deploy", "web", "-n", namespace)
    assert as_json["spec"]["strategy"]["type"] == "RollingUpdate"
    assert kubectl("get", "deploy", "-n", namespace, "-o", "name").strip() == "deployment.apps/web"


def test_apply_twice_uses_strategic_merge_and_keeps_fields_set_by_others(
    kubectl: Kubectl, namespace: str
) -> None:
    """A second apply patches changed fields (SMP) and leaves fields nobody declared alone."""
    kubectl.apply_yaml(deployment("app"), "-n", namespace)
    kubectl("annotate", "deploy", "app", "-n", namespace, "owner=ops")
    changed = deployment("app", image="nginx:1.26", replicas=3)
    out = kubectl.apply_yaml(changed, "-n", namespace)
    assert "configured" in out
    live = kubectl.json("get", "deploy", "app", "-n", namespace)
    assert live["spec"]["replicas"] == 3
    assert live["spec"]["template"]["spec"]["containers"][0]["image"] == "nginx:1.26"
    assert live["metadata"]["annotations"]["owner"] == "ops"
    assert live["metadata"]["generation"] == 2
    assert "unchanged" in kubectl.apply_yaml(changed, "-n", namespace)


def test_get_filters_by_label_and_field_selectors_and_sorts(kubectl: Kubectl, namespace: str) -> None:
    """-l, --field-selector, --sort-by and --chunk-size select, order and page like a real cluster."""
    for name, env in (("c-one", "prod"), ("a-two", "dev"), ("b-three", "prod")):
        kubectl("create", "configmap", name, "-n", namespace, "--from-literal=k=v")
        kubectl("label", "configmap", name, "-n", namespace, f"env={env}")
    prod = kubectl("get", "cm", "-n", namespace, "-l", "env=prod", "-o", "name").split()
    assert prod == ["configmap/b-three", "configmap/c-one"]
    not_prod = kubectl("get", "cm", "-n", namespace, "-l", "env!=prod", "-o", "name").split()
    assert "configmap/a-two" in not_prod and "configmap/c-one" not in not_prod
    by_field = kubectl("get", "cm", "-n", namespace, "--field-selector", "metadata.name=a-two", "-o", "name")
    assert by_field.split() == ["configmap/a-two"]
    sorted_names = kubectl(
        "get",
        "cm",
        "-n",
        namespace,
        "-l",
        "env",
        "--sort-by=.metadata.labels.env",
        "-o",
        "custom-columns=N:.metadata.name",
        "--no-headers",
    ).split()
    assert sorted_names[0] == "a-two"
    chunked = kubectl("get", "cm", "-n", namespace, "-l", "env", "--chunk-size=2", "-o", "name").split()
    assert len(chunked) == 3
    unsupported = kubectl.run("get", "cm", "-n", namespace, "--field-selector", "data.k=v", check=False)
    assert unsupported.returncode != 0 and "not a known field selector" in unsupported.stderr


def test_get_all_namespaces_shows_namespace_column(kubectl: Kubectl, namespace: str) -> None:
    """-A lists across namespaces with a NAMESPACE column."""
    kubectl("create", "configmap", "everywhere", "-n", namespace)
    out = kubectl("get", "cm", "-A")
    assert out.split("\n")[0].split()[:2] == ["NAMESPACE", "NAME"]
    assert any(line.split()[:2] == [namespace, "everywhere"] for line in out.splitlines())


def test_get_watch_prints_changes_as_they_happen(kubectl: Kubectl, namespace: str) -> None:
    """get -w streams a row for the initial state and one per later change."""
    kubectl("create", "configmap", "watched", "-n", namespace)
    with kubectl.popen("get", "cm", "-n", namespace, "-w", "--request-timeout=20s") as proc:
        assert proc.stdout is not None
        first_header = proc.stdout.readline()
        assert first_header.split()[:2] == ["NAME", "DATA"]
        assert proc.stdout.readline().split()[0] == "watched"
        kubectl("label", "cm", "watched", "-n", namespace, "seen=yes")
        kubectl("create", "configmap", "later", "-n", namespace)
        seen = [proc.stdout.readline().split()[0] for _ in range(2)]
        proc.terminate()
    assert seen == ["watched", "later"]


def test_describe_shows_the_deployment(kubectl: Kubectl, namespace: str) -> None:
    """describe prints the kind-specific description of a deployment."""
    kubectl.apply_yaml(deployment("described"), "-n", namespace)
    out = kubectl("describe", "deploy", "described", "-n", namespace)
    fields = {
        line.split(":", 1)[0].strip(): line.split(":", 1)[1].strip()
        for line in out.splitlines()
        if ":" in line
    }
    assert fields["Name"] == "described"
    assert fields["Selector"] == "app=described"
    assert fields["StrategyType"] == "RollingUpdate"
    assert fields["RollingUpdateStrategy"] == "25% max unavailable, 25% max surge"
    assert fields["Image"] == "nginx:1.25"


@pytest.mark.parametrize(
    ("args", "kind", "name"),
    [
        (["configmap", "gen-cm", "--from-literal=a=b"], "configmap", "gen-cm"),
        (["secret", "generic", "gen-secret", "--from-literal=password=s3cret"], "secret", "gen-secret"),
        (
            ["deployment", "gen-deploy", "--image=nginx", "--replicas=2", "--port=80"],
            "deployment",
            "gen-deploy",
        ),
        (["job", "gen-job", "--image=busybox", "--", "echo", "hi"], "job", "gen-job"),
        (["serviceaccount", "gen-sa"], "serviceaccount", "gen-sa"),
        (["role", "gen-role", "--verb=get,list", "--resource=pods"], "role", "gen-role"),
        (["rolebinding", "gen-rb", "--role=gen-role", "--user=alice"], "rolebinding", "gen-rb"),
    ],
)
def test_create_generators_send_protobuf_and_succeed(
    kubectl: Kubectl, namespace: str, args: list[str], kind: str, name: str
) -> None:
    """kubectl's typed generators (protobuf request bodies) create the objects they describe."""
    out = kubectl("create", "-n", namespace, *args)
    assert "created" in out
    obj = kubectl.json("get", kind, name, "-n", namespace)
    assert obj["metadata"]["name"] == name
    if kind == "secret":
        assert obj["data"]["password"] == "czNjcmV0"
    if kind == "deployment":
        assert obj["spec"]["replicas"] == 2
        assert obj["spec"]["template"]["spec"]["containers"][0]["ports"][0]["containerPort"] == 80


def test_cluster_scoped_generators(kubectl: Kubectl) -> None:
    """Namespace, ClusterRole and ClusterRoleBinding generators work too."""
    suffix = str(int(time.time() * 1000))[-6:]
    kubectl("create", "namespace", f"gen-ns-{suffix}")
    kubectl("create", "clusterrole", f"gen-cr-{suffix}", "--verb=get", "--resource=nodes")
    kubectl(
        "create", "clusterrolebinding", f"gen-crb-{suffix}", f"--clusterrole=gen-cr-{suffix}", "--group=ops"
    )
    binding = kubectl.json("get", "clusterrolebinding", f"gen-crb-{suffix}")
    assert binding["roleRef"]["name"] == f"gen-cr-{suffix}"
    assert kubectl.json("get", "ns", f"gen-ns-{suffix}")["status"]["phase"] == "Active"


def test_edit_with_an_editor_script_patches_the_object(
    kubectl: Kubectl, namespace: str, tmp_path: Path
) -> None:
    """edit runs $EDITOR on the object and sends the difference as a patch."""
    kubectl("create", "configmap", "edited", "-n", namespace, "--from-literal=color=red")
    editor = tmp_path / "editor.sh"
    editor.write_text("#!/bin/sh\nsed -i 's/color: red/color: blue/' \"$1\"\n")
    editor.chmod(0o755)
    kubectl("edit", "configmap", "edited", "-n", namespace, env={"EDITOR": str(editor)})
    assert kubectl.json("get", "cm", "edited", "-n", namespace)["data"]["color"] == "blue"


def test_patch_with_each_patch_type(kubectl: Kubectl, namespace: str) -> None:
    """patch --type json, merge and strategic all change the object."""
    kubectl.apply_yaml(deployment("patched"), "-n", namespace)
    kubectl(
        "patch",
        "deploy",
        "patched",
        "-n",
        namespace,
        "--type",
        "json",
        "-p",
        '[{"op":"replace","path":"/spec/replicas","value":4}]',
    )
    kubectl(
        "patch",
        "deploy",
        "patched",
        "-n",
        namespace,
        "--type",
        "merge",
        "-p",
        '{"metadata":{"labels":{"patched":"merge"}}}',
    )
    kubectl(
        "patch",
        "deploy",
        "patched",
        "-n",
        namespace,
        "--type",
        "strategic",
        "-p",
        '{"spec":{"template":{"spec":{"containers":[{"name":"sidecar","image":"busybox"}]}}}}',
    )
    live = kubectl.json("get", "deploy", "patched", "-n", namespace)
    assert live["spec"]["replicas"] == 4
    assert live["metadata"]["labels"]["patched"] == "merge"
    names = sorted(c["name"] for c in live["spec"]["template"]["spec"]["containers"])
    assert names == ["nginx", "sidecar"]


def test_label_annotate_scale_replace_delete(kubectl: Kubectl, namespace: str) -> None:
    """label, annotate, scale, replace and delete do what they say."""
    kubectl.apply_yaml(deployment("cycle"), "-n", namespace)
    kubectl("label", "deploy", "cycle", "-n", namespace, "stage=canary")
    kubectl("annotate", "deploy", "cycle", "-n", namespace, "note=first")
    kubectl("scale", "deploy", "cycle", "-n", namespace, "--replicas=5")
    live = kubectl.json("get", "deploy", "cycle", "-n", namespace)
    assert live["metadata"]["labels"]["stage"] == "canary"
    assert live["metadata"]["annotations"]["note"] == "first"
    assert live["spec"]["replicas"] == 5
    live["spec"]["replicas"] = 1
    kubectl("replace", "-f", "-", input=json.dumps(live))
    assert kubectl.json("get", "deploy", "cycle", "-n", namespace)["spec"]["replicas"] == 1
    kubectl("label", "deploy", "cycle", "-n", namespace, "stage-")
    assert "stage" not in kubectl.json("get", "deploy", "cycle", "-n", namespace)["metadata"]["labels"]
    assert "deleted" in kubectl("delete", "deploy", "cycle", "-n", namespace)
    missing = kubectl.run("get", "deploy", "cycle", "-n", namespace, check=False)
    assert missing.returncode != 0 and 'deployments.apps "cycle" not found' in missing.stderr


def test_replace_with_a_stale_resource_version_conflicts(kubectl: Kubectl, namespace: str) -> None:
    """replace of an object someone changed meanwhile fails with 409 Conflict."""
    kubectl("create", "configmap", "stale", "-n", namespace, "--from-literal=a=1")
    old = kubectl.json("get", "cm", "stale", "-n", namespace)
    kubectl("label", "cm", "stale", "-n", namespace, "changed=yes")
    result = kubectl.run("replace", "-f", "-", input=json.dumps(old), check=False)
    assert result.returncode != 0
    assert "the object has been modified; please apply your changes to the latest version" in result.stderr


def test_explain_reads_the_openapi_schema(kubectl: Kubectl) -> None:
    """explain deployment.spec.replicas prints the field's type and description."""
    out = kubectl("explain", "deployment.spec.replicas")
    assert "FIELD: replicas <integer>" in out
    assert "Number of desired pods" in out


def test_wait_for_jsonpath_and_delete(kubectl: Kubectl, namespace: str) -> None:
    """wait --for=jsonpath returns once the value matches; wait --for=delete once the object is gone."""
    kubectl("create", "configmap", "waited", "-n", namespace, "--from-literal=state=ready")
    out = kubectl("wait", "cm/waited", "-n", namespace, "--for=jsonpath={.data.state}=ready", "--timeout=20s")
    assert "condition met" in out
    kubectl("delete", "cm", "waited", "-n", namespace, "--wait=false")
    kubectl("wait", "cm/waited", "-n", namespace, "--for=delete", "--timeout=20s")


def test_diff_shows_the_pending_change(kubectl: Kubectl, namespace: str) -> None:
    """diff compares the manifest with the live object through a server-side dry run."""
    kubectl.apply_yaml(deployment("diffed"), "-n", namespace)
    changed = deployment("diffed", replicas=6)
    changed["metadata"]["namespace"] = namespace  # type: ignore[index]
    manifest = yaml.safe_dump(changed)
    result = kubectl.run("diff", "-f", "-", input=manifest, check=False)
    assert result.returncode == 1, result.stderr
    assert "-  replicas: 2" in result.stdout and "+  replicas: 6" in result.stdout
    assert kubectl.json("get", "deploy", "diffed", "-n", namespace)["spec"]["replicas"] == 2


def test_dry_run_server_validates_without_storing(kubectl: Kubectl, namespace: str) -> None:
    """--dry-run=server returns the would-be object and stores nothing."""
    out = kubectl("create", "configmap", "dry", "-n", namespace, "--dry-run=server", "-o", "json")
    assert json.loads(out)["metadata"]["name"] == "dry"
    assert kubectl.run("get", "cm", "dry", "-n", namespace, check=False).returncode != 0


def test_invalid_object_is_refused_with_field_causes(kubectl: Kubectl, namespace: str) -> None:
    """A deployment with negative replicas is refused as Invalid naming the field."""
    bad = deployment("bad")
    bad["spec"]["replicas"] = -1  # type: ignore[index]
    result = kubectl.run("apply", "-n", namespace, "-f", "-", input=yaml.safe_dump(bad), check=False)
    assert result.returncode != 0
    assert 'The Deployment "bad" is invalid' in result.stderr
    assert "spec.replicas: Invalid value: -1" in result.stderr


def test_unknown_fields_are_rejected_under_strict_validation(kubectl: Kubectl, namespace: str) -> None:
    """kubectl's default strict validation names the unknown field; --validate=false drops it."""
    manifest = deployment("strict")
    manifest["spec"]["bogus"] = 1  # type: ignore[index]
    result = kubectl.run("apply", "-n", namespace, "-f", "-", input=yaml.safe_dump(manifest), check=False)
    assert result.returncode != 0 and 'unknown field "spec.bogus"' in result.stderr
    kubectl("apply", "-n", namespace, "--validate=false", "-f", "-", input=yaml.safe_dump(manifest))
    assert "bogus" not in kubectl.json("get", "deploy", "strict", "-n", namespace)["spec"]
