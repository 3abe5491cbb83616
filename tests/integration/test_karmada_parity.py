"""Karmada parity to the field: a hub's Karmada kinds are served, applied, validated and printed as Karmada's.

One API server for the module. The schema test reads the CRDs the hub serves and compares them with
the field list derived from Karmada's own CRDs (`data/karmada_fields.json`, made by
`data/karmada_fields.py`); every difference must be listed, with its reason, in
`docs/design/karmada-parity.md`. The other tests are what the markers, enums and printers change
for users: two server-side-apply managers of one selector, the refusals Karmada makes, the older
purge-mode names, and `kubectl get clusters`.
"""

from __future__ import annotations

import json
import re
import uuid
from pathlib import Path
from typing import Any

import pytest

from tests.integration.data.karmada_fields import crd_facts, differences, documented_differences
from tests.support.kubectl import Kubectl

pytestmark = pytest.mark.kubectl

DATA = Path(__file__).parent / "data" / "karmada_fields.json"
PARITY_NOTE = Path(__file__).parents[2] / "docs" / "design" / "karmada-parity.md"


def test_served_schemas_match_karmadas_field_list(kubectl: Kubectl) -> None:
    """Paths, markers, required, enums, defaults, names and columns of every shared CRD equal Karmada's,
    but for the differences the parity note lists — and it lists no difference that is gone."""
    karmada = json.loads(DATA.read_text())["crds"]
    served = {crd["metadata"]["name"]: crd_facts(crd) for crd in kubectl.json("get", "crds")["items"]}
    found: dict[str, tuple[Any, Any]] = {}
    for name, expected in karmada.items():
        found.update(differences(name, expected, served[name]))
    documented = documented_differences(PARITY_NOTE)
    undocumented = {key: value for key, value in found.items() if key not in documented}
    assert not undocumented, "differences from Karmada not in docs/design/karmada-parity.md:\n" + "\n".join(
        f"{key}: Karmada {karmada_value!r}, served {ours!r}"
        for key, (karmada_value, ours) in sorted(undocumented.items())
    )
    assert not documented - set(found), (
        f"listed in the parity note but no longer differ: {documented - set(found)}"
    )


