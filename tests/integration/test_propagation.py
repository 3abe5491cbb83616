"""Karmada-style propagation end to end: a hub, a controller manager and three simulated members.

The members are `sz` and `fz` (region-a) and `gz` (region-b); all run in one `flotilla sim` process
and are joined in Push mode with `flotilla join`. Every test uses its own namespace on the hub.
"""

from __future__ import annotations

import json
import re
import signal
import time
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest

from tests.integration.federation import (
    FAST_CLUSTER_STATUS,
    Federation,
    MemberCluster,
    deployment,
    member_deployments,
    nginx_walkthrough,
    propagation_policy,
    ready_on,
    registry_override,
    replicas_on,
    resource_selector,
    static_weights,
    template_ready,
)
from tests.support.kubectl import Kubectl
from tests.support.waiting import eventually
from tests.unit.apiserver.admission.webhook_server import WebhookServer, webhook_configuration

pytestmark = pytest.mark.kubectl

MEMBERS = {
    "sz": {
        "topology.kubernetes.io/region": "region-a",
        "topology.kubernetes.io/zone": "region-a-1",
        "provider": "cloud-one",
        "tier": "gold",
    },
    "fz": {
        "topology.kubernetes.io/region": "region-a",
        "topology.kubernetes.io/zone": "region-a-2",
        "provider": "cloud-one",
        "tier": "silver",
    },
    "gz": {
        "topology.kubernetes.io/region": "region-b",
        "topology.kubernetes.io/zone": "region-b-1",
        "provider": "cloud-two",
        "tier": "silver",
    },
}


def member_cluster(name: str, labels: dict[str, str]) -> MemberCluster:
    """Two nodes of 4 CPUs and 8Gi, joined with the provider, region and zone its labels name."""
    return MemberCluster(
        name,
        nodes=2,
        node_cpu="4",
        node_memory="8Gi",
        labels=labels,
        region=labels["topology.kubernetes.io/region"],
        zones=labels["topology.kubernetes.io/zone"],
        provider=labels["provider"],
    )


@pytest.fixture(scope="module")
def federation(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Federation]:
    root = tmp_path_factory.mktemp("karmada")
    members = [member_cluster(name, labels) for name, labels in MEMBERS.items()]
    manager_args = [*FAST_CLUSTER_STATUS, "--cluster-failure-threshold", "2"]
    with Federation(root, members, manager_args=manager_args) as federation:
        federation.start(wait_ready=False)
        hub = federation.kubectl(root / "cache-hub")
        for name, labels in MEMBERS.items():
            hub("label", "cluster", name, f"tier={labels['tier']}", "--overwrite")
        federation.wait_clusters_ready()
        yield federation


def test_getting_started_walkthrough(hub: Kubectl, members: dict[str, Kubectl], ns: str) -> None:
    """Karmada's walkthrough verbatim: nginx split 1:1 over sz and fz, READY 2/2 on the hub."""
    hub.apply_yaml(nginx_walkthrough("sz", "fz"), "-n", ns)
    eventually(lambda: replicas_on(members, ns, "nginx") == {"sz": 1, "fz": 1}, what="1 replica on sz and fz")
    eventually(lambda: ready_on(members, ns, "nginx") == {"sz": 1, "fz": 1}, what="running on members")
    eventually(lambda: template_ready(hub, ns, "nginx") == "2/2", what="READY 2/2 on the hub")
    binding = hub.json("get", "resourcebinding", "nginx-deployment", "-n", ns)
    assert sorted(c["name"] for c in binding["spec"]["clusters"]) == ["fz", "sz"]
    member_deploy = members["sz"].json("get", "deploy", "nginx", "-n", ns)
    assert member_deploy["metadata"]["labels"]["karmada.io/managed"] == "true"


