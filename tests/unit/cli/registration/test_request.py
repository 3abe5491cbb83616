"""The agent's certificate request as `register` makes it, and reading the hub's answer."""

from __future__ import annotations

import base64

import pytest
from cryptography import x509

from flotilla.apiserver.certificates.approver import agent_request_problem
from flotilla.cli.registration.request import (
    RequestRefused,
    issued_certificate,
    new_agent_key,
    signing_request,
)


def test_the_agent_s_request_is_what_the_hub_s_approver_recognises() -> None:
    """Subject, no alternative names, usages: a Karmada agent request for this cluster."""
    key = new_agent_key("east")
    request = x509.load_pem_x509_csr(key.request_pem)
    assert request.subject.rfc4514_string() == "CN=system:karmada:agent:east,O=system:karmada:agents"
    csr = signing_request("east", key.request_pem, {"registration.flotilla.io/cluster-id": "id-1"})
    assert agent_request_problem(request, csr["spec"]["usages"]) == ""
    assert csr["spec"]["signerName"] == "kubernetes.io/kube-apiserver-client"
    assert base64.b64decode(csr["spec"]["request"]) == key.request_pem
    assert csr["metadata"]["generateName"] == "agent-east-"
    assert csr["metadata"]["annotations"] == {"registration.flotilla.io/cluster-id": "id-1"}


def test_the_request_s_outcome_is_read_from_its_status() -> None:
    """Pending: None; issued: the PEM; denied or failed: RequestRefused with reason and message."""
    assert issued_certificate({"status": {"conditions": [{"type": "Approved", "status": "True"}]}}) is None
    issued = {"status": {"certificate": base64.b64encode(b"PEM").decode()}}
    assert issued_certificate(issued) == b"PEM"
    denied = {
        "status": {"conditions": [{"type": "Denied", "status": "True", "reason": "R", "message": "taken"}]}
    }
    with pytest.raises(RequestRefused, match=r"denied the certificate request \(R\): taken"):
        issued_certificate(denied)
