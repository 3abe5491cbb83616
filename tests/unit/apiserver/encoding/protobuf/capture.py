"""Record real kubectl protobuf request bodies as golden files for the decoder tests.

A tool, not a test (the suite only reads its output in `golden/`). Run it by hand:

    .venv/bin/python tests/unit/apiserver/protobuf/capture.py

It starts a tiny recording API server on loopback (plain HTTP) that answers legacy discovery for
the resources the commands need, then runs each `kubectl create …` generator against it twice:

- for real: kubectl sends the object as `application/vnd.kubernetes.protobuf`; the body is saved
  as `golden/<case>.pb` and the server answers 201 with the object decoded by our own decoder;
- with `--dry-run=client -o json`: kubectl prints the same object as JSON without sending it; that
  output, Kubernetes' own JSON for the object, is saved as `golden/<case>.json`, the expectation.

Commands with no client dry-run (`auth can-i`, `auth whoami`, `create token`, `certificate approve`)
get only the `.pb`, and only when none exists yet: their `.json` expectations are written by hand
from the Go types' JSON tags, and a fresh body (e.g. a new approval time) would not match them.
Each run prints what our decoder makes of every body, so new expectations can be reviewed before
they are committed.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from flotilla.apiserver.encoding.protobuf import ProtobufError, decode_object

GOLDEN = Path(__file__).resolve().parent / "golden"
PROTOBUF = "application/vnd.kubernetes.protobuf"


@dataclass(frozen=True)
class Case:
    name: str
    args: tuple[str, ...]
    dry_run: bool = True


CASES = (
    Case(
        "configmap", ("create", "configmap", "settings", "--from-literal=mode=fast", "--from-literal=level=3")
    ),
    Case("configmap_binary", ("create", "configmap", "blobs", "--from-file=blob={binary_file}")),
    Case(
        "secret_generic",
        ("create", "secret", "generic", "creds", "--from-literal=password=hunter2", "--type=Opaque"),
    ),
    Case("namespace", ("create", "namespace", "team-a")),
    Case(
        "deployment",
        ("create", "deployment", "web", "--image=nginx:1.27", "--replicas=3", "--port=8080"),
    ),
    Case("deployment_zero_replicas", ("create", "deployment", "idle", "--image=busybox", "--replicas=0")),
    Case("job", ("create", "job", "once", "--image=busybox", "--", "echo", "hello")),
    Case(
        "cronjob",
        (
            "create",
            "cronjob",
            "tick",
            "--image=busybox",
            "--schedule=*/5 * * * *",
            "--restart=OnFailure",
            "--",
            "date",
        ),
    ),
    Case("serviceaccount", ("create", "serviceaccount", "builder")),
    Case(
        "role",
        (
            "create",
            "role",
            "reader",
            "--verb=get",
            "--verb=list",
            "--resource=pods",
            "--resource=deployments.apps",
        ),
    ),
    Case(
        "rolebinding",
        (
            "create",
            "rolebinding",
            "reader-binding",
            "--role=reader",
            "--user=alice",
            "--group=devs",
            "--serviceaccount=default:builder",
        ),
    ),
    Case(
        "clusterrole", ("create", "clusterrole", "node-reader", "--verb=get,list,watch", "--resource=nodes")
    ),
    Case(
        "clusterrole_aggregated",
        (
            "create",
            "clusterrole",
            "monitoring",
            "--aggregation-rule=rbac.example.com/aggregate-to-monitoring=true",
        ),
    ),
    Case(
        "clusterrolebinding",
        ("create", "clusterrolebinding", "node-reader-binding", "--clusterrole=node-reader", "--user=bob"),
    ),
    Case("service_clusterip", ("create", "service", "clusterip", "api", "--tcp=80:8080", "--tcp=443:8443")),
    Case("service_headless", ("create", "service", "clusterip", "db", "--clusterip=None", "--tcp=5432")),
    Case(
        "quota", ("create", "quota", "compute", "--hard=cpu=2,memory=1Gi,pods=10", "--scopes=NotBestEffort")
    ),
    Case(
        "priorityclass",
        (
            "create",
            "priorityclass",
            "urgent",
            "--value=1000",
            "--description=first in line",
            "--preemption-policy=Never",
        ),
    ),
    Case(
        "poddisruptionbudget",
        ("create", "poddisruptionbudget", "web-pdb", "--selector=app=web", "--min-available=50%"),
    ),
    Case(
        "poddisruptionbudget_max_unavailable",
        ("create", "poddisruptionbudget", "db-pdb", "--selector=app=db", "--max-unavailable=1"),
    ),
    Case(
        "ingress",
        (
            "create",
            "ingress",
            "front",
            "--class=nginx",
            "--rule=example.com/api*=api:80",
            "--rule=example.com/=web:http,tls=example-tls",
            "--annotation=team=web",
        ),
    ),
    Case(
        "token",
        ("create", "token", "builder", "--duration=1h", "--audience=https://kubernetes.default.svc"),
        dry_run=False,
    ),
    Case(
        "token_bound",
        (
            "create",
            "token",
            "builder",
            "--bound-object-kind=Secret",
            "--bound-object-name=builder-token",
            "--bound-object-uid=6f1c2a4e-0000-4000-8000-000000000001",
        ),
        dry_run=False,
    ),
    Case(
        "can_i_resource",
        ("auth", "can-i", "create", "deployments.apps", "--subresource=scale"),
        dry_run=False,
    ),
    Case("can_i_non_resource", ("auth", "can-i", "get", "/logs/kube.log"), dry_run=False),
    Case("can_i_named", ("auth", "can-i", "delete", "secret/creds", "--namespace=team-a"), dry_run=False),
    Case("whoami", ("auth", "whoami"), dry_run=False),
    Case("autoscale", ("autoscale", "deployment", "web", "--min=2", "--max=5", "--cpu-percent=80")),
    Case("certificate_approve", ("certificate", "approve", "csr-alice"), dry_run=False),
)

OBJECTS: dict[str, dict[str, Any]] = {
    "/apis/apps/v1/namespaces/default/deployments/web": {
        "kind": "Deployment",
        "apiVersion": "apps/v1",
        "metadata": {"name": "web", "namespace": "default", "uid": "3b0e4b8e-0000-4000-8000-00000000000a"},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": {"app": "web"}},
            "template": {
                "metadata": {"labels": {"app": "web"}},
                "spec": {"containers": [{"name": "nginx", "image": "nginx:1.27"}]},
            },
        },
    },
    "/apis/certificates.k8s.io/v1/certificatesigningrequests/csr-alice": {
        "kind": "CertificateSigningRequest",
        "apiVersion": "certificates.k8s.io/v1",
        "metadata": {
            "name": "csr-alice",
            "uid": "3b0e4b8e-0000-4000-8000-00000000000c",
            "resourceVersion": "7",
        },
        "spec": {
            "request": "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURSBSRVFVRVNULS0tLS0K",
            "signerName": "kubernetes.io/kube-apiserver-client",
            "expirationSeconds": 86400,
            "usages": ["digital signature", "key encipherment", "client auth"],
            "username": "alice",
            "groups": ["system:authenticated"],
            "extra": {"scopes": ["read", "write"]},
        },
        "status": {},
    },
}
"""Objects the recording server returns on GET, for commands that read before they write."""

_RESOURCES: dict[str, list[tuple[str, str, bool]]] = {
    "v1": [
        ("configmaps", "ConfigMap", True),
        ("secrets", "Secret", True),
        ("namespaces", "Namespace", False),
        ("serviceaccounts", "ServiceAccount", True),
        ("services", "Service", True),
        ("pods", "Pod", True),
        ("nodes", "Node", False),
        ("resourcequotas", "ResourceQuota", True),
    ],
    "apps/v1": [
        ("deployments", "Deployment", True),
        ("deployments/scale", "Scale", True),
        ("replicasets", "ReplicaSet", True),
    ],
    "autoscaling/v1": [("horizontalpodautoscalers", "HorizontalPodAutoscaler", True)],
    "certificates.k8s.io/v1": [("certificatesigningrequests", "CertificateSigningRequest", False)],
    "batch/v1": [("jobs", "Job", True), ("cronjobs", "CronJob", True)],
    "rbac.authorization.k8s.io/v1": [
        ("roles", "Role", True),
        ("rolebindings", "RoleBinding", True),
        ("clusterroles", "ClusterRole", False),
        ("clusterrolebindings", "ClusterRoleBinding", False),
    ],
    "policy/v1": [("poddisruptionbudgets", "PodDisruptionBudget", True)],
    "networking.k8s.io/v1": [("ingresses", "Ingress", True)],
    "scheduling.k8s.io/v1": [("priorityclasses", "PriorityClass", False)],
    "authorization.k8s.io/v1": [("selfsubjectaccessreviews", "SelfSubjectAccessReview", False)],
    "authentication.k8s.io/v1": [("selfsubjectreviews", "SelfSubjectReview", False)],
}


def _discovery(path: str) -> dict[str, Any] | None:
    if path == "/version":
        return {"major": "1", "minor": "32", "gitVersion": "v1.32.4", "platform": "linux/amd64"}
    if path == "/api":
        return {"kind": "APIVersions", "versions": ["v1"], "serverAddressByClientCIDRs": []}
    if path == "/apis":
        groups = []
        for group_version in _RESOURCES:
            if "/" in group_version:
                group, version = group_version.split("/")
                entry = {"groupVersion": group_version, "version": version}
                groups.append({"name": group, "versions": [entry], "preferredVersion": entry})
        return {"kind": "APIGroupList", "apiVersion": "v1", "groups": groups}
    group_version = path.removeprefix("/api/").removeprefix("/apis/")
    if group_version not in _RESOURCES:
        return None
    verbs = ["create", "delete", "get", "list", "patch", "update", "watch"]
    resources: list[dict[str, Any]] = [
        {"name": plural, "singularName": kind.lower(), "namespaced": namespaced, "kind": kind, "verbs": verbs}
        for plural, kind, namespaced in _RESOURCES[group_version]
    ]
    for resource in resources:
        if resource["kind"] == "Scale":  # autoscale looks for the scale subresource
            resource.update(
                group="autoscaling", version="v1", singularName="", verbs=["get", "patch", "update"]
            )
    return {
        "kind": "APIResourceList",
        "apiVersion": "v1",
        "groupVersion": group_version,
        "resources": resources,
    }


def _answer(decoded: dict[str, Any]) -> dict[str, Any]:
    """What the recording server returns for a create: the object, plus status where kubectl reads one."""
    kind = decoded.get("kind")
    if kind == "SelfSubjectAccessReview":
        decoded["status"] = {"allowed": True}
    elif kind == "SelfSubjectReview":
        decoded["status"] = {"userInfo": {"username": "admin", "groups": ["system:masters"]}}
    elif kind == "TokenRequest":
        decoded["status"] = {"token": "recorded", "expirationTimestamp": "2030-01-01T00:00:00Z"}
    return decoded


class _Recorder(BaseHTTPRequestHandler):
    bodies: list[bytes]

    def do_GET(self) -> None:
        path = self.path.split("?", 1)[0]
        document = _discovery(path) or OBJECTS.get(path)
        if document is None:
            self._reply(404, {"kind": "Status", "apiVersion": "v1", "status": "Failure", "code": 404})
        else:
            self._reply(200, document)

    def do_PATCH(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length", "0")))
        self._reply(200, OBJECTS.get(self.path.split("?", 1)[0], {}))

    def do_PUT(self) -> None:
        self.do_POST()

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        if self.headers.get("Content-Type") != PROTOBUF:
            print(f"not protobuf: {self.command} {self.path} {self.headers.get('Content-Type')}")
            self._reply(415, {"kind": "Status", "apiVersion": "v1", "status": "Failure", "code": 415})
            return
        self.bodies.append(body)
        try:
            self._reply(201, _answer(decode_object(body)))
        except ProtobufError as error:
            self._reply(
                400, {"kind": "Status", "apiVersion": "v1", "status": "Failure", "message": str(error)}
            )

    def _reply(self, code: int, document: dict[str, Any]) -> None:
        payload = json.dumps(document).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, format: str, *args: Any) -> None:
        """Keep the tool's output to its own report."""


