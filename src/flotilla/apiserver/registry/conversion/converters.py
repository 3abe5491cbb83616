"""How an object moves from one version of its kind to another, and what a CRD's conversion is.

A `Converter` turns an object (a private dict it may change) into the same object at another
`apiVersion`. `NopConverter` is kube-apiserver's converter for `conversion: {strategy: None}`: the
versions share one schema in all but name, so only `apiVersion` changes (the caller then prunes
what the target version's schema does not know, as kube's schema coercion does). A `Conversion`
joins a converter with the version objects are stored at.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from flotilla.apiserver.registry.schema.model import Schema


class ConversionError(Exception):
    """An object cannot be converted to the version asked for (a version its converter does not know)."""


class Converter(Protocol):
    def convert(self, obj: dict[str, Any], api_version: str) -> dict[str, Any]:
        """`obj` (handed over: the converter may change it) at `api_version`."""
        ...


@dataclass(frozen=True, slots=True)
class NopConverter:
    """`strategy: None`: every version has the same fields, so only `apiVersion` is rewritten."""

    def convert(self, obj: dict[str, Any], api_version: str) -> dict[str, Any]:
        obj["apiVersion"] = api_version
        return obj


@dataclass(frozen=True, slots=True)
class Conversion:
    """How objects of one CRD reach each served version: the storage version and the converter."""

    storage_api_version: str
    converter: Converter
    storage_raw_schema: dict[str, Any] | None = None
    """The storage version's `openAPIV3Schema` (what an object is pruned to before it is stored)."""
    storage_schema: Schema | None = field(default=None, compare=False)
    """The same, converted for the schema walk (None: nothing is pruned)."""

    def convert(self, obj: dict[str, Any], api_version: str) -> dict[str, Any]:
        """`obj` (handed over) at `api_version`; an object already there comes back as it is."""
        if obj.get("apiVersion") == api_version:
            return obj
        return self.converter.convert(obj, api_version)