def _policy(name: str, match_labels: dict[str, str]) -> dict[str, Any]:
    return {
        "apiVersion": "policy.karmada.io/v1alpha1",
        "kind": "PropagationPolicy",
        "metadata": {"name": name},
        "spec": {
            "resourceSelectors": [{"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}],
            "placement": {"clusterAffinity": {"labelSelector": {"matchLabels": match_labels}}},
        },
    }


def _server_side_apply(
    kubectl: Kubectl, obj: dict[str, Any], namespace: str, manager: str, *extra: str
) -> Any:
    return kubectl.run(
        "apply",
        "--server-side",
        f"--field-manager={manager}",
        "-n",
        namespace,
        "-f",
        "-",
        *extra,
        input=json.dumps(obj),
        check=False,
    )


def test_a_second_appliers_selector_replaces_the_first_as_in_karmada(
    kubectl: Kubectl, namespace: str
) -> None:
    """A LabelSelector is atomic (`x-kubernetes-map-type: atomic`): another manager's matchLabels
    conflict, and forced they replace the first manager's instead of merging with them."""
    assert _server_side_apply(kubectl, _policy("web", {"env": "prod"}), namespace, "argocd").returncode == 0
    conflicted = _server_side_apply(kubectl, _policy("web", {"tier": "edge"}), namespace, "flux")
    assert conflicted.returncode != 0
    assert "conflict" in conflicted.stderr.lower()
    assert ".spec.placement.clusterAffinity.labelSelector" in conflicted.stderr
    forced = _server_side_apply(
        kubectl, _policy("web", {"tier": "edge"}), namespace, "flux", "--force-conflicts"
    )
    assert forced.returncode == 0, forced.stderr
    policy = kubectl.json("get", "pp", "web", "-n", namespace)
    assert policy["spec"]["placement"]["clusterAffinity"]["labelSelector"] == {
        "matchLabels": {"tier": "edge"}
    }


def _refusal(kubectl: Kubectl, obj: dict[str, Any], namespace: str) -> str:
    result = kubectl.run("apply", "-n", namespace, "-f", "-", input=json.dumps(obj), check=False)
    assert result.returncode != 0, f"accepted: {json.dumps(obj)}"
    return result.stderr


def test_a_labels_overrider_without_a_value_is_refused(kubectl: Kubectl, namespace: str) -> None:
    """labelsOverrider and annotationsOverrider items require `value`, as Karmada's CRD does."""
    override = {
        "apiVersion": "policy.karmada.io/v1alpha1",
        "kind": "OverridePolicy",
        "metadata": {"name": "no-value"},
        "spec": {
            "overrideRules": [
                {
                    "overriders": {
                        "labelsOverrider": [{"operator": "add"}],
                        "annotationsOverrider": [{"operator": "remove"}],
                    }
                }
            ]
        },
    }
    refused = _refusal(kubectl, override, namespace)
    assert "spec.overrideRules[0].overriders.labelsOverrider[0].value: Required value" in refused
    assert "spec.overrideRules[0].overriders.annotationsOverrider[0].value: Required value" in refused


@pytest.mark.parametrize(
    ("priority", "cause"),
    [
        (
            {"priorityClassSource": "PodPriorityClass", "priorityClassName": "high"},
            'spec.schedulePriority.priorityClassSource: Unsupported value: "PodPriorityClass"',
        ),
        ({"priorityClassName": "high"}, "spec.schedulePriority.priorityClassSource: Required value"),
        (
            {"priorityClassSource": "KubePriorityClass"},
            "spec.schedulePriority.priorityClassName: Required value",
        ),
    ],
)
def test_a_schedule_priority_karmada_refuses_is_refused(
    kubectl: Kubectl, namespace: str, priority: dict[str, str], cause: str
) -> None:
    """Only KubePriorityClass is a source, and a source and a class name are both required."""
    policy = _policy(f"priority-{uuid.uuid4().hex[:6]}", {"env": "prod"})
    policy["spec"]["schedulePriority"] = priority
    assert cause in _refusal(kubectl, policy, namespace)


def test_older_purge_mode_names_are_accepted_and_stored_as_the_current_ones(
    kubectl: Kubectl, namespace: str
) -> None:
    """Immediately and Graciously (Karmada before v1.19) are stored as Directly and Gracefully, in a
    policy's failover and in a binding's eviction tasks."""
    policy = _policy("old-purge", {"env": "prod"})
    policy["spec"]["propagateDeps"] = True
    policy["spec"]["failover"] = {
        "application": {"decisionConditions": {"tolerationSeconds": 60}, "purgeMode": "Graciously"},
        "cluster": {"purgeMode": "Immediately"},
    }
    binding = {
        "apiVersion": "work.karmada.io/v1alpha2",
        "kind": "ResourceBinding",
        "metadata": {"name": "old-purge"},
        "spec": {
            "resource": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
            "gracefulEvictionTasks": [
                {
                    "fromCluster": "m1",
                    "reason": "TaintUntolerated",
                    "producer": "TaintManager",
                    "purgeMode": "Immediately",
                },
                {
                    "fromCluster": "m2",
                    "reason": "TaintUntolerated",
                    "producer": "TaintManager",
                    "purgeMode": "Graciously",
                },
            ],
        },
    }
    kubectl.apply_yaml([policy, binding], "-n", namespace)
    failover = kubectl.json("get", "pp", "old-purge", "-n", namespace)["spec"]["failover"]
    assert failover["application"]["purgeMode"] == "Gracefully"
    assert failover["application"]["gracePeriodSeconds"] == 600
    assert failover["cluster"]["purgeMode"] == "Directly"
    tasks = kubectl.json("get", "rb", "old-purge", "-n", namespace)["spec"]["gracefulEvictionTasks"]
    assert [task["purgeMode"] for task in tasks] == ["Directly", "Gracefully"]


def test_a_bindings_per_component_result_is_kept(kubectl: Kubectl, namespace: str) -> None:
    """`spec.clusters[].components` (Karmada's multi-component scheduling result) is served, not pruned."""
    binding = {
        "apiVersion": "work.karmada.io/v1alpha2",
        "kind": "ResourceBinding",
        "metadata": {"name": "components"},
        "spec": {
            "resource": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
            "components": [{"name": "jobmanager", "replicas": 1}, {"name": "taskmanager", "replicas": 2}],
            "clusters": [
                {
                    "name": "m1",
                    "replicas": 3,
                    "components": [
                        {"name": "jobmanager", "replicas": 1},
                        {"name": "taskmanager", "replicas": 2},
                    ],
                }
            ],
        },
    }
    kubectl.apply_yaml(binding, "-n", namespace)
    stored = kubectl.json("get", "rb", "components", "-n", namespace)["spec"]
    assert stored["clusters"][0]["components"] == binding["spec"]["clusters"][0]["components"]


def table(output: str) -> list[dict[str, str]]:
    """kubectl's table as one dict a row, cut at the header's column starts (cells may be blank)."""
    header, *lines = output.rstrip("\n").splitlines()
    starts = [match.start() for match in re.finditer(r"\S+", header)]
    names = header.split()
    bounds = list(zip(starts, [*starts[1:], None], strict=True))
    return [
        {name: line[start:end].strip() for name, (start, end) in zip(names, bounds, strict=True)}
        for line in lines
    ]


def test_kubectl_get_clusters_prints_as_on_a_karmada_hub(kubectl: Kubectl) -> None:
    """NAME VERSION MODE READY AGE, and with -o wide ZONES (joined by commas) REGION PROVIDER
    API-ENDPOINT PROXY-URL; empty optional fields print `<none>`, a missing Ready condition `Unknown`."""
    clusters = [
        {
            "apiVersion": "cluster.karmada.io/v1alpha1",
            "kind": "Cluster",
            "metadata": {"name": "parity-east"},
            "spec": {
                "syncMode": "Push",
                "apiEndpoint": "https://10.0.0.5:6443",
                "zones": ["east-1a", "east-1b"],
                "region": "east",
                "provider": "kind",
                "proxyURL": "socks5://10.0.0.9:1080",
            },
        },
        {
            "apiVersion": "cluster.karmada.io/v1alpha1",
            "kind": "Cluster",
            "metadata": {"name": "parity-pull"},
            "spec": {"syncMode": "Pull", "proxyURL": ""},
        },
    ]
    kubectl.apply_yaml(clusters)
    try:
        narrow = {row["NAME"]: row for row in table(kubectl("get", "clusters", "parity-east", "parity-pull"))}
        assert list(narrow["parity-east"]) == ["NAME", "VERSION", "MODE", "READY", "AGE"]
        assert [narrow["parity-east"][c] for c in ("VERSION", "MODE", "READY")] == ["", "Push", "Unknown"]
        wide = {
            row["NAME"]: row
            for row in table(kubectl("get", "clusters", "parity-east", "parity-pull", "-o", "wide"))
        }
        columns = ("ZONES", "REGION", "PROVIDER", "API-ENDPOINT", "PROXY-URL")
        assert list(wide["parity-east"]) == ["NAME", "VERSION", "MODE", "READY", "AGE", *columns]
        assert [wide["parity-east"][c] for c in columns] == [
            "east-1a,east-1b",
            "east",
            "kind",
            "https://10.0.0.5:6443",
            "socks5://10.0.0.9:1080",
        ]
        assert [wide["parity-pull"][c] for c in ("MODE", *columns)] == [
            "Pull",
            "<none>",
            "<none>",
            "<none>",
            "",
            "<none>",
        ]
    finally:
        kubectl("delete", "clusters", "parity-east", "parity-pull")