def test_duplicated_puts_all_replicas_everywhere(hub: Kubectl, members: dict[str, Kubectl], ns: str) -> None:
    """Duplicated scheduling gives every selected cluster the full replica count; scaling follows."""
    hub.apply_yaml(
        [
            deployment("dup", 2),
            propagation_policy(
                "dup",
                [resource_selector("Deployment", "dup")],
                {
                    "clusterAffinity": {"clusterNames": list(MEMBERS)},
                    "replicaScheduling": {"replicaSchedulingType": "Duplicated"},
                },
            ),
        ],
        "-n",
        ns,
    )
    eventually(lambda: replicas_on(members, ns, "dup") == dict.fromkeys(MEMBERS, 2), what="2 everywhere")
    hub("scale", "deploy", "dup", "-n", ns, "--replicas=3")
    eventually(lambda: replicas_on(members, ns, "dup") == dict.fromkeys(MEMBERS, 3), what="3 everywhere")


def test_static_weights_scale_up_and_down(hub: Kubectl, members: dict[str, Kubectl], ns: str) -> None:
    """Static weights 1:2 split 3 replicas 1/2 and 6 replicas 2/4, and back."""
    weights = static_weights({"sz": 1, "gz": 2})
    hub.apply_yaml(
        [
            deployment("w", 3),
            propagation_policy(
                "w",
                [resource_selector("Deployment", "w")],
                {"clusterAffinity": {"clusterNames": ["sz", "gz"]}, "replicaScheduling": weights},
            ),
        ],
        "-n",
        ns,
    )
    eventually(lambda: replicas_on(members, ns, "w") == {"sz": 1, "gz": 2}, what="1/2")
    hub("scale", "deploy", "w", "-n", ns, "--replicas=6")
    eventually(lambda: replicas_on(members, ns, "w") == {"sz": 2, "gz": 4}, what="2/4")
    hub("scale", "deploy", "w", "-n", ns, "--replicas=3")
    eventually(lambda: replicas_on(members, ns, "w") == {"sz": 1, "gz": 2}, what="back to 1/2")


def test_placement_by_labels_and_field_selector(hub: Kubectl, members: dict[str, Kubectl], ns: str) -> None:
    """labelSelector picks clusters by label; fieldSelector by provider/region."""
    hub.apply_yaml(
        [
            deployment("by-label", 1),
            propagation_policy(
                "by-label",
                [resource_selector("Deployment", "by-label")],
                {"clusterAffinity": {"labelSelector": {"matchLabels": {"tier": "silver"}}}},
            ),
            deployment("by-field", 1),
            propagation_policy(
                "by-field",
                [resource_selector("Deployment", "by-field")],
                {
                    "clusterAffinity": {
                        "fieldSelector": {
                            "matchExpressions": [
                                {"key": "region", "operator": "In", "values": ["region-a"]},
                                {"key": "provider", "operator": "NotIn", "values": ["cloud-two"]},
                            ]
                        }
                    }
                },
            ),
        ],
        "-n",
        ns,
    )
    eventually(lambda: set(replicas_on(members, ns, "by-label")) == {"fz", "gz"}, what="silver clusters")
    eventually(lambda: set(replicas_on(members, ns, "by-field")) == {"sz", "fz"}, what="region-a clusters")


def test_taint_without_toleration_excludes_a_cluster(
    hub: Kubectl, members: dict[str, Kubectl], ns: str
) -> None:
    """A NoSchedule taint keeps new workloads off a cluster unless the policy tolerates it."""
    hub(
        "patch",
        "cluster",
        "gz",
        "--type=merge",
        "-p",
        '{"spec":{"taints":[{"key":"maintenance","value":"yes","effect":"NoSchedule"}]}}',
    )
    try:
        hub.apply_yaml(
            [
                deployment("intolerant", 1),
                propagation_policy(
                    "intolerant",
                    [resource_selector("Deployment", "intolerant")],
                    {"clusterAffinity": {"clusterNames": list(MEMBERS)}},
                ),
                deployment("tolerant", 1),
                propagation_policy(
                    "tolerant",
                    [resource_selector("Deployment", "tolerant")],
                    {
                        "clusterAffinity": {"clusterNames": list(MEMBERS)},
                        "clusterTolerations": [
                            {"key": "maintenance", "operator": "Exists", "effect": "NoSchedule"}
                        ],
                    },
                ),
            ],
            "-n",
            ns,
        )
        eventually(lambda: set(replicas_on(members, ns, "intolerant")) == {"sz", "fz"}, what="not on gz")
        eventually(lambda: set(replicas_on(members, ns, "tolerant")) == set(MEMBERS), what="also on gz")
    finally:
        hub("patch", "cluster", "gz", "--type=merge", "-p", '{"spec":{"taints":null}}')


