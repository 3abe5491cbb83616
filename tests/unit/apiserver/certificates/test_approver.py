"""Which requests are Karmada agent certificate requests, and who is entitled to have them approved."""

from __future__ import annotations

import pytest
from cryptography import x509

from flotilla.apiserver.certificates.approver import agent_request_problem, is_bootstrapper
from flotilla.apiserver.users import UserInfo
from tests.unit.apiserver.certificates.requests import AGENT_USAGES, certificate_request

AGENTS = ("system:karmada:agents",)
CASES = [
    ("the agent", certificate_request("system:karmada:agent:m1", AGENTS), AGENT_USAGES, ""),
    (
        "without key encipherment",
        certificate_request("system:karmada:agent:m1", AGENTS),
        ["digital signature", "client auth"],
        "",
    ),
    (
        "another organization",
        certificate_request("system:karmada:agent:m1", ("system:masters",)),
        AGENT_USAGES,
        "subject organization is not system:karmada:agents",
    ),
    (
        "two organizations",
        certificate_request("system:karmada:agent:m1", (*AGENTS, "dev")),
        AGENT_USAGES,
        "subject organization is not system:karmada:agents",
    ),
    (
        "another name",
        certificate_request("bob", AGENTS),
        AGENT_USAGES,
        "subject common name does not begin with system:karmada:agent: prefix",
    ),
    (
        "a DNS name",
        certificate_request("system:karmada:agent:m1", AGENTS, dns_names=("evil.example",)),
        AGENT_USAGES,
        "DNS subjectAltNames are not allowed",
    ),
    (
        "an IP address",
        certificate_request("system:karmada:agent:m1", AGENTS, ips=("10.0.0.1",)),
        AGENT_USAGES,
        "IP subjectAltNames are not allowed",
    ),
    (
        "server auth",
        certificate_request("system:karmada:agent:m1", AGENTS),
        [*AGENT_USAGES, "server auth"],
        "usages did not match ['client auth', 'digital signature', 'key encipherment']",
    ),
]


@pytest.mark.parametrize(("case", "request_", "usages", "problem"), CASES, ids=[c[0] for c in CASES])
def test_agent_requests_are_recognised_by_karmada_s_rules(
    case: str, request_: x509.CertificateSigningRequest, usages: list[str], problem: str
) -> None:
    """Subject, alternative names and usages must be exactly an agent's."""
    assert agent_request_problem(request_, usages) == problem


def test_bootstrap_identities_are_the_bootstrappers_group_and_its_subgroups() -> None:
    """system:bootstrappers and system:bootstrappers:* count; look-alike groups do not."""
    assert is_bootstrapper(UserInfo("system:bootstrap:abc", ("system:bootstrappers",)))
    assert is_bootstrapper(UserInfo("x", ("system:bootstrappers:karmada:default-cluster-token",)))
    assert not is_bootstrapper(UserInfo("x", ("system:bootstrappers-evil", "system:authenticated")))
