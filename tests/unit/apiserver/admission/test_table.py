"""`kubectl get validatingwebhookconfigurations` prints NAME WEBHOOKS AGE as kube does."""

from __future__ import annotations

from datetime import UTC, datetime

from flotilla.apiserver.registry.tables import builtin_convertor

NOW = datetime(2025, 3, 1, 12, 0, 0, tzinfo=UTC)


def test_webhook_configurations_print_their_webhook_count() -> None:
    """Both kinds count their webhooks in an integer column, then the age."""
    configuration = {
        "metadata": {"name": "policy", "creationTimestamp": "2025-03-01T11:00:00Z"},
        "webhooks": [{"name": "a.example.com"}, {"name": "b.example.com"}],
    }
    for kind in ("ValidatingWebhookConfiguration", "MutatingWebhookConfiguration"):
        printer = builtin_convertor("admissionregistration.k8s.io", kind)
        assert printer is not None
        assert [column.name for column in printer.columns] == ["Name", "Webhooks", "Age"]
        assert printer.columns[1].type == "integer"
        assert printer.cells(configuration, NOW) == ["policy", 2, "60m"]
        assert printer.cells({"metadata": {"name": "empty"}}, NOW)[1] == 0