def test_spread_by_region(hub: Kubectl, members: dict[str, Kubectl], ns: str) -> None:
    """Spreading over exactly two regions puts the workload in both region-a and region-b."""
    hub.apply_yaml(
        [
            deployment("spread", 2),
            propagation_policy(
                "spread",
                [resource_selector("Deployment", "spread")],
                {
                    "spreadConstraints": [
                        {"spreadByField": "region", "maxGroups": 2, "minGroups": 2},
                        {"spreadByField": "cluster", "maxGroups": 2, "minGroups": 2},
                    ],
                    "replicaScheduling": {"replicaSchedulingType": "Duplicated"},
                },
            ),
        ],
        "-n",
        ns,
    )
    placed = eventually(
        lambda: len(replicas_on(members, ns, "spread")) == 2 and replicas_on(members, ns, "spread"),
        what="two clusters",
    )
    assert "gz" in placed and ({"sz", "fz"} & set(placed))


def test_image_override_per_cluster(hub: Kubectl, members: dict[str, Kubectl], ns: str) -> None:
    """An OverridePolicy changes the image registry on one cluster only."""
    override = registry_override("img", "fz", "mirror.example")
    hub.apply_yaml(
        [
            override,
            deployment("img", 1, image="docker.io/library/nginx:1.25"),
            propagation_policy(
                "img",
                [resource_selector("Deployment", "img")],
                {
                    "clusterAffinity": {"clusterNames": ["sz", "fz"]},
                    "replicaScheduling": {"replicaSchedulingType": "Duplicated"},
                },
            ),
        ],
        "-n",
        ns,
    )

    def images() -> dict[str, str]:
        on_sz_and_fz = {cluster: members[cluster] for cluster in ("sz", "fz")}
        return {
            cluster: obj["spec"]["template"]["spec"]["containers"][0]["image"]
            for cluster, obj in member_deployments(on_sz_and_fz, ns, "img").items()
        }

    eventually(
        lambda: images() == {"sz": "docker.io/library/nginx:1.25", "fz": "mirror.example/library/nginx:1.25"},
        what="image overridden on fz only",
    )


def test_dependent_configmap_follows(hub: Kubectl, members: dict[str, Kubectl], ns: str) -> None:
    """With propagateDeps a ConfigMap used by the workload lands where the workload does."""
    config_map = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "app-config"},
        "data": {"k": "v"},
    }
    workload = deployment("deps", 1, volumes=[{"name": "cfg", "configMap": {"name": "app-config"}}])
    hub.apply_yaml(
        [
            config_map,
            workload,
            propagation_policy(
                "deps",
                [resource_selector("Deployment", "deps")],
                {"clusterAffinity": {"clusterNames": ["fz"]}},
                propagateDeps=True,
            ),
        ],
        "-n",
        ns,
    )
    eventually(
        lambda: members["fz"].succeeds("get", "cm", "app-config", "-n", ns),
        what="ConfigMap on fz",
    )
    assert not members["sz"].succeeds("get", "cm", "app-config", "-n", ns)


