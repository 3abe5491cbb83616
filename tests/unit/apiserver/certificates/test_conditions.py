"""The rules of a CSR's conditions and certificate, as kube's CSR update validation states them."""

from __future__ import annotations

import base64
from datetime import UTC, datetime

import pytest
from cryptography.hazmat.primitives import serialization

from flotilla.apiserver.certificates.conditions import (
    certificate_problem,
    condition_errors,
    populate_timestamps,
    update_errors,
)
from flotilla.apiserver.pki.directory import create_ca
from tests.unit.apiserver.certificates.requests import (
    certificate_request,
    condition,
    signing_request,
    with_status,
)

NOW = datetime(2025, 3, 1, 12, 0, tzinfo=UTC)
CSR = signing_request("bob", certificate_request("bob"))


def messages(found: list[object]) -> list[str]:
    return [str(error) for error in found]


def a_certificate() -> str:
    cert, _ = create_ca("test", NOW)
    return base64.b64encode(cert.public_bytes(serialization.Encoding.PEM)).decode()


def test_approved_and_denied_together_are_refused() -> None:
    """Approved and Denied are mutually exclusive, whichever comes first."""
    found = condition_errors(with_status(CSR, condition("Denied"), condition("Approved")), None)
    assert messages(found) == [
        'status.conditions[1].type: Invalid value: "Approved": '
        "Approved and Denied conditions are mutually exclusive"
    ]


def test_old_requests_already_both_approved_and_denied_may_keep_it() -> None:
    """Stored data in breach of the rule is tolerated, as kube tolerates it."""
    both = with_status(CSR, condition("Approved"), condition("Denied"))
    assert condition_errors(both, both) == []


@pytest.mark.parametrize(
    ("entry", "expected"),
    [
        (
            condition("Approved", "False"),
            'status.conditions[0].status: Unsupported value: "False": supported values: "True"',
        ),
        (
            condition("Failed", "Unknown"),
            'status.conditions[0].status: Unsupported value: "Unknown": supported values: "True"',
        ),
        (condition("Ready", "Maybe"), 'status.conditions[0].status: Unsupported value: "Maybe"'),
        ({"type": "Ready"}, "status.conditions[0].status: Required value"),
        ({"status": "True"}, "status.conditions[0].type: Required value"),
    ],
    ids=["approved-false", "failed-unknown", "custom-bad-status", "no-status", "no-type"],
)
def test_each_condition_needs_a_type_and_a_status_its_type_allows(
    entry: dict[str, str], expected: str
) -> None:
    """Approved, Denied and Failed may only be True; other types True, False or Unknown."""
    found = messages(condition_errors(with_status(CSR, entry), None))
    assert len(found) == 1 and found[0].startswith(expected)


def test_one_condition_per_type() -> None:
    """A second condition of a type already present is a duplicate."""
    found = condition_errors(with_status(CSR, condition("Ready"), condition("Ready", "False")), None)
    assert messages(found) == ['status.conditions[1].type: Duplicate value: "Ready"']


def test_decisions_cannot_be_removed_through_any_subresource() -> None:
    """Removing Approved, Denied or Failed is forbidden, even through approval."""
    old = with_status(CSR, condition("Approved"), condition("Failed"))
    found = messages(update_errors(with_status(CSR), old, approval=True))
    assert found == [
        'status.conditions: Forbidden: updates may not remove a condition of type "Approved"',
        'status.conditions: Forbidden: updates may not remove a condition of type "Failed"',
    ]


def test_status_writes_may_not_approve_deny_or_change_a_decision() -> None:
    """Approved and Denied are the approval subresource's; status may add Failed and others."""
    assert messages(update_errors(with_status(CSR, condition("Approved")), CSR, status=True)) == [
        'status.conditions: Forbidden: updates may not add a condition of type "Approved"'
    ]
    approved = with_status(CSR, condition("Approved", reason="A"))
    changed = with_status(CSR, condition("Approved", reason="B"))
    assert messages(update_errors(changed, approved, status=True)) == [
        'status.conditions: Forbidden: updates may not modify a condition of type "Approved"'
    ]
    assert (
        update_errors(
            with_status(CSR, condition("Approved", reason="A"), condition("Failed")), approved, status=True
        )
        == []
    )


def test_the_approval_subresource_may_approve_or_deny() -> None:
    """Adding Approved (or Denied) is what approval is for."""
    assert update_errors(with_status(CSR, condition("Denied")), CSR, approval=True) == []


def test_the_certificate_is_set_only_through_status_only_once_and_only_to_certificates() -> None:
    """Main and approval writes may not set it; status sets it once, to PEM certificates."""
    issued = a_certificate()
    assert messages(update_errors(with_status(CSR, certificate=issued), CSR, approval=True)) == [
        "status.certificate: Forbidden: updates may not set certificate content"
    ]
    assert update_errors(with_status(CSR, certificate=issued), CSR, status=True) == []
    assert messages(
        update_errors(
            with_status(CSR, certificate=a_certificate()), with_status(CSR, certificate=issued), status=True
        )
    ) == ["status.certificate: Forbidden: updates may not modify existing certificate content"]
    garbage = base64.b64encode(b"-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n").decode()
    (error,) = messages(update_errors(with_status(CSR, certificate=garbage), CSR, status=True))
    assert error.startswith(
        'status.certificate: Invalid value: "<certificate data>": x509: malformed certificate'
    )


@pytest.mark.parametrize(
    ("pem", "problem"),
    [
        (b"", "must contain at least one CERTIFICATE PEM block"),
        (b"-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n", 'found "PRIVATE KEY"'),
    ],
)
def test_certificate_data_must_be_certificate_blocks(pem: bytes, problem: str) -> None:
    """Anything but CERTIFICATE blocks is refused with kube's reason."""
    assert problem in certificate_problem(base64.b64encode(pem).decode())


def test_timestamps_are_filled_and_transition_times_kept_for_unchanged_conditions() -> None:
    """lastUpdateTime defaults to now; lastTransitionTime to the stored one of the same type and status."""
    old = [{"type": "Ready", "status": "True", "lastTransitionTime": "2025-01-01T00:00:00Z"}]
    new = [{"type": "Ready", "status": "True"}, {"type": "Ready2", "status": "False", "lastUpdateTime": "x"}]
    populate_timestamps(new, old, NOW)
    assert new == [
        {
            "type": "Ready",
            "status": "True",
            "lastUpdateTime": "2025-03-01T12:00:00Z",
            "lastTransitionTime": "2025-01-01T00:00:00Z",
        },
        {
            "type": "Ready2",
            "status": "False",
            "lastUpdateTime": "x",
            "lastTransitionTime": "2025-03-01T12:00:00Z",
        },
    ]
