"""Interpreter webhooks: Karmada's ResourceInterpreterWebhookConfiguration, answered over HTTPS.

Why it exists: a kind that Lua cannot describe well — or whose owners already run Karmada
interpreter webhooks — is interpreted by a service of its own, which Karmada calls with a
`ResourceInterpreterContext` for each operation (InterpretReplica, ReviseReplica, Retain,
AggregateStatus, InterpretStatus, InterpretHealth, InterpretDependency) and which answers with
replicas and requirements, a JSON Patch, a status, a health or dependencies. This package is the
pure part: which webhook answers an object and operation (`configurations`, Karmada's matching and
order), what is sent and how an answer is checked and applied (`context`), and one method per
operation (`operations`). The HTTPS call is injected by the runtime (`runtime/interpretation.py`),
so nothing here does I/O. In the interpreter's order a Lua customization answers first, then a
webhook, then the built-in rules (`interpreter/customized.py`).
"""

from flotilla.interpreter.webhook.configurations import (
    DEFAULT_TIMEOUT_SECONDS,
    InterpreterRule,
    InterpreterWebhook,
    WebhookIndex,
    parse_webhooks,
)
from flotilla.interpreter.webhook.operations import (
    WebhookCall,
    WebhookCallFailed,
    WebhookInterpreter,
    WebhookInterpreterError,
)

__all__ = [
    "DEFAULT_TIMEOUT_SECONDS",
    "InterpreterRule",
    "InterpreterWebhook",
    "WebhookCall",
    "WebhookCallFailed",
    "WebhookIndex",
    "WebhookInterpreter",
    "WebhookInterpreterError",
    "parse_webhooks",
]
