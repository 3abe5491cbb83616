"""A small HTTPS admission webhook server for tests: its own CA, a certificate for 127.0.0.1.

It runs in a thread (so synchronous tests driving kubectl and async tests driving the admission
code can both use it), answers `POST <path>` with the handler registered for that path, and keeps
every AdmissionReview it received. A handler gets the review's `request` and returns the fields of
the `response` (`allowed`, `status`, `warnings`, and `patch` as a list of JSON patch operations,
which is encoded and typed here), or raw bytes to send back as they are.
"""

from __future__ import annotations

import base64
import datetime
import http.server
import ipaddress
import json
import ssl
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

Handler = Callable[[dict[str, Any]], "dict[str, Any] | bytes"]


def _name(common_name: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)])


def make_certificates(directory: Path) -> tuple[Path, Path, bytes]:
    """A CA and a serving certificate for 127.0.0.1/localhost: (cert file, key file, CA PEM)."""
    now = datetime.datetime.now(datetime.UTC)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca = (
        x509.CertificateBuilder()
        .subject_name(_name("webhook-test-ca"))
        .issuer_name(_name("webhook-test-ca"))
        .public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=True,
                content_commitment=False,
                key_encipherment=False,
                data_encipherment=False,
                key_agreement=False,
                key_cert_sign=True,
                crl_sign=True,
                encipher_only=False,
                decipher_only=False,
            ),
            critical=True,
        )
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    key = ec.generate_private_key(ec.SECP256R1())
    serving = (
        x509.CertificateBuilder()
        .subject_name(_name("webhook"))
        .issuer_name(ca.subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(
            x509.SubjectAlternativeName(
                [x509.IPAddress(ipaddress.ip_address("127.0.0.1")), x509.DNSName("localhost")]
            ),
            critical=False,
        )
        .add_extension(x509.ExtendedKeyUsage([x509.oid.ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .add_extension(
            x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), critical=False
        )
        .sign(ca_key, hashes.SHA256())
    )
    cert_file, key_file = directory / "tls.crt", directory / "tls.key"
    cert_file.write_bytes(serving.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
    )
    return cert_file, key_file, ca.public_bytes(serialization.Encoding.PEM)


def response_body(review: dict[str, Any], answer: dict[str, Any] | bytes) -> bytes:
    """The AdmissionReview answering `review` with `answer`'s response fields."""
    if isinstance(answer, bytes):
        return answer
    response = {"uid": review["request"]["uid"], **answer}
    patch = response.get("patch")
    if isinstance(patch, list):
        response["patch"] = base64.b64encode(json.dumps(patch).encode()).decode()
        response.setdefault("patchType", "JSONPatch")
    return json.dumps(
        {"apiVersion": review.get("apiVersion"), "kind": "AdmissionReview", "response": response}
    ).encode()


class _QuietServer(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that gave up (a timeout test) is expected; keep the test output clean."""


class WebhookServer:
    """An HTTPS server on 127.0.0.1 answering AdmissionReviews; use as a context manager."""

    def __init__(self, handlers: dict[str, Handler]) -> None:
        self.handlers = dict(handlers)
        self.reviews: list[tuple[str, dict[str, Any]]] = []
        self._lock = threading.Lock()
        self._directory = tempfile.TemporaryDirectory(prefix="webhook-")
        cert_file, key_file, ca_pem = make_certificates(Path(self._directory.name))
        self.ca_bundle = base64.b64encode(ca_pem).decode()
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(cert_file, key_file)
        self._server = _QuietServer(("127.0.0.1", 0), self._handler_class())
        self._server.socket = context.wrap_socket(self._server.socket, server_side=True)
        self.port = self._server.server_address[1]
        self._thread = threading.Thread(
            target=self._server.serve_forever, args=(0.02,), name="webhook-server", daemon=True
        )

    def url(self, path: str) -> str:
        return f"https://127.0.0.1:{self.port}{path}"

    def received(self, path: str) -> list[dict[str, Any]]:
        """The `request` of every review posted to `path`, oldest first."""
        with self._lock:
            return [review["request"] for seen, review in self.reviews if seen == path]

    def _record(self, path: str, review: dict[str, Any]) -> None:
        with self._lock:
            self.reviews.append((path, review))

    def _handler_class(self) -> type[http.server.BaseHTTPRequestHandler]:
        server = self

        class AdmissionHandler(http.server.BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                path = self.path.split("?", 1)[0]
                review = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                server._record(path, review)
                handler = server.handlers.get(path)
                if handler is None:
                    self.send_response(404)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                body = response_body(review, handler(review["request"]))
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: Any) -> None:
                """Quiet: tests read the recorded reviews instead."""

        return AdmissionHandler

    def __enter__(self) -> WebhookServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)
        self._directory.cleanup()


def allow(request: dict[str, Any]) -> dict[str, Any]:
    return {"allowed": True}


def webhook_configuration(
    kind: str,
    name: str,
    webhooks: list[dict[str, Any]],
) -> dict[str, Any]:
    """A webhook configuration object of `kind` (`Mutating…` or `Validating…`)."""
    return {
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": kind,
        "metadata": {"name": name},
        "webhooks": webhooks,
    }


def webhook(
    name: str,
    url: str,
    ca_bundle: str,
    *,
    resources: tuple[str, ...] = ("configmaps",),
    operations: tuple[str, ...] = ("CREATE", "UPDATE"),
    **extra: Any,
) -> dict[str, Any]:
    """One webhook entry calling `url`, for core resources, with no side effects."""
    return {
        "name": name,
        "clientConfig": {"url": url, "caBundle": ca_bundle},
        "rules": [
            {
                "operations": list(operations),
                "apiGroups": [""],
                "apiVersions": ["v1"],
                "resources": list(resources),
            }
        ],
        "sideEffects": "None",
        "admissionReviewVersions": ["v1"],
        **extra,
    }
