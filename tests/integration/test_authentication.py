"""Authentication end to end: anonymous access, static, ServiceAccount and bootstrap tokens, cluster-info,
the audit log, and a fuzz test over credentials that must never produce a 5xx."""

from __future__ import annotations

import base64
import http.client
import json
import ssl
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
import yaml
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from flotilla.apiserver.authn.clusterinfo import verify_cluster_info
from flotilla.apiserver.pki import directory as pki
from tests.support.kubectl import Kubectl
from tests.support.processes import ServerProcess
from tests.support.waiting import eventually

TOKENS = 'alice-token-1234,alice,1001,"dev,ops"\nbob-token-5678,bob,1002\n'
BOOTSTRAP_ID, BOOTSTRAP_SECRET = "f1o7ll", "a0b1c2d3e4f5a6b7"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    directory = tmp_path_factory.mktemp("authn")
    (directory / "tokens.csv").write_text(TOKENS)
    process = ServerProcess(
        directory / "data",
        ["--token-auth-file", str(directory / "tokens.csv"), "--audit-level", "Request"],
    ).start()
    yield process
    code = process.stop()
    assert code == 0, f"apiserver did not shut down cleanly (exit {code}):\n{process.log()}"


@pytest.fixture(scope="module")
def admin(server: ServerProcess, tmp_path_factory: pytest.TempPathFactory) -> Kubectl:
    return Kubectl(server.kubeconfig, tmp_path_factory.mktemp("admin-cache"))


def token_kubectl(server: ServerProcess, token: str, directory: Path) -> Kubectl:
    """kubectl authenticating with a bearer token only (no client certificate)."""
    config = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [
            {
                "name": "hub",
                "cluster": {
                    "server": server.url,
                    "certificate-authority-data": base64.b64encode(
                        (server.data_dir / "pki" / "ca.crt").read_bytes()
                    ).decode(),
                },
            }
        ],
        "users": [{"name": "u", "user": {"token": token}}],
        "contexts": [{"name": "c", "context": {"cluster": "hub", "user": "u"}}],
        "current-context": "c",
    }
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"token-{uuid.uuid4().hex[:6]}.kubeconfig"
    path.write_text(yaml.safe_dump(config))
    return Kubectl(path, directory / "cache")


def tls(server: ServerProcess, cert: tuple[Path, Path] | None = None) -> ssl.SSLContext:
    context = ssl.create_default_context(cafile=str(server.data_dir / "pki" / "ca.crt"))
    if cert is not None:
        context.load_cert_chain(str(cert[0]), str(cert[1]))
    return context


def send(
    server: ServerProcess,
    path: str,
    *,
    context: ssl.SSLContext | None = None,
    headers: dict[str, str] | None = None,
    method: str = "GET",
) -> tuple[int, Any]:
    url = urlsplit(server.url)
    connection = http.client.HTTPSConnection(
        url.hostname or "", url.port, context=context or tls(server), timeout=30
    )
    try:
        connection.request(method, path, headers=headers or {})
        response = connection.getresponse()
        raw = response.read()
    finally:
        connection.close()
    try:
        return response.status, json.loads(raw)
    except ValueError:
        return response.status, raw.decode(errors="replace")


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def grant(admin: Kubectl, name: str, *subject: str) -> None:
    """Bind cluster-admin (works whether the authorizer is RBAC or authenticated-only)."""
    admin.run("create", "clusterrolebinding", name, "--clusterrole=cluster-admin", *subject, check=False)


def audit_lines(server: ServerProcess) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (server.data_dir / "audit.log").read_text().splitlines() if line]


# -- anonymous ----------------------------------------------------------------------------------------


def test_anonymous_requests_get_401_except_health_version_and_cluster_info(server: ServerProcess) -> None:
    """Without credentials the API is 401; /healthz, /version and cluster-info answer 200."""
    status, body = send(server, "/api/v1/namespaces")
    assert status == 401 and body["reason"] == "Unauthorized" and body["message"] == "Unauthorized"
    assert send(server, "/healthz") == (200, "ok")
    assert send(server, "/version")[0] == 200
    status, cluster_info = send(server, "/api/v1/namespaces/kube-public/configmaps/cluster-info")
    assert status == 200 and "kubeconfig" in cluster_info["data"]
    assert send(server, "/api/v1/namespaces/kube-public/configmaps")[0] == 401