def test_a_configmap_with_a_253_character_name_propagates(
    hub: Kubectl, members: dict[str, Kubectl], ns: str
) -> None:
    """The longest name kube allows: the binding's name is shortened with a hash, the ConfigMap
    reaches the member under its own name, and the scheduler's Event about the binding is recorded."""
    name = ("long-config-" * 22)[:252] + "x"
    assert len(name) == 253
    hub.apply_yaml(
        [
            {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": {"k": "v"}},
            propagation_policy(
                "long",
                [resource_selector("ConfigMap", name, "v1")],
                {"clusterAffinity": {"clusterNames": ["gz"]}},
            ),
        ],
        "-n",
        ns,
    )
    eventually(lambda: members["gz"].succeeds("get", "cm", name, "-n", ns), what="ConfigMap on gz")
    bindings = hub.json("get", "resourcebindings", "-n", ns)["items"]
    assert len(bindings) == 1
    binding = bindings[0]["metadata"]["name"]
    assert len(binding) <= 253 and binding.endswith("-configmap") and binding.startswith("long-config-")
    assert bindings[0]["spec"]["resource"]["name"] == name
    events = hub.json("get", "events", "-n", ns, "--field-selector", f"involvedObject.name={binding}")
    assert any(event["reason"] == "ScheduleBindingSucceed" for event in events["items"])


def warning_events(hub: Kubectl, ns: str, reason: str, involved: str) -> list[dict[str, Any]]:
    items = hub.json("get", "events", "-n", ns, "--field-selector", f"involvedObject.name={involved}")[
        "items"
    ]
    return [event for event in items if event["reason"] == reason and event["type"] == "Warning"]


def test_a_binding_the_hub_refuses_is_reported_on_the_template_once(
    hub: Kubectl, members: dict[str, Kubectl], ns: str
) -> None:
    """A refused binding (422 from a webhook here) gives the template a Warning Event worded as
    Karmada's detector words it, and is not sent again and again while nothing changes."""
    refusal = "refused by the test webhook: no bindings for this ConfigMap"

    def review(request: dict[str, Any]) -> dict[str, Any]:
        if request["object"]["metadata"]["name"] != "refused-configmap":
            return {"allowed": True}
        return {"allowed": False, "status": {"code": 422, "reason": "Invalid", "message": refusal}}

    with WebhookServer({"/bindings": review}) as webhooks:
        configuration = webhook_configuration(
            "ValidatingWebhookConfiguration",
            f"refuse-bindings-{ns}",
            [
                {
                    "name": "bindings.flotilla.test",
                    "clientConfig": {"url": webhooks.url("/bindings"), "caBundle": webhooks.ca_bundle},
                    "rules": [
                        {
                            "operations": ["CREATE", "UPDATE"],
                            "apiGroups": ["work.karmada.io"],
                            "apiVersions": ["v1alpha2"],
                            "resources": ["resourcebindings"],
                        }
                    ],
                    "namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": ns}},
                    "sideEffects": "None",
                    "admissionReviewVersions": ["v1"],
                }
            ],
        )
        hub.apply_yaml(configuration)
        try:
            to_gz = {"clusterAffinity": {"clusterNames": ["gz"]}}
            hub.apply_yaml(
                [
                    {
                        "apiVersion": "v1",
                        "kind": "ConfigMap",
                        "metadata": {"name": "refused"},
                        "data": {"k": "v"},
                    },
                    propagation_policy("refused", [resource_selector("ConfigMap", "refused", "v1")], to_gz),
                ],
                "-n",
                ns,
            )
            events = eventually(
                lambda: warning_events(hub, ns, "ApplyPolicyFailed", "refused"),
                what="ApplyPolicyFailed on the ConfigMap",
            )
            assert events[0]["message"].startswith(f"Apply policy({ns}/refused) failed: ")
            assert refusal in events[0]["message"]
            assert events[0]["involvedObject"]["kind"] == "ConfigMap"
            # Time passes — three more ConfigMaps propagate, one after the other, through the same
            # detector — and the refused binding is not sent again (retried with backoff instead, it
            # was sent five times by then in a measured run).
            for number in range(3):
                marker = f"marker-{number}"
                hub.apply_yaml(
                    [
                        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": marker}},
                        propagation_policy(marker, [resource_selector("ConfigMap", marker, "v1")], to_gz),
                    ],
                    "-n",
                    ns,
                )
                eventually(lambda m=marker: members["gz"].succeeds("get", "cm", m, "-n", ns), what=marker)
            refused = [r for r in webhooks.received("/bindings") if r["name"] == "refused-configmap"]
            # Once when the template is claimed, once more for the claim's own update.
            assert len(refused) <= 2, f"the refused binding was sent {len(refused)} times"
        finally:
            hub("delete", "validatingwebhookconfiguration", f"refuse-bindings-{ns}")