def main() -> None:
    kubectl = shutil.which("kubectl")
    if kubectl is None:
        raise SystemExit("kubectl is not on PATH")
    GOLDEN.mkdir(exist_ok=True)
    bodies: list[bytes] = []
    handler = type("Recorder", (_Recorder,), {"bodies": bodies})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    with tempfile.TemporaryDirectory() as scratch:
        workdir = Path(scratch)
        kubeconfig = workdir / "kubeconfig"
        kubeconfig.write_text(_kubeconfig(server.server_address[1]))
        binary_file = workdir / "blob.bin"
        binary_file.write_bytes(bytes(range(256)))
        base = [kubectl, f"--kubeconfig={kubeconfig}", f"--cache-dir={workdir / 'cache'}"]
        for case in CASES:
            args = [argument.format(binary_file=binary_file) for argument in case.args]
            before = len(bodies)
            run = subprocess.run([*base, *args], check=False, capture_output=True, text=True, timeout=60)
            if len(bodies) != before + 1:
                print(f"{case.name}: expected one protobuf body, got {len(bodies) - before}: {run.stderr}")
                continue
            golden_body = GOLDEN / f"{case.name}.pb"
            if not case.dry_run and golden_body.exists():
                # Its expectation was checked by hand against this very body (times and all): keep both.
                print(f"{case.name}: kept the existing body; delete it to record a new one")
                continue
            golden_body.write_bytes(bodies[-1])
            if case.dry_run:
                dry = subprocess.run(
                    [*base, *_dry_run(args)], check=True, capture_output=True, text=True, timeout=60
                )
                (GOLDEN / f"{case.name}.json").write_text(
                    json.dumps(json.loads(dry.stdout), indent=2, ensure_ascii=False) + "\n"
                )
            print(f"{case.name}: {json.dumps(decode_object(bodies[-1]), ensure_ascii=False)}")
    server.shutdown()


def _dry_run(args: list[str]) -> list[str]:
    """The same command with `--dry-run=client -o json`, placed before any `--` command separator."""
    split = args.index("--") if "--" in args else len(args)
    return [*args[:split], "--dry-run=client", "-o", "json", *args[split:]]


def _kubeconfig(port: int) -> str:
    return json.dumps(
        {
            "apiVersion": "v1",
            "kind": "Config",
            "clusters": [{"name": "recorder", "cluster": {"server": f"http://127.0.0.1:{port}"}}],
            "users": [{"name": "recorder", "user": {"token": "recorder"}}],
            "contexts": [
                {
                    "name": "recorder",
                    "context": {"cluster": "recorder", "user": "recorder", "namespace": "default"},
                }
            ],
            "current-context": "recorder",
        }
    )


if __name__ == "__main__":
    main()
    sys.exit(0)
