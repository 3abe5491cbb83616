"""What `flotilla up` prints once Ready, and the nginx walkthrough it writes."""

from __future__ import annotations

from pathlib import Path

import yaml

from flotilla.cli.localhub.guide import nginx_example, shown, summary


def test_the_nginx_example_divides_two_replicas_over_the_first_two_members() -> None:
    """The walkthrough targets two running members with equal static weights."""
    deployment, policy = yaml.safe_load_all(nginx_example(["member1", "member2", "member3"]))
    assert deployment["kind"] == "Deployment" and deployment["spec"]["replicas"] == 2
    placement = policy["spec"]["placement"]
    assert placement["clusterAffinity"]["clusterNames"] == ["member1", "member2"]
    weights = placement["replicaScheduling"]["weightPreference"]["staticWeightList"]
    assert [(w["targetCluster"]["clusterNames"], w["weight"]) for w in weights] == [
        (["member1"], 1),
        (["member2"], 1),
    ]
    assert policy["spec"]["resourceSelectors"] == [
        {"apiVersion": "apps/v1", "kind": "Deployment", "name": "nginx"}
    ]


def test_the_nginx_example_with_one_member_targets_only_that_member() -> None:
    """With a single member the policy names no cluster that does not exist."""
    _, policy = yaml.safe_load_all(nginx_example(["solo"]))
    assert policy["spec"]["placement"]["clusterAffinity"]["clusterNames"] == ["solo"]


def test_paths_below_the_working_directory_are_shown_relative() -> None:
    """Paths are shown as the user would type them from where they ran `up`."""
    assert shown(Path("/home/u/project/.flotilla/hub.kubeconfig"), Path("/home/u/project")) == (
        ".flotilla/hub.kubeconfig"
    )
    assert shown(Path("/tmp/demo/hub.kubeconfig"), Path("/home/u")) == "/tmp/demo/hub.kubeconfig"


def test_the_summary_exports_an_absolute_kubeconfig_and_lists_every_member() -> None:
    """KUBECONFIG must work from any directory; every member's kubeconfig is listed."""
    lines = summary(
        data_dir=Path("/p/.flotilla"),
        cwd=Path("/p"),
        members=["member1", "member2"],
        hub_url="https://127.0.0.1:6443",
        elapsed=4.25,
    )
    text = "\n".join(lines)
    assert "export KUBECONFIG=/p/.flotilla/hub.kubeconfig" in text
    assert ".flotilla/members/member1.kubeconfig" in text and ".flotilla/members/member2.kubeconfig" in text
    assert "kubectl apply -f .flotilla/examples/nginx.yaml" in text
    assert "2 member cluster(s) Ready in 4.2s" in text or "2 member cluster(s) Ready in 4.3s" in text
    assert "flotilla down --data-dir .flotilla" in text


def test_the_ha_summary_names_every_api_server_and_etcd() -> None:
    """With --ha the summary lists both API servers, how verbs fail over, and how to reach etcd."""
    lines = summary(
        data_dir=Path("/p/.flotilla"),
        cwd=Path("/p"),
        members=["member1"],
        hub_url="https://127.0.0.1:6443",
        elapsed=1.0,
        apiserver_urls=["https://127.0.0.1:6443", "https://127.0.0.1:6444"],
        etcd_endpoints="https://127.0.0.1:2379,https://127.0.0.1:2389",
    )
    text = "\n".join(lines)
    assert "https://127.0.0.1:6443, https://127.0.0.1:6444" in text
    assert "export FLOTILLA_HUB_ENDPOINTS=https://127.0.0.1:6444" in text
    assert "https://127.0.0.1:2379,https://127.0.0.1:2389" in text
    assert ". .flotilla/etcd/etcdctl.env; etcdctl member list" in text
