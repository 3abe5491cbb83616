"""The detector, namespace and dependencies controllers against a real hub, driven with kubectl.

One hub and one controller manager running only `detector,namespace,dependencies`: no scheduler
and no members, so the bindings and Works these controllers write stay as they wrote them. A
Cluster object (never reachable) and its execution namespace stand in for a joined member.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.integration.federation import (
    custom_resource_definition,
    deployment,
    propagation_policy,
    resource_selector,
)
from tests.support.kubectl import Kubectl
from tests.support.processes import ControllerManagerProcess, ServerProcess
from tests.support.waiting import eventually

pytestmark = pytest.mark.kubectl

PP_ID = "propagationpolicy.karmada.io/permanent-id"
PP_NAME = "propagationpolicy.karmada.io/name"
CPP_ID = "clusterpropagationpolicy.karmada.io/permanent-id"
CPP_NAME = "clusterpropagationpolicy.karmada.io/name"
RB_ID = "resourcebinding.karmada.io/permanent-id"
PP_FINALIZER = "karmada.io/propagation-policy-controller"
MEMBER = "member-a"
ON_MEMBER = {"clusterAffinity": {"clusterNames": [MEMBER]}}
REQUESTS = {"cpu": "100m", "memory": "64Mi"}


@pytest.fixture(scope="module")
def manager(
    server: ServerProcess, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[ControllerManagerProcess]:
    process = ControllerManagerProcess(
        server.kubeconfig,
        tmp_path_factory.mktemp("controller-manager"),
        ["--controllers", "detector,namespace,dependencies"],
    ).start()
    yield process
    assert process.stop() == 0, process.log()


@pytest.fixture
def hub(manager: ControllerManagerProcess, kubectl: Kubectl) -> Kubectl:
    return kubectl


@pytest.fixture
def ns(hub: Kubectl, namespace: str) -> str:
    """A fresh namespace, with the controller manager running."""
    return namespace


def labels(obj: dict[str, Any] | None) -> dict[str, str]:
    return dict((obj or {}).get("metadata", {}).get("labels") or {})


def annotations_of(obj: dict[str, Any] | None) -> dict[str, str]:
    return dict((obj or {}).get("metadata", {}).get("annotations") or {})


def claimed_by(hub: Kubectl, ns: str, deploy: str, policy_name: str) -> bool:
    template = hub.json_or_none("get", "deploy", deploy, "-n", ns)
    binding = hub.json_or_none("get", "rb", f"{deploy}-deployment", "-n", ns)
    return (
        annotations_of(template).get(PP_NAME) == policy_name
        and annotations_of(binding).get(PP_NAME) == policy_name
    )


def test_a_deployment_and_its_policy_produce_the_resource_binding(hub: Kubectl, ns: str) -> None:
    """Claim on the template; RB `<name>-deployment` with claim, owner, replicas, requests, placement."""
    weighted = {
        "clusterAffinity": {"clusterNames": [MEMBER]},
        "replicaScheduling": {"replicaSchedulingType": "Divided", "replicaDivisionPreference": "Weighted"},
    }
    hub.apply_yaml(
        [
            deployment("web", 3, requests=REQUESTS),
            propagation_policy("web-pp", [resource_selector("Deployment", "web")], weighted),
        ],
        "-n",
        ns,
    )
    binding = eventually(
        lambda: hub.json_or_none("get", "rb", "web-deployment", "-n", ns), what="binding created"
    )
    template = hub.json_or_none("get", "deploy", "web", "-n", ns)
    pp = hub.json_or_none("get", "pp", "web-pp", "-n", ns)
    assert template is not None and pp is not None
    assert labels(template)[PP_ID] == labels(pp)[PP_ID]
    assert annotations_of(template)[PP_NAME] == "web-pp"
    assert annotations_of(template)["propagationpolicy.karmada.io/namespace"] == ns
    assert labels(binding)[PP_ID] == labels(pp)[PP_ID]
    assert labels(binding)[RB_ID]
    owner = binding["metadata"]["ownerReferences"][0]
    assert (owner["kind"], owner["name"], owner["uid"], owner["controller"]) == (
        "Deployment",
        "web",
        template["metadata"]["uid"],
        True,
    )
    spec = binding["spec"]
    assert spec["resource"]["kind"] == "Deployment" and spec["resource"]["name"] == "web"
    assert spec["replicas"] == 3
    assert spec["replicaRequirements"]["resourceRequest"] == REQUESTS
    assert spec["placement"]["clusterAffinity"] == {"clusterNames": [MEMBER]}
    assert spec["placement"]["replicaScheduling"]["replicaDivisionPreference"] == "Weighted"
    assert "clusters" not in spec

    hub("scale", "deploy", "web", "-n", ns, "--replicas=5")
    eventually(
        lambda: (
            (hub.json_or_none("get", "rb", "web-deployment", "-n", ns) or {}).get("spec", {}).get("replicas")
            == 5
        ),
        what="binding follows the scale",
    )


def test_priority_and_preemption_decide_who_claims(hub: Kubectl, ns: str) -> None:
    """A claim sticks against a stronger policy; `preemption: Always` with higher priority takes it."""
    every_deployment = [{"apiVersion": "apps/v1", "kind": "Deployment"}]
    api = [resource_selector("Deployment", "api")]
    hub.apply_yaml(
        [deployment("api"), propagation_policy("kind-only", every_deployment, ON_MEMBER)], "-n", ns
    )
    eventually(lambda: claimed_by(hub, ns, "api", "kind-only"), what="claimed by kind-only")
    hub.apply_yaml(propagation_policy("stronger", api, ON_MEMBER, priority=5), "-n", ns)
    hub.apply_yaml(propagation_policy("preemptor", api, ON_MEMBER, priority=3, preemption="Always"), "-n", ns)
    eventually(lambda: claimed_by(hub, ns, "api", "preemptor"), what="preempted")
    hub.apply_yaml(propagation_policy("lower", api, ON_MEMBER, priority=1, preemption="Always"), "-n", ns)
    hub.apply_yaml(propagation_policy("later", api, ON_MEMBER, priority=9), "-n", ns)
    hub("annotate", "deploy", "api", "-n", ns, "touch=1")

    def binding_current() -> bool:
        template = hub.json_or_none("get", "deploy", "api", "-n", ns) or {}
        binding = hub.json_or_none("get", "rb", "api-deployment", "-n", ns) or {}
        version = template.get("metadata", {}).get("resourceVersion")
        return bool(binding.get("spec", {}).get("resource", {}).get("resourceVersion") == version)

    eventually(binding_current, what="binding caught up with the annotated template")
    assert claimed_by(hub, ns, "api", "preemptor")


def test_deleting_the_policy_releases_the_template_and_keeps_the_binding(hub: Kubectl, ns: str) -> None:
    """Claim labels leave template and binding; the binding stays; a remaining policy claims it next."""
    hub.apply_yaml(
        [
            deployment("gone"),
            propagation_policy("first", [resource_selector("Deployment", "gone")], ON_MEMBER, priority=2),
        ],
        "-n",
        ns,
    )
    eventually(lambda: claimed_by(hub, ns, "gone", "first"), what="claimed by first")
    hub("delete", "pp", "first", "-n", ns)

    def released() -> bool:
        template = hub.json_or_none("get", "deploy", "gone", "-n", ns)
        binding = hub.json_or_none("get", "rb", "gone-deployment", "-n", ns)
        return (
            binding is not None
            and PP_ID not in labels(template)
            and PP_NAME not in annotations_of(template)
            and PP_ID not in labels(binding)
            and PP_NAME not in annotations_of(binding)
        )

    eventually(released, what="released, binding kept")
    hub.apply_yaml(
        propagation_policy("second", [resource_selector("Deployment", "gone")], ON_MEMBER), "-n", ns
    )
    eventually(lambda: claimed_by(hub, ns, "gone", "second"), what="claimed by second")


def test_a_deleted_policy_stays_until_its_claims_are_released_even_across_a_restart(
    hub: Kubectl, ns: str, manager: ControllerManagerProcess
) -> None:
    """Karmada's finalizer holds a deleted policy, claims and all, while no detector runs; once the
    controller manager is back the claims leave binding and template, then the policy goes."""
    hub.apply_yaml(
        [
            deployment("held"),
            propagation_policy("holder", [resource_selector("Deployment", "held")], ON_MEMBER),
        ],
        "-n",
        ns,
    )
    eventually(lambda: claimed_by(hub, ns, "held", "holder"), what="claimed by holder")
    assert hub.json("get", "pp", "holder", "-n", ns)["metadata"]["finalizers"] == [PP_FINALIZER]
    assert manager.stop() == 0, manager.log()
    try:
        hub("delete", "pp", "holder", "-n", ns, "--wait=false")
        deleting = hub.json("get", "pp", "holder", "-n", ns)
        assert deleting["metadata"]["deletionTimestamp"] and deleting["metadata"]["finalizers"] == [
            PP_FINALIZER
        ]
        assert claimed_by(hub, ns, "held", "holder"), "nothing is released while no detector runs"
    finally:
        manager.start()
    eventually(lambda: hub.json_or_none("get", "pp", "holder", "-n", ns) is None, what="policy deleted")
    template = hub.json("get", "deploy", "held", "-n", ns)
    binding = hub.json("get", "rb", "held-deployment", "-n", ns)
    assert PP_ID not in labels(template) and PP_NAME not in annotations_of(template)
    assert PP_ID not in labels(binding) and PP_NAME not in annotations_of(binding), (
        "the binding stays, unclaimed"
    )


def test_a_cluster_policy_claims_a_cluster_role_into_a_cluster_resource_binding(hub: Kubectl) -> None:
    """A CPP selecting a ClusterRole by name yields `<name>-clusterrole`, a ClusterResourceBinding."""
    role = f"reader-{uuid.uuid4().hex[:6]}"
    hub.apply_yaml(
        [
            {
                "apiVersion": "rbac.authorization.k8s.io/v1",
                "kind": "ClusterRole",
                "metadata": {"name": role},
                "rules": [{"apiGroups": [""], "resources": ["pods"], "verbs": ["get"]}],
            },
            propagation_policy(
                f"{role}-cpp",
                [{"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole", "name": role}],
                ON_MEMBER,
                kind="ClusterPropagationPolicy",
            ),
        ]
    )
    try:
        binding = eventually(
            lambda: hub.json_or_none("get", "crb", f"{role}-clusterrole"), what="CRB created"
        )
        cpp = hub.json_or_none("get", "cpp", f"{role}-cpp")
        template = hub.json_or_none("get", "clusterrole", role)
        assert labels(binding)[CPP_ID] == labels(cpp)[CPP_ID] == labels(template)[CPP_ID]
        assert cpp["metadata"]["finalizers"] == ["karmada.io/cluster-propagation-policy-controller"]
        assert annotations_of(binding)[CPP_NAME] == f"{role}-cpp"
        assert labels(binding)["clusterresourcebinding.karmada.io/permanent-id"]
        assert binding["spec"]["resource"] == {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "ClusterRole",
            "name": role,
            "uid": template["metadata"]["uid"],
            "resourceVersion": template["metadata"]["resourceVersion"],
        }
    finally:
        hub.run("delete", "cpp", f"{role}-cpp", check=False)
        hub.run("delete", "clusterrole", role, check=False)


@pytest.fixture(scope="module")
def member(
    server: ServerProcess, manager: ControllerManagerProcess, tmp_path_factory: pytest.TempPathFactory
) -> str:
    """A Cluster object and its execution namespace, as joining and the cluster controller leave them."""
    hub = Kubectl(server.kubeconfig, tmp_path_factory.mktemp("member-cache"))
    hub.apply_yaml(
        [
            {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": f"karmada-es-{MEMBER}"}},
            {
                "apiVersion": "cluster.karmada.io/v1alpha1",
                "kind": "Cluster",
                "metadata": {"name": MEMBER},
                "spec": {"syncMode": "Push", "apiEndpoint": "https://127.0.0.1:9"},
            },
        ]
    )
    return MEMBER


def namespace_work(hub: Kubectl, namespace: str) -> dict[str, Any] | None:
    for work in (hub.json_or_none("get", "works", "-n", f"karmada-es-{MEMBER}") or {}).get("items", []):
        if any(
            ref.get("kind") == "Namespace" and ref.get("name") == namespace
            for ref in work["metadata"].get("ownerReferences", [])
        ):
            return dict(work)
    return None


def test_namespaces_reach_every_cluster_through_a_work(hub: Kubectl, member: str) -> None:
    """A new Namespace gets a Work in karmada-es-<cluster>; skipped ones do not; deletion removes it."""
    name = f"team-{uuid.uuid4().hex[:6]}"
    hub("create", "namespace", name)
    hub("label", "namespace", name, "owner=team")
    work = eventually(lambda: namespace_work(hub, name), what="namespace Work")
    manifest = work["spec"]["workload"]["manifests"][0]
    assert manifest["kind"] == "Namespace" and manifest["metadata"]["name"] == name
    eventually(
        lambda: (
            labels(
                (namespace_work(hub, name) or {})
                .get("spec", {})
                .get("workload", {})
                .get("manifests", [{}])[0]
            ).get("owner")
            == "team"
        ),
        what="labels follow",
    )
    manifest = (namespace_work(hub, name) or {})["spec"]["workload"]["manifests"][0]
    assert labels(manifest)["karmada.io/managed"] == "true"
    assert annotations_of(manifest)["work.karmada.io/namespace"] == f"karmada-es-{member}"

    skipped = f"skip-{uuid.uuid4().hex[:6]}"
    hub.apply_yaml(
        {
            "apiVersion": "v1",
            "kind": "Namespace",
            "metadata": {"name": skipped, "labels": {"namespace.karmada.io/skip-auto-propagation": "true"}},
        }
    )
    hub("delete", "namespace", name, "--wait=false")
    eventually(lambda: namespace_work(hub, name) is None, what="Work removed with the namespace")
    assert namespace_work(hub, skipped) is None
    hub.run("delete", "namespace", skipped, "--wait=false", check=False)


def test_a_dependent_config_map_gets_an_attached_binding_following_its_referrer(
    hub: Kubectl, ns: str, member: str, tmp_path: Path
) -> None:
    """propagateDeps: the ConfigMap's attached binding lists the referrer and its clusters."""
    config_map = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "app-config"},
        "data": {"k": "v"},
    }
    workload = deployment("deps", volumes=[{"name": "cfg", "configMap": {"name": "app-config"}}])
    hub.apply_yaml(
        [
            config_map,
            workload,
            propagation_policy(
                "deps", [resource_selector("Deployment", "deps")], ON_MEMBER, propagateDeps=True
            ),
        ],
        "-n",
        ns,
    )
    eventually(
        lambda: hub.json_or_none("get", "rb", "deps-deployment", "-n", ns), what="the referrer's binding"
    )
    # Play the scheduler: place the referrer on the member. As Karmada's distributor, the
    # dependencies are recorded once the referrer is scheduled.
    hub(
        "patch",
        "rb",
        "deps-deployment",
        "-n",
        ns,
        "--type=merge",
        "-p",
        f'{{"spec":{{"clusters":[{{"name":"{member}","replicas":2}}]}}}}',
    )
    binding = eventually(
        lambda: (
            annotations_of(hub.json_or_none("get", "rb", "deps-deployment", "-n", ns)).get(
                "resourcebinding.karmada.io/dependencies"
            )
            and hub.json_or_none("get", "rb", "deps-deployment", "-n", ns)
        ),
        what="dependencies recorded",
    )
    assert annotations_of(binding)["resourcebinding.karmada.io/dependencies"] == (
        f'[{{"apiVersion":"v1","kind":"ConfigMap","namespace":"{ns}","name":"app-config"}}]'
    )

    def attached() -> dict[str, Any] | None:
        found = hub.json_or_none("get", "rb", "app-config-configmap", "-n", ns)
        return found if found and found["spec"].get("clusters") == [{"name": member}] else None

    attached_binding = eventually(attached, what="attached binding follows the referrer")
    assert attached_binding["spec"]["requiredBy"] == [
        {"namespace": ns, "name": "deps-deployment", "clusters": [{"name": member, "replicas": 2}]}
    ]
    assert "placement" not in attached_binding["spec"]
    assert attached_binding["metadata"]["ownerReferences"][0]["kind"] == "ConfigMap"
    assert any(key.startswith("resourcebinding.karmada.io/depended-by-") for key in labels(attached_binding))

    hub(
        "patch",
        "deploy",
        "deps",
        "-n",
        ns,
        "--type=json",
        "-p",
        '[{"op":"remove","path":"/spec/template/spec/volumes"}]',
    )
    eventually(
        lambda: hub.json_or_none("get", "rb", "app-config-configmap", "-n", ns) is None,
        what="attached binding removed",
    )


