"""RBAC against a real server with the system kubectl: a user bound to a namespaced Role, and the defaults."""

from __future__ import annotations

import json
import ssl
import urllib.error
import urllib.request
from datetime import UTC, datetime
from pathlib import Path

import pytest
import yaml
from cryptography import x509
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from flotilla.apiserver.pki import directory as pki
from tests.support.kubectl import Kubectl
from tests.support.processes import ServerProcess

POD_READER = """
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: pod-reader, namespace: a}
rules:
- {apiGroups: [""], resources: [pods], verbs: [get, list, watch]}
- {apiGroups: [rbac.authorization.k8s.io], resources: [roles], verbs: [create]}
- {apiGroups: [""], resources: [configmaps], resourceNames: [mine], verbs: [get, list, watch]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: jane-reads-pods, namespace: a}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: pod-reader}
subjects:
- {apiGroup: rbac.authorization.k8s.io, kind: User, name: jane}
"""


def user_kubeconfig(server: ServerProcess, name: str, target: Path) -> Path:
    """A kubeconfig for a client certificate of `name`, signed by the server's CA."""
    paths = pki.PKIPaths(server.data_dir / "pki")
    ca_cert = x509.load_pem_x509_certificate(paths.ca_cert.read_bytes())
    ca_key = serialization.load_pem_private_key(paths.ca_key.read_bytes(), password=None)
    assert isinstance(ca_key, ec.EllipticCurvePrivateKey)
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
    cert, key = pki.issue(ca_cert, ca_key, subject, now=datetime.now(UTC), client=True)
    config = pki.kubeconfig(
        server.url,
        paths.ca_cert.read_bytes(),
        cert.public_bytes(serialization.Encoding.PEM),
        key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        ),
        cluster="flotilla",
        user=name,
    )
    target.write_text(yaml.safe_dump(config))
    return target


@pytest.fixture(scope="module")
def jane_config(server: ServerProcess, tmp_path_factory: pytest.TempPathFactory) -> Path:
    admin = Kubectl(server.kubeconfig, tmp_path_factory.mktemp("admin-cache"))
    admin("create", "namespace", "a")
    admin("create", "namespace", "b")
    admin("apply", "-f", "-", input=POD_READER)
    return user_kubeconfig(server, "jane", tmp_path_factory.mktemp("jane") / "kubeconfig")


@pytest.fixture
def jane(jane_config: Path, tmp_path: Path) -> Kubectl:
    return Kubectl(jane_config, tmp_path / "jane-cache")


def test_a_user_bound_to_a_role_lists_pods_there_and_is_forbidden_elsewhere(jane: Kubectl) -> None:
    """jane reads pods in a; in b she gets kube's 403 message, word for word."""
    allowed = jane.run("get", "pods", "-n", "a")
    assert allowed.returncode == 0
    assert "No resources found in a namespace." in allowed.stderr
    refused = jane.run("get", "pods", "-n", "b", check=False)
    assert refused.returncode == 1
    assert (
        'Error from server (Forbidden): pods is forbidden: User "jane" cannot list resource "pods" '
        'in API group "" in the namespace "b"'
    ) in refused.stderr


def test_a_name_field_selector_authorizes_a_list_as_a_read_of_that_object(jane: Kubectl) -> None:
    """With get/list/watch on one ConfigMap by name, jane lists it by `metadata.name`, not the rest."""
    pinned = jane.run("get", "configmaps", "-n", "a", "--field-selector", "metadata.name=mine")
    assert pinned.returncode == 0, pinned.stderr
    watched = jane.run(
        "get",
        "configmaps",
        "-n",
        "a",
        "--field-selector",
        "metadata.name=mine",
        "--watch-only",
        "--request-timeout",
        "1s",
        check=False,
    )
    assert "Forbidden" not in watched.stderr
    everything = jane.run("get", "configmaps", "-n", "a", check=False)
    assert everything.returncode == 1
    assert 'cannot list resource "configmaps"' in everything.stderr
    other = jane.run("get", "configmaps", "-n", "a", "--field-selector", "metadata.name=theirs", check=False)
    assert 'configmaps "theirs" is forbidden' in other.stderr


