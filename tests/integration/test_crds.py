"""CustomResourceDefinitions with kubectl: live endpoints, schema rules, subresources, columns, deletion."""

from __future__ import annotations

import time
from typing import Any

import pytest
import yaml

from tests.integration.federation import custom_resource_definition
from tests.support.kubectl import Kubectl

pytestmark = pytest.mark.kubectl


WIDGET_SCHEMA = {
    "type": "object",
    "properties": {
        "spec": {
            "type": "object",
            "properties": {
                "color": {"type": "string", "enum": ["red", "blue"]},
                "size": {"type": "integer", "minimum": 1, "default": 3},
                "replicas": {"type": "integer"},
            },
        },
        "status": {"type": "object", "properties": {"replicas": {"type": "integer"}}},
    },
}


def widget_crd(group: str) -> dict[str, Any]:
    """Widgets with a short name, a category, status and scale subresources and two printer columns."""
    return custom_resource_definition(
        group,
        "Widget",
        WIDGET_SCHEMA,
        names={"shortNames": ["wdg"], "categories": ["all"]},
        subresources={
            "status": {},
            "scale": {"specReplicasPath": ".spec.replicas", "statusReplicasPath": ".status.replicas"},
        },
        additionalPrinterColumns=[
            {"name": "Color", "type": "string", "jsonPath": ".spec.color"},
            {"name": "Size", "type": "integer", "jsonPath": ".spec.size", "priority": 1},
        ],
    )


def widget(group: str, name: str, **spec: Any) -> dict[str, Any]:
    return {"apiVersion": f"{group}/v1", "kind": "Widget", "metadata": {"name": name}, "spec": spec}


def refused_apply(kubectl: Kubectl, namespace: str, manifest: dict[str, Any]) -> str:
    """The stderr of a `kubectl apply` of `manifest` that fails (the test fails if it succeeds)."""
    result = kubectl.run("apply", "-n", namespace, "-f", "-", check=False, input=yaml.safe_dump(manifest))
    assert result.returncode != 0, result.stdout
    return result.stderr


@pytest.fixture
def group(kubectl: Kubectl) -> str:
    name = f"w{int(time.time() * 1000) % 10**8}.example.com"
    kubectl.apply_yaml(widget_crd(name))
    kubectl("wait", "--for=condition=established", f"crd/widgets.{name}", "--timeout=20s")
    return name


def test_new_crd_is_served_at_once_with_printer_columns(kubectl: Kubectl, group: str, namespace: str) -> None:
    """A new CRD's kind is usable immediately, by plural and short name, with its printer columns."""
    kubectl.apply_yaml(widget(group, "w1", color="red"), "-n", namespace)
    table = kubectl("get", f"widgets.{group}", "-n", namespace)
    assert table.split("\n")[0].split() == ["NAME", "COLOR"]
    assert table.split("\n")[1].split() == ["w1", "red"]
    wide = kubectl("get", f"widgets.{group}", "-n", namespace, "-o", "wide")
    assert wide.split("\n")[1].split() == ["w1", "red", "3"]
    assert "w1" in kubectl("get", "wdg", "-n", namespace)
    assert f"widget.{group}/w1" in kubectl("get", "all", "-n", namespace)
    resources = kubectl("api-resources", "--api-group", group).splitlines()[1].split()
    assert resources == ["widgets", "wdg", f"{group}/v1", "true", "Widget"]


def test_defaults_pruning_and_validation(kubectl: Kubectl, group: str, namespace: str) -> None:
    """Schema defaults are applied, unknown fields pruned (or refused when strict), enums enforced."""
    kubectl.apply_yaml(widget(group, "d1", color="blue"), "-n", namespace)
    live = kubectl.json("get", f"widgets.{group}", "d1", "-n", namespace)
    assert live["spec"] == {"color": "blue", "size": 3}
    kubectl.apply_yaml(widget(group, "d2", color="red", extra="gone"), "-n", namespace, "--validate=false")
    assert "extra" not in kubectl.json("get", f"widgets.{group}", "d2", "-n", namespace)["spec"]
    strict = refused_apply(kubectl, namespace, widget(group, "d3", color="red", extra=1))
    assert 'unknown field "spec.extra"' in strict
    bad = refused_apply(kubectl, namespace, widget(group, "d4", color="green", size=0))
    assert 'spec.color: Unsupported value: "green"' in bad
    assert "spec.size: Invalid value: 0" in bad


def test_apply_twice_uses_merge_patch(kubectl: Kubectl, group: str, namespace: str) -> None:
    """Re-applying a changed custom resource updates it (kubectl sends a JSON merge patch)."""
    kubectl.apply_yaml(widget(group, "m1", color="red", replicas=1), "-n", namespace)
    assert "configured" in kubectl.apply_yaml(widget(group, "m1", color="blue"), "-n", namespace)
    live = kubectl.json("get", f"widgets.{group}", "m1", "-n", namespace)
    assert live["spec"]["color"] == "blue"
    assert "replicas" not in live["spec"]
    assert live["metadata"]["generation"] == 2


def test_status_and_scale_subresources(kubectl: Kubectl, group: str, namespace: str) -> None:
    """The main resource ignores status; /status changes only status; /scale moves spec.replicas."""
    manifest = widget(group, "s1", color="red", replicas=1)
    manifest["status"] = {"replicas": 9}
    kubectl.apply_yaml(manifest, "-n", namespace)
    live = kubectl.json("get", f"widgets.{group}", "s1", "-n", namespace)
    assert "status" not in live
    kubectl(
        "patch",
        f"widgets.{group}",
        "s1",
        "-n",
        namespace,
        "--subresource=status",
        "--type=merge",
        "-p",
        '{"status":{"replicas":2},"spec":{"color":"blue"}}',
    )
    live = kubectl.json("get", f"widgets.{group}", "s1", "-n", namespace)
    assert live["status"] == {"replicas": 2} and live["spec"]["color"] == "red"
    assert live["metadata"]["generation"] == 1
    kubectl("scale", f"widgets.{group}", "s1", "-n", namespace, "--replicas=4")
    assert kubectl.json("get", f"widgets.{group}", "s1", "-n", namespace)["spec"]["replicas"] == 4


def test_explain_a_custom_resource(kubectl: Kubectl, group: str) -> None:
    """explain reads the CRD's schema from /openapi/v3."""
    out = kubectl("explain", "widgets.spec.size", f"--api-version={group}/v1")
    assert "FIELD: size <integer>" in out


def test_deleting_a_crd_removes_its_objects_and_endpoints(
    kubectl: Kubectl, group: str, namespace: str
) -> None:
    """Deleting the CRD deletes every object of it, then its endpoints disappear."""
    kubectl.apply_yaml(widget(group, "gone1", color="red"), "-n", namespace)
    kubectl.apply_yaml(widget(group, "gone2", color="red"), "-n", "default")
    kubectl("delete", "crd", f"widgets.{group}", "--timeout=30s")
    missing = kubectl.run("get", f"widgets.{group}", "-A", check=False)
    assert missing.returncode != 0
    assert group not in kubectl("api-versions")


def test_non_structural_schema_is_refused(kubectl: Kubectl) -> None:
    """A CRD whose schema leaves a field's type out is 422 Invalid."""
    crd = widget_crd("bad.example.com")
    crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]["loose"] = {}
    result = kubectl.run("apply", "-f", "-", input=yaml.safe_dump(crd), check=False)
    assert result.returncode != 0
    assert "properties[spec].properties[loose].type: Required value" in result.stderr
