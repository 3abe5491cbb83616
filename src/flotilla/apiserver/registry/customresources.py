"""Served resources of a CustomResourceDefinition: one per served version.

Every version of a CRD shares one storage location (`/registry/<group>/<plural>/`); the schema,
subresources, printer columns and selectable fields come from each version's own entry, and so do
its CEL validation rules, compiled here once per version.
"""

from __future__ import annotations

from typing import Any

from flotilla.api.builtin import SCALE, STATUS
from flotilla.api.scheme import ALL_VERBS, GroupResource, ResourceType, Subresource
from flotilla.apiserver.registry.cel.rules import compile_rules
from flotilla.apiserver.registry.resources import CustomResourceFacts, ScalePaths, ServedResource
from flotilla.apiserver.registry.schema.model import ANY
from flotilla.apiserver.registry.schema.openapi_convert import SchemaConverter
from flotilla.apiserver.registry.tables import custom_resource_convertor


def storage_version(crd: dict[str, Any]) -> str:
    for version in (crd.get("spec") or {}).get("versions") or []:
        if version.get("storage"):
            return str(version.get("name", ""))
    return ""


def served_for_crd(crd: dict[str, Any]) -> list[ServedResource]:
    spec = crd.get("spec") or {}
    names = spec.get("names") or {}
    group = spec.get("group", "")
    kind = names.get("kind", "")
    plural = names.get("plural", "")
    namespaced = spec.get("scope", "Namespaced") == "Namespaced"
    stored = storage_version(crd)
    crd_name = (crd.get("metadata") or {}).get("name", "")
    versions = [version for version in spec.get("versions") or [] if version.get("served")]
    crd_revision = str((crd.get("metadata") or {}).get("resourceVersion") or "")
    sole_schema_since = int(crd_revision) if len(versions) == 1 and crd_revision.isdigit() else None
    served: list[ServedResource] = []
    for version in versions:
        subresources_spec = version.get("subresources") or {}
        subresources: list[Subresource] = []
        scale_paths = None
        if "status" in subresources_spec:
            subresources.append(STATUS)
        scale_spec = subresources_spec.get("scale")
        if isinstance(scale_spec, dict):
            subresources.append(SCALE)
            scale_paths = ScalePaths(
                scale_spec.get("specReplicasPath", ".spec.replicas"),
                scale_spec.get("statusReplicasPath", ".status.replicas"),
                scale_spec.get("labelSelectorPath"),
            )
        raw_schema = (version.get("schema") or {}).get("openAPIV3Schema")
        schema = SchemaConverter().convert(raw_schema) if isinstance(raw_schema, dict) else ANY
        columns = tuple(version.get("additionalPrinterColumns") or ())
        selectable = tuple(
            str(field.get("jsonPath", "")).lstrip(".") for field in version.get("selectableFields") or []
        )
        resource_type = ResourceType(
            group=group,
            version=str(version.get("name", "")),
            kind=kind,
            plural=plural,
            singular=names.get("singular") or kind.lower(),
            namespaced=namespaced,
            verbs=ALL_VERBS,
            short_names=tuple(names.get("shortNames") or ()),
            categories=tuple(names.get("categories") or ()),
            subresources=tuple(subresources),
            list_kind=names.get("listKind") or f"{kind}List",
        )
        facts = CustomResourceFacts(
            crd_name=crd_name,
            status_subresource="status" in subresources_spec,
            scale=scale_paths,
            printer_columns=columns,
            selectable_fields=selectable,
            raw_schema=raw_schema if isinstance(raw_schema, dict) else None,
            storage_version=stored,
            sole_schema_since=sole_schema_since,
            rules=compile_rules(schema) if schema is not ANY else None,
        )
        served.append(
            ServedResource(
                resource_type,
                schema,
                custom_resource_convertor(list(columns)),
                GroupResource(group, plural),
                custom=facts,
                builtin=False,
            )
        )
    return served
