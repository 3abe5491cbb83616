"""Served resources of a CustomResourceDefinition: one per served version.

Every version of a CRD shares one storage location (`/registry/<group>/<plural>/`); the schema,
subresources, printer columns and selectable fields come from each version's own entry, and so do
its CEL validation rules, compiled here once per version. Which versions are served, and how an
object stored at one reaches another, is the CRD's version plan (`registry/conversion/plans.py`):
each served version carries the plan's conversion — unless every object is stored at that very
version (it is the storage version and the only stored one), so the kind's busiest version, the
one its controllers read and write, never pays for a version check.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from flotilla.api.builtin import SCALE, STATUS
from flotilla.api.scheme import ALL_VERBS, GroupResource, ResourceType, Subresource
from flotilla.apiserver.registry.cel.rules import compile_rules
from flotilla.apiserver.registry.conversion.converters import Conversion
from flotilla.apiserver.registry.conversion.plans import plan_versions, storage_version, stored_versions
from flotilla.apiserver.registry.resources import CustomResourceFacts, ScalePaths, ServedResource
from flotilla.apiserver.registry.schema.model import ANY, Schema
from flotilla.apiserver.registry.schema.openapi_convert import SchemaConverter
from flotilla.apiserver.registry.tables import aggregated_convertor, custom_resource_convertor


def _raw_schema(version: dict[str, Any]) -> dict[str, Any] | None:
    raw = (version.get("schema") or {}).get("openAPIV3Schema")
    return raw if isinstance(raw, dict) else None


def _schema(raw_schema: dict[str, Any] | None) -> Schema:
    return SchemaConverter().convert(raw_schema) if raw_schema is not None else ANY


def _with_storage_schema(
    conversion: Conversion | None, spec: dict[str, Any], stored: str
) -> Conversion | None:
    """The conversion with the storage version's schema, which what is stored is pruned to."""
    if conversion is None:
        return None
    for version in spec.get("versions") or []:
        if version.get("name") == stored:
            raw = _raw_schema(version)
            return dataclasses.replace(conversion, storage_raw_schema=raw, storage_schema=_schema(raw))
    return conversion


def _may_differ(version: dict[str, Any], storage: str, crd: dict[str, Any]) -> bool:
    """Whether an object may be stored at a version other than `version`."""
    return bool({*stored_versions(crd), storage} - {version.get("name")})


def served_for_crd(crd: dict[str, Any]) -> list[ServedResource]:
    spec = crd.get("spec") or {}
    names = spec.get("names") or {}
    group = spec.get("group", "")
    kind = names.get("kind", "")
    plural = names.get("plural", "")
    namespaced = spec.get("scope", "Namespaced") == "Namespaced"
    stored = storage_version(crd)
    crd_name = (crd.get("metadata") or {}).get("name", "")
    plan = plan_versions(crd)
    conversion = _with_storage_schema(plan.conversion, spec, stored)
    versions = [version for version in spec.get("versions") or [] if version.get("name") in plan.served]
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
        raw_schema = _raw_schema(version)
        schema = _schema(raw_schema)
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
            conversion=conversion if _may_differ(version, stored, crd) else None,
        )
        served.append(
            ServedResource(
                resource_type,
                schema,
                aggregated_convertor(group, kind) or custom_resource_convertor(list(columns)),
                GroupResource(group, plural),
                custom=facts,
                builtin=False,
            )
        )
    return served
