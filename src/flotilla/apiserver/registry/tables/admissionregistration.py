"""The webhook configuration tables (`admissionregistration.k8s.io/v1`): `NAME WEBHOOKS AGE`.

Both MutatingWebhookConfiguration and ValidatingWebhookConfiguration print the number of webhooks
they register.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from flotilla.api.duration import since
from flotilla.apiserver.registry.tables.model import AGE, NAME, Cell, Column, Printer
from flotilla.apiserver.registry.tables.objects import created, items, name

WEBHOOKS = Column(
    "Webhooks",
    "integer",
    description="Webhooks indicates the number of webhooks registered in this configuration",
)


def _row(configuration: dict[str, Any], now: datetime) -> list[Cell]:
    return [name(configuration), len(items(configuration, "webhooks")), since(created(configuration), now)]


WEBHOOK_CONFIGURATION = Printer((NAME, WEBHOOKS, AGE), _row)
"""The printer of both webhook configuration kinds."""