def test_a_kind_defined_later_by_a_crd_is_detected(hub: Kubectl, ns: str) -> None:
    """A CustomResourceDefinition created after start-up: its objects get bindings too."""
    group = f"g{uuid.uuid4().hex[:6]}.example.com"
    schema = {"type": "object", "x-kubernetes-preserve-unknown-fields": True}
    hub.apply_yaml(custom_resource_definition(group, "Widget", schema, names={"listKind": "WidgetList"}))
    try:
        eventually(
            lambda: hub.run("get", f"widgets.{group}", "-n", ns, check=False).returncode == 0,
            what="served",
        )
        widget = {
            "apiVersion": f"{group}/v1",
            "kind": "Widget",
            "metadata": {"name": "w"},
            "spec": {"size": 3},
        }
        selector = {"apiVersion": f"{group}/v1", "kind": "Widget", "name": "w"}
        hub.apply_yaml([widget, propagation_policy("widgets", [selector], ON_MEMBER)], "-n", ns)
        binding = eventually(
            lambda: hub.json_or_none("get", "rb", "w-widget", "-n", ns), timeout=20, what="widget bound"
        )
        assert binding["spec"]["resource"]["apiVersion"] == f"{group}/v1"
        assert "replicas" not in binding["spec"]
    finally:
        hub.run("delete", "crd", f"widgets.{group}", "--wait=false", check=False)