def test_a_bad_token_is_401_but_a_non_bearer_header_is_anonymous(server: ServerProcess) -> None:
    """An unknown bearer token never falls back to anonymous; Basic credentials are ignored."""
    status, _ = send(server, "/api/v1/namespaces/kube-public/configmaps/cluster-info", headers=bearer("nope"))
    assert status == 401
    status, _ = send(
        server,
        "/api/v1/namespaces/kube-public/configmaps/cluster-info",
        headers={"Authorization": "Basic eDp5"},
    )
    assert status == 200


def test_a_valid_client_certificate_wins_over_a_bad_token(server: ServerProcess) -> None:
    """As in kube's union, a verified certificate authenticates even beside an invalid token."""
    pki_dir = server.data_dir / "pki"
    context = tls(server, (pki_dir / "admin.crt", pki_dir / "admin.key"))
    assert send(server, "/api/v1/namespaces", context=context, headers=bearer("nope"))[0] == 200


# -- static tokens ------------------------------------------------------------------------------------


def test_a_static_token_user_works_with_kubectl(
    server: ServerProcess, admin: Kubectl, tmp_path: Path
) -> None:
    """kubectl with alice's token lists namespaces; the audit log names alice and her groups."""
    grant(admin, "alice-admin", "--user=alice")
    alice = token_kubectl(server, "alice-token-1234", tmp_path)
    assert "kube-public" in alice("get", "namespaces", "-o", "name")
    entry = eventually(lambda: [e for e in audit_lines(server) if e["user"].get("username") == "alice"])[-1]
    assert entry["user"]["groups"] == ["dev", "ops", "system:authenticated"]
    bad = token_kubectl(server, "alice-token-9999", tmp_path).run("get", "namespaces", check=False)
    assert bad.returncode != 0 and "Unauthorized" in bad.stderr


# -- ServiceAccount tokens ----------------------------------------------------------------------------


def test_kubectl_create_token_gives_a_working_token_revoked_with_its_account(
    server: ServerProcess, admin: Kubectl, tmp_path: Path
) -> None:
    """A token from `kubectl create token --duration=10m` works until the ServiceAccount is deleted."""
    admin("create", "serviceaccount", "robot", "-n", "default")
    grant(admin, "robot-admin", "--serviceaccount=default:robot")
    token = admin("create", "token", "robot", "-n", "default", "--duration=10m").strip()
    header, payload, _ = token.split(".")
    claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    assert claims["sub"] == "system:serviceaccount:default:robot"
    assert claims["exp"] - claims["iat"] == 600
    assert json.loads(base64.urlsafe_b64decode(header + "=" * (-len(header) % 4)))["alg"] == "ES256"
    robot = token_kubectl(server, token, tmp_path)
    assert "default" in robot("get", "namespaces", "-o", "name")
    foreign = admin("create", "token", "robot", "-n", "default", "--audience=vault").strip()
    assert send(server, "/api/v1/namespaces", headers=bearer(foreign))[0] == 401
    tampered = token[:-4] + ("AAAA" if not token.endswith("AAAA") else "BBBB")
    assert send(server, "/api/v1/namespaces", headers=bearer(tampered))[0] == 401
    admin("delete", "serviceaccount", "robot", "-n", "default")
    assert send(server, "/api/v1/namespaces", headers=bearer(token))[0] == 401


def test_token_requests_below_ten_minutes_are_refused(admin: Kubectl) -> None:
    """kubectl create token --duration=1m fails with kube's validation message."""
    admin("create", "serviceaccount", "short", "-n", "default")
    result = admin.run("create", "token", "short", "-n", "default", "--duration=1m", check=False)
    assert result.returncode != 0
    assert "may not specify a duration less than 10 minutes" in result.stderr


# -- bootstrap tokens and cluster-info ----------------------------------------------------------------


def bootstrap_secret(token_id: str, secret: str, expiration: datetime) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Secret",
        "type": "bootstrap.kubernetes.io/token",
        "metadata": {"name": f"bootstrap-token-{token_id}", "namespace": "kube-system"},
        "stringData": {
            "token-id": token_id,
            "token-secret": secret,
            "expiration": expiration.strftime("%Y-%m-%dT%H:%M:%SZ"),
            "usage-bootstrap-authentication": "true",
            "usage-bootstrap-signing": "true",
            "auth-extra-groups": "system:bootstrappers:flotilla:agents",
        },
    }