def test_a_work_that_cannot_be_rendered_is_reported_on_the_binding_and_the_template(
    hub: Kubectl, ns: str
) -> None:
    """An override that cannot apply gives a Warning `SyncWorkFailed` on both, as Karmada's does."""
    broken = {
        "apiVersion": "policy.karmada.io/v1alpha1",
        "kind": "OverridePolicy",
        "metadata": {"name": "broken"},
        "spec": {
            "resourceSelectors": [resource_selector("ConfigMap", "unrenderable", "v1")],
            "overrideRules": [
                {
                    "targetCluster": {"clusterNames": ["gz"]},
                    "overriders": {
                        "plaintext": [{"path": "/data/missing/deeper", "operator": "replace", "value": "x"}]
                    },
                }
            ],
        },
    }
    hub.apply_yaml(
        [
            broken,
            {
                "apiVersion": "v1",
                "kind": "ConfigMap",
                "metadata": {"name": "unrenderable"},
                "data": {"k": "v"},
            },
            propagation_policy(
                "unrenderable",
                [resource_selector("ConfigMap", "unrenderable", "v1")],
                {"clusterAffinity": {"clusterNames": ["gz"]}},
            ),
        ],
        "-n",
        ns,
    )
    on_template = eventually(
        lambda: warning_events(hub, ns, "SyncWorkFailed", "unrenderable"),
        what="SyncWorkFailed on the ConfigMap",
    )
    assert "cannot render" in on_template[0]["message"] and "gz" in on_template[0]["message"]
    assert warning_events(hub, ns, "SyncWorkFailed", "unrenderable-configmap")


def test_deleting_the_template_cleans_the_members(hub: Kubectl, members: dict[str, Kubectl], ns: str) -> None:
    """Deleting the Deployment on the hub removes it from every member; the policy stays."""
    hub.apply_yaml(
        [
            deployment("gone", 1),
            propagation_policy(
                "gone",
                [resource_selector("Deployment", "gone")],
                {
                    "clusterAffinity": {"clusterNames": ["sz", "gz"]},
                    "replicaScheduling": {"replicaSchedulingType": "Duplicated"},
                },
            ),
        ],
        "-n",
        ns,
    )
    eventually(lambda: set(replicas_on(members, ns, "gone")) == {"sz", "gz"}, what="propagated")
    hub("delete", "deploy", "gone", "-n", ns)
    eventually(lambda: replicas_on(members, ns, "gone") == {}, what="removed from members")
    assert hub.succeeds("get", "pp", "gone", "-n", ns)


def test_changing_the_policy_moves_the_workload(hub: Kubectl, members: dict[str, Kubectl], ns: str) -> None:
    """Editing the policy's cluster list moves the workload from sz to gz."""
    hub.apply_yaml(
        [
            deployment("mover", 1),
            propagation_policy(
                "mover",
                [resource_selector("Deployment", "mover")],
                {"clusterAffinity": {"clusterNames": ["sz"]}},
            ),
        ],
        "-n",
        ns,
    )
    eventually(lambda: set(replicas_on(members, ns, "mover")) == {"sz"}, what="on sz")
    hub.apply_yaml(
        propagation_policy(
            "mover", [resource_selector("Deployment", "mover")], {"clusterAffinity": {"clusterNames": ["gz"]}}
        ),
        "-n",
        ns,
    )
    eventually(lambda: set(replicas_on(members, ns, "mover")) == {"gz"}, what="moved to gz")


def test_killed_controller_manager_converges_after_restart(
    federation: Federation, hub: Kubectl, members: dict[str, Kubectl], ns: str
) -> None:
    """kill -9 of the controller manager mid-propagation: after a restart every workload arrives."""
    documents = []
    for i in range(10):
        documents += [
            deployment(f"crash-{i}", 1),
            propagation_policy(
                f"crash-{i}",
                [resource_selector("Deployment", f"crash-{i}")],
                {
                    "clusterAffinity": {"clusterNames": ["sz", "fz"]},
                    "replicaScheduling": {"replicaSchedulingType": "Duplicated"},
                },
            ),
        ]
    hub.apply_yaml(documents, "-n", ns)
    federation.manager.stop(signal.SIGKILL)
    federation.manager.start()
    for i in range(10):
        eventually(
            lambda i=i: set(replicas_on(members, ns, f"crash-{i}")) == {"sz", "fz"},
            timeout=60,
            what=f"crash-{i} on both clusters",
        )


