"""What `flotilla up` tells the user once everything is Ready: where things are and what to try first.

The first thing to try is Karmada's own quick start: an nginx Deployment of two replicas and a
PropagationPolicy that divides it 1:1 over two members, after which `kubectl get deployment nginx`
on the hub shows `2/2` — the status gathered back from the members. `up` writes those manifests to
`DIR/examples/nginx.yaml` (naming the first two members actually running) so the printed command
works as it is. Everything here is pure text.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import yaml

NGINX_EXAMPLE = Path("examples") / "nginx.yaml"


def nginx_example(members: Sequence[str]) -> str:
    """The nginx Deployment and its PropagationPolicy, split 1:1 over the first two `members`."""
    targets = list(members[:2])
    deployment: dict[str, Any] = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "nginx", "labels": {"app": "nginx"}},
        "spec": {
            "replicas": 2,
            "selector": {"matchLabels": {"app": "nginx"}},
            "template": {
                "metadata": {"labels": {"app": "nginx"}},
                "spec": {"containers": [{"name": "nginx", "image": "nginx"}]},
            },
        },
    }
    policy: dict[str, Any] = {
        "apiVersion": "policy.karmada.io/v1alpha1",
        "kind": "PropagationPolicy",
        "metadata": {"name": "nginx-propagation"},
        "spec": {
            "resourceSelectors": [{"apiVersion": "apps/v1", "kind": "Deployment", "name": "nginx"}],
            "placement": {
                "clusterAffinity": {"clusterNames": targets},
                "replicaScheduling": {
                    "replicaSchedulingType": "Divided",
                    "replicaDivisionPreference": "Weighted",
                    "weightPreference": {
                        "staticWeightList": [
                            {"targetCluster": {"clusterNames": [name]}, "weight": 1} for name in targets
                        ]
                    },
                },
            },
        },
    }
    header = f"# nginx with 2 replicas, divided 1:1 over {' and '.join(targets)} (written by flotilla up)\n"
    return header + yaml.safe_dump_all([deployment, policy], sort_keys=False)


def shown(path: Path, cwd: Path) -> str:
    """`path` as the user would type it: relative to the working directory when it lies below it."""
    try:
        return str(path.relative_to(cwd))
    except ValueError:
        return str(path)


def summary(
    *,
    data_dir: Path,
    cwd: Path,
    members: Sequence[str],
    hub_url: str,
    elapsed: float,
    command: str = "flotilla",
    apiserver_urls: Sequence[str] = (),
    etcd_endpoints: str = "",
    dashboard_sign_in: str = "",
) -> list[str]:
    """The lines printed once every member is Ready: files, next steps, how to stop.

    With `--ha`, `apiserver_urls` lists every API server (the hub kubeconfig names the first) and
    `etcd_endpoints` the etcd members' client URLs.
    """
    hub_kubeconfig = data_dir / "hub.kubeconfig"
    targets = " and ".join(members[:2])
    data = shown(data_dir, cwd)
    lines = [
        "",
        f"Flotilla is up: hub {hub_url} with {len(members)} member cluster(s) Ready in {elapsed:.1f}s.",
        "",
        f"  hub kubeconfig      {shown(hub_kubeconfig, cwd)}",
    ]
    if len(apiserver_urls) > 1:
        lines.append(f"  API servers         {', '.join(apiserver_urls)} (the kubeconfig names the first)")
        others = ",".join(apiserver_urls[1:])
        lines.append(f"  failover            export FLOTILLA_HUB_ENDPOINTS={others}   # for flotilla verbs")
    if etcd_endpoints:
        lines.append(f"  etcd                {etcd_endpoints}")
        lines.append(
            f"  etcdctl             . {shown(data_dir / 'etcd' / 'etcdctl.env', cwd)}; etcdctl member list"
        )
    for index, name in enumerate(members):
        label = "member kubeconfigs" if index == 0 else ""
        lines.append(f"  {label:<18}  {shown(data_dir / 'members' / f'{name}.kubeconfig', cwd)}")
    lines += [
        f"  logs                {shown(data_dir / 'logs', cwd)}/",
        "",
        "Next steps:",
        f"  export KUBECONFIG={hub_kubeconfig}",
        "  kubectl get clusters",
        f"  kubectl apply -f {shown(data_dir / NGINX_EXAMPLE, cwd)}   # nginx, 2 replicas over {targets}",
        "  kubectl get deployment nginx        # READY 2/2 once the members run their replicas",
        f"  kubectl --kubeconfig {shown(data_dir / 'members' / f'{members[0]}.kubeconfig', cwd)} get pods",
    ]
    if dashboard_sign_in:
        lines.append(f"  open {dashboard_sign_in}   # the dashboard, signed in as the hub's admin")
    lines += [
        "",
        f"Ctrl-C stops everything (or `{command} down --data-dir {data}` from another terminal).",
    ]
    return lines