def test_bootstrap_tokens_authenticate_until_deleted_and_sign_cluster_info(
    server: ServerProcess, admin: Kubectl
) -> None:
    """A bootstrap token is system:bootstrap:<id>, signs cluster-info, and stops working once deleted."""
    grant(admin, "bootstrappers-admin", "--group=system:bootstrappers:flotilla:agents")
    token = f"{BOOTSTRAP_ID}.{BOOTSTRAP_SECRET}"
    admin.apply_yaml(bootstrap_secret(BOOTSTRAP_ID, BOOTSTRAP_SECRET, datetime.now(UTC) + timedelta(hours=1)))
    assert send(server, "/api/v1/namespaces", headers=bearer(token))[0] == 200
    entry = eventually(
        lambda: [
            e for e in audit_lines(server) if e["user"].get("username") == f"system:bootstrap:{BOOTSTRAP_ID}"
        ]
    )[-1]
    assert entry["user"]["groups"] == [
        "system:bootstrappers",
        "system:bootstrappers:flotilla:agents",
        "system:authenticated",
    ]

    def signed() -> dict[str, str] | None:
        _, found = send(server, "/api/v1/namespaces/kube-public/configmaps/cluster-info")
        data: dict[str, str] = found["data"]
        return data if f"jws-kubeconfig-{BOOTSTRAP_ID}" in data else None

    kubeconfig = yaml.safe_load(verify_cluster_info(eventually(signed), BOOTSTRAP_ID, BOOTSTRAP_SECRET))
    cluster = kubeconfig["clusters"][0]["cluster"]
    assert cluster["server"] == server.url
    assert (
        base64.b64decode(cluster["certificate-authority-data"])
        == (server.data_dir / "pki" / "ca.crt").read_bytes()
    )

    admin("delete", "secret", f"bootstrap-token-{BOOTSTRAP_ID}", "-n", "kube-system")
    assert send(server, "/api/v1/namespaces", headers=bearer(token))[0] == 401
    eventually(lambda: signed() is None)


def test_an_expired_bootstrap_token_is_refused(server: ServerProcess, admin: Kubectl) -> None:
    """A token past its expiration is 401 (and its Secret is cleaned up)."""
    admin.apply_yaml(bootstrap_secret("old000", "0123456789abcdef", datetime.now(UTC) - timedelta(minutes=1)))
    assert send(server, "/api/v1/namespaces", headers=bearer("old000.0123456789abcdef"))[0] == 401
    eventually(
        lambda: (
            admin.run("get", "secret", "bootstrap-token-old000", "-n", "kube-system", check=False).returncode
            != 0
        )
    )


# -- audit --------------------------------------------------------------------------------------------


def test_audit_lines_carry_the_request_and_never_secret_bodies(server: ServerProcess, admin: Kubectl) -> None:
    """Each request is one line with user, verb, objectRef, code; Request level logs bodies but a Secret's."""
    admin("create", "configmap", "audited", "-n", "default", "--from-literal=k=v")
    admin("create", "secret", "generic", "hidden", "-n", "default", "--from-literal=password=hunter2")
    lines = audit_lines(server)
    created = [
        e for e in lines if e.get("objectRef", {}).get("resource") == "configmaps" and e["verb"] == "create"
    ]
    entry = created[-1]
    assert entry["user"]["username"] == "kubernetes-admin"
    assert entry["objectRef"] == {"resource": "configmaps", "namespace": "default", "apiVersion": "v1"}
    assert entry["responseStatus"]["code"] == 201
    assert entry["level"] == "Request" and entry["requestObject"]["data"] == {"k": "v"}
    assert entry["requestURI"].startswith("/api/v1/namespaces/default/configmaps")
    assert entry["latency"].endswith("ms") and entry["stageTimestamp"] >= entry["requestReceivedTimestamp"]
    secrets = [
        e for e in lines if e.get("objectRef", {}).get("resource") == "secrets" and e["verb"] == "create"
    ]
    assert secrets and all("requestObject" not in e for e in secrets)
    assert "hunter2" not in (server.data_dir / "audit.log").read_text()
    unauthorized = [e for e in lines if e["responseStatus"]["code"] == 401]
    assert unauthorized and unauthorized[0]["user"]["username"] == "system:anonymous"


# -- fuzz ---------------------------------------------------------------------------------------------

