"""kube's nopConverter and the conversion of a CRD: only apiVersion changes, nothing is converted twice."""

from __future__ import annotations

from flotilla.apiserver.registry.conversion.converters import Conversion, NopConverter


def test_the_nop_converter_rewrites_only_the_api_version() -> None:
    """strategy None: the object is the same at every version but for its apiVersion."""
    obj = {"apiVersion": "example.com/v1", "kind": "Gizmo", "metadata": {"name": "a"}, "spec": {"x": 1}}
    converted = NopConverter().convert(dict(obj), "example.com/v2")
    assert converted == {**obj, "apiVersion": "example.com/v2"}


def test_an_object_already_at_the_version_is_returned_as_it_is() -> None:
    """The conversion hands back the very object when it is at the version asked for."""
    obj = {"apiVersion": "example.com/v1", "kind": "Gizmo"}
    assert Conversion("example.com/v1", NopConverter()).convert(obj, "example.com/v1") is obj
