"""Defaults of apiextensions.k8s.io/v1 CustomResourceDefinitions, as kube-apiserver sets them.

`singular` is the lower-case kind, `listKind` is `<Kind>List`, conversion is `None`, webhook
services listen on 443, and `status.storedVersions` starts with the storage version. Schema-level
defaults of custom resources are not applied here.
"""

from __future__ import annotations

from typing import Any

from flotilla.apiserver.registry.validation import fields


def default_custom_resource_definition(crd: dict[str, Any]) -> None:
    spec = fields.ensure_mapping(crd, "spec")
    names = fields.ensure_mapping(spec, "names")
    kind = fields.text(names, "kind")
    if not names.get("singular"):
        names["singular"] = kind.lower()
    if not names.get("listKind") and kind:
        names["listKind"] = f"{kind}List"
    if spec.get("conversion") is None:
        spec["conversion"] = {"strategy": "None"}
    webhook = fields.mapping(fields.mapping(spec, "conversion"), "webhook")
    service = fields.mapping(fields.mapping(webhook, "clientConfig"), "service")
    if service and service.get("port") is None:
        service["port"] = 443
    status = fields.ensure_mapping(crd, "status")
    if not fields.items(status, "storedVersions"):
        storage = [
            fields.text(version, "name")
            for version in fields.objects(spec, "versions")
            if version.get("storage")
        ]
        if storage:
            status["storedVersions"] = storage[:1]