HEADER_TEXT = st.text(alphabet=st.characters(min_codepoint=0x20, max_codepoint=0x7E), max_size=200)
B64URL = st.text(alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_", max_size=120)


def jwt_like() -> st.SearchStrategy[str]:
    def encode(value: Any) -> str:
        return base64.urlsafe_b64encode(json.dumps(value).encode()).rstrip(b"=").decode()

    claims = st.fixed_dictionaries(
        {"iss": st.sampled_from(["https://kubernetes.default.svc.cluster.local", "x"])},
        optional={
            "aud": st.one_of(st.text(max_size=10), st.lists(st.text(max_size=10), max_size=3), st.integers()),
            "exp": st.one_of(st.integers(), st.floats(allow_nan=False), st.text(max_size=5), st.none()),
            "kubernetes.io": st.one_of(
                st.none(),
                st.text(max_size=5),
                st.fixed_dictionaries(
                    {},
                    optional={
                        "namespace": st.one_of(st.text(max_size=8), st.integers()),
                        "serviceaccount": st.one_of(
                            st.none(),
                            st.fixed_dictionaries({"name": st.text(max_size=8), "uid": st.text(max_size=8)}),
                        ),
                    },
                ),
            ),
        },
    )
    header = st.fixed_dictionaries(
        {"alg": st.sampled_from(["ES256", "RS256", "HS256", "none", ""])},
        optional={"kid": st.text(max_size=10)},
    )
    return st.builds(
        lambda h, c, sig: f"{encode(h)}.{encode(c)}.{sig}",
        header,
        claims,
        B64URL,
    )


AUTHORIZATION = st.one_of(
    HEADER_TEXT,
    st.builds(lambda t: f"Bearer {t}", HEADER_TEXT),
    st.builds(lambda t: f"bearer  {t}", B64URL),
    st.builds(lambda t: f"Bearer {t}", jwt_like()),
    st.builds(
        lambda i, s: f"Bearer {i}.{s}",
        st.text(alphabet="abcdef0123456789", min_size=6, max_size=6),
        st.text(alphabet="abcdef0123456789", min_size=16, max_size=16),
    ),
)
NAME_TEXT = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=40)


def client_certificate(
    directory: Path, signed_by_ca: bool, common_name: str, groups: list[str], ca: Path
) -> tuple[Path, Path]:
    """A certificate with a random subject, signed by the server's CA or by a stranger."""
    key = ec.generate_private_key(ec.SECP256R1())
    now = datetime.now(UTC)
    attributes = [x509.NameAttribute(NameOID.ORGANIZATION_NAME, g) for g in groups if g]
    if common_name:
        attributes.append(x509.NameAttribute(NameOID.COMMON_NAME, common_name))
    subject = x509.Name(attributes)
    if signed_by_ca:
        ca_cert = x509.load_pem_x509_certificate((ca / "ca.crt").read_bytes())
        ca_key = serialization.load_pem_private_key((ca / "ca.key").read_bytes(), password=None)
        assert isinstance(ca_key, ec.EllipticCurvePrivateKey)
        cert, key = pki.issue(ca_cert, ca_key, subject, now=now, client=True, key=key)
    else:
        cert = (
            x509.CertificateBuilder()
            .subject_name(subject)
            .issuer_name(subject)
            .public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - timedelta(minutes=1))
            .not_valid_after(now + timedelta(hours=1))
            .sign(key, hashes.SHA256())
        )
    name = uuid.uuid4().hex[:8]
    cert_path, key_path = directory / f"{name}.crt", directory / f"{name}.key"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
    )
    return cert_path, key_path


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    authorization=st.one_of(st.none(), AUTHORIZATION),
    certificate=st.one_of(st.none(), st.tuples(st.booleans(), NAME_TEXT, st.lists(NAME_TEXT, max_size=3))),
    path=st.sampled_from(
        ["/api/v1/namespaces", "/api/v1/namespaces/kube-public/configmaps/cluster-info", "/healthz", "/apis"]
    ),
)
def test_no_credentials_ever_cause_a_server_error(
    server: ServerProcess,
    tmp_path_factory: pytest.TempPathFactory,
    authorization: str | None,
    certificate: tuple[bool, str, list[str]] | None,
    path: str,
) -> None:
    """Random Authorization headers, tokens and client certificates get 2xx/4xx or a refused handshake."""
    context = tls(server)
    if certificate is not None:
        signed, common_name, groups = certificate
        try:
            pair = client_certificate(
                tmp_path_factory.mktemp("certs", numbered=True),
                signed,
                common_name,
                groups,
                server.data_dir / "pki",
            )
        except ValueError:
            return  # a subject the certificate library itself refuses to encode
        context.load_cert_chain(str(pair[0]), str(pair[1]))
    headers = {"Authorization": authorization} if authorization is not None else {}
    try:
        status, body = send(server, path, context=context, headers=headers)
    except (ssl.SSLError, ConnectionError):
        assert certificate is not None and not certificate[0], "only strangers' certificates may fail TLS"
        return
    assert status < 500, f"{status}: {body}"