# What a restarted controller manager could rewrite: the machinery and the templates.
WATCHED_FOR_WRITES = (
    "/apis/work.karmada.io/v1alpha2/resourcebindings",
    "/apis/work.karmada.io/v1alpha1/works",
    "/apis/apps/v1/deployments",
    "/api/v1/events",
    "/apis/cluster.karmada.io/v1alpha1/clusters",
)


def writes_since(hub: Kubectl, revision: str, ns: str) -> list[str]:
    """`kind name` of every change after `revision` (a watch from it) to the watched collections:
    what belongs to namespace `ns` (Works by the namespace of what they carry) and the Clusters.
    Other tests' leftovers in the module's hub (a template that cannot be rendered, reported again
    by a new manager) are not this test's business."""
    found = []
    for path in WATCHED_FOR_WRITES:
        answer = hub.run("get", "--raw", f"{path}?watch=1&resourceVersion={revision}&timeoutSeconds=1")
        for line in answer.stdout.splitlines():
            obj = json.loads(line)["object"]
            manifests = ((obj.get("spec") or {}).get("workload") or {}).get("manifests") or [{}]
            namespace = obj["metadata"].get("namespace") or ""
            if obj["kind"] == "Work":
                namespace = (manifests[0].get("metadata") or {}).get("namespace") or ""
            if obj["kind"] == "Cluster" or namespace == ns:
                found.append(f"{obj['kind']} {obj['metadata'].get('name')}")
    return found


def hub_revision(hub: Kubectl) -> str:
    return str(
        json.loads(hub.run("get", "--raw", "/api/v1/namespaces").stdout)["metadata"]["resourceVersion"]
    )


def quiet_revision(hub: Kubectl, ns: str) -> str | None:
    """The hub's revision if nothing watched changed in the 3 s after it, else None."""
    revision = hub_revision(hub)
    time.sleep(3)
    return None if writes_since(hub, revision, ns) else revision


def manager_drained(federation: Federation) -> bool:
    """The (latest) manager leads and its work queues are empty, twice a second apart (its periodic
    controllers keep reconciling, so "no reconcile at all" never holds)."""
    url = re.findall(r"running \(health: (\S+)\)", federation.manager.log())[-1]

    def leading_and_empty() -> bool:
        with urllib.request.urlopen(f"{url}/metrics", timeout=5) as answer:
            text = answer.read().decode()
        sums = {"flotilla_leader_is_leader": 0.0, "flotilla_workqueue_depth": 0.0}
        for line in text.splitlines():
            name = line.split("{", 1)[0].split(" ", 1)[0]
            if name in sums:
                sums[name] += float(line.rsplit(" ", 1)[1])
        return sums == {"flotilla_leader_is_leader": 1.0, "flotilla_workqueue_depth": 0.0}

    if not leading_and_empty():
        return False
    time.sleep(1.0)
    return leading_and_empty()


def test_a_restarted_controller_manager_writes_nothing_when_nothing_changed(
    federation: Federation, hub: Kubectl, members: dict[str, Kubectl], ns: str
) -> None:
    """Settled workloads (their templates' status aggregated many times since their bindings were
    written), then kill -9 and a restart: the new manager meets every object anew and writes none
    of them — no binding, Work, template, Event or Cluster changes."""
    documents = []
    for i, scheduling in enumerate(("Duplicated", "Divided")):
        documents += [
            deployment(f"calm-{i}", 2),
            propagation_policy(
                f"calm-{i}",
                [resource_selector("Deployment", f"calm-{i}")],
                {
                    "clusterAffinity": {"clusterNames": ["sz", "fz"]},
                    "replicaScheduling": {"replicaSchedulingType": scheduling},
                },
            ),
        ]
    hub.apply_yaml(documents, "-n", ns)
    for i in range(2):
        eventually(
            lambda i=i: set(replicas_on(members, ns, f"calm-{i}")) == {"sz", "fz"},
            timeout=60,
            what=f"calm-{i} on both clusters",
        )
    settled = eventually(
        lambda: quiet_revision(hub, ns), timeout=90, what="the hub to settle (no writes for 3 s)"
    )
    federation.manager.stop(signal.SIGKILL)
    federation.manager.start()
    eventually(
        lambda: manager_drained(federation), timeout=60, what="the restarted manager to drain its queues"
    )
    assert writes_since(hub, settled, ns) == []