def test_auth_can_i_answers_yes_where_bound_and_no_elsewhere(jane: Kubectl) -> None:
    """`kubectl auth can-i` prints yes (exit 0) or no (exit 1)."""
    yes = jane.run("auth", "can-i", "list", "pods", "-n", "a")
    assert (yes.returncode, yes.stdout.strip()) == (0, "yes")
    no = jane.run("auth", "can-i", "list", "pods", "-n", "b", check=False)
    assert (no.returncode, no.stdout.strip()) == (1, "no")
    no = jane.run("auth", "can-i", "delete", "pods", "-n", "a", check=False)
    assert no.stdout.strip() == "no"


def test_auth_whoami_prints_the_user_and_groups(jane: Kubectl) -> None:
    """The SelfSubjectReview shows jane and the group every authenticated user gets."""
    out = jane("auth", "whoami")
    rows = {line.split()[0]: line.split(None, 1)[1].strip() for line in out.splitlines()[1:] if line.strip()}
    assert rows["Username"] == "jane"
    assert rows["Groups"] == "[system:authenticated]"


def test_a_user_without_escalate_cannot_create_a_role_granting_more_than_they_hold(jane: Kubectl) -> None:
    """A role within jane's permissions is created; one that deletes pods is refused with kube's reason."""
    jane("create", "role", "viewer", "--verb=get,list", "--resource=pods", "-n", "a")
    refused = jane.run(
        "create", "role", "deleter", "--verb=delete", "--resource=pods", "-n", "a", check=False
    )
    assert refused.returncode == 1
    assert (
        'roles.rbac.authorization.k8s.io "deleter" is forbidden: '
        'user "jane" (groups=["system:authenticated"]) '
        "is attempting to grant RBAC permissions not currently held:\n"
        '{APIGroups:[""], Resources:["pods"], Verbs:["delete"]}'
    ) in refused.stderr


def test_default_roles_exist(kubectl: Kubectl) -> None:
    """admin, edit and view exist, and view has its aggregated rules."""
    out = kubectl("get", "clusterrole", "admin", "edit", "view")
    assert [line.split()[0] for line in out.splitlines()[1:]] == ["admin", "edit", "view"]
    view = json.loads(kubectl("get", "clusterrole", "view", "-o", "json"))
    assert any("pods" in rule.get("resources", []) for rule in view["rules"])


def test_anonymous_requests_reach_only_health_version_and_cluster_info(server: ServerProcess) -> None:
    """Without a certificate: 401 for the API, while health and cluster-info are authorized."""
    anonymous = ssl.create_default_context(cafile=str(server.data_dir / "pki" / "ca.crt"))

    def status(path: str) -> int:
        try:
            with urllib.request.urlopen(f"{server.url}{path}", context=anonymous, timeout=10) as response:
                return int(response.status)
        except urllib.error.HTTPError as error:
            return error.code

    assert status("/api") == 401
    assert status("/api/v1/namespaces/kube-public/configmaps") == 401
    assert status("/healthz") == 200
    assert status("/version") == 200
    # Allowed through kubeadm's Role: found (200) once the ConfigMap is published, 404 before.
    assert status("/api/v1/namespaces/kube-public/configmaps/cluster-info") in (200, 404)


def test_the_python_client_reads_jane_s_rules_and_access_reviews(jane_config: Path) -> None:
    """The official client's typed review calls (JSON bodies) get the created review back with status."""
    from kubernetes import client, config

    configuration = client.Configuration()
    config.load_kube_config(config_file=str(jane_config), client_configuration=configuration)
    with client.ApiClient(configuration) as api:
        authorization = client.AuthorizationV1Api(api)
        rules = authorization.create_self_subject_rules_review(
            client.V1SelfSubjectRulesReview(spec=client.V1SelfSubjectRulesReviewSpec(namespace="a"))
        )
        assert any("pods" in rule.resources and "list" in rule.verbs for rule in rules.status.resource_rules)
        review = authorization.create_self_subject_access_review(
            client.V1SelfSubjectAccessReview(
                spec=client.V1SelfSubjectAccessReviewSpec(
                    resource_attributes=client.V1ResourceAttributes(
                        verb="watch", resource="pods", namespace="a"
                    )
                )
            )
        )
        assert review.status.allowed is True
        assert review.status.reason.startswith('RBAC: allowed by RoleBinding "jane-reads-pods/a"')
