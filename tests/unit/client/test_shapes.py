"""One shape for the same call: an object is named by kind and name, its namespace is a keyword.

`Client` (over HTTP), `Informer` (a cache of one kind) and `LocalClient` (in the API server's process)
take the namespace only as `namespace=`, so a name and a namespace — both strings — cannot trade
places unnoticed; `ObjectKey` carries the pair where it travels as one value.
"""

from __future__ import annotations

import inspect
import typing
from collections.abc import Callable
from typing import Any

import pytest

from flotilla.api.objectkeys import ObjectKey
from flotilla.api.scheme import GroupVersionKind
from flotilla.apiserver.localclient import LocalClient
from flotilla.client import interfaces
from flotilla.client.client import Client
from flotilla.client.informer import Informer

CONFIG_MAP = GroupVersionKind("", "v1", "ConfigMap")

NAMED_CALLS: list[Callable[..., Any]] = [
    Client.get,
    Client.get_or_none,
    Client.patch,
    Client.delete,
    LocalClient.get,
    LocalClient.peek,
    LocalClient.mutate,
    LocalClient.patch,
    LocalClient.delete,
]


@pytest.mark.parametrize("call", NAMED_CALLS, ids=lambda call: call.__qualname__)
def test_the_namespace_is_a_keyword_after_kind_and_name(call: Callable[..., Any]) -> None:
    parameters = list(inspect.signature(call).parameters.values())
    assert [p.name for p in parameters[1:3]] == ["gvk", "name"]
    assert (
        parameters[3].kind is not inspect.Parameter.POSITIONAL_OR_KEYWORD or parameters[3].name != "namespace"
    )
    assert inspect.signature(call).parameters["namespace"].kind is inspect.Parameter.KEYWORD_ONLY


@pytest.mark.parametrize(
    "call",
    [Client.get, Client.get_or_none, Client.delete, LocalClient.get, LocalClient.peek, LocalClient.delete],
)
def test_a_namespace_passed_by_position_is_a_type_error(call: Callable[..., Any]) -> None:
    """The swap `get(gvk, "default", "web")` cannot happen silently: a third positional is refused."""
    with pytest.raises(TypeError):
        call(object(), CONFIG_MAP, "web", "default")


def test_the_informer_takes_the_namespace_as_a_keyword() -> None:
    informer = Informer.__new__(Informer)
    informer.store = {ObjectKey("default", "web"): {"metadata": {"name": "web"}}}
    assert informer.get("web", namespace="default") == {"metadata": {"name": "web"}}
    assert informer.get("web") is None
    with pytest.raises(TypeError):
        informer.get("web", "default")  # type: ignore[misc]
    with pytest.raises(TypeError):
        informer.list("default")  # type: ignore[misc]


def shapes(owner: type, name: str) -> list[list[tuple[str, inspect._ParameterKind]]]:
    """The parameters (name, kind) of a method, one list per overload when it has overloads."""
    function = vars(owner).get(name) or getattr(owner, name)
    variants = typing.get_overloads(function) or [function]
    return [[(p.name, p.kind) for p in inspect.signature(v).parameters.values()] for v in variants]


@pytest.mark.parametrize(
    "role", [interfaces.Reader, interfaces.Writer, interfaces.StatusWriter, interfaces.ListerWatcher]
)
def test_client_fills_each_role_with_the_same_parameters(role: type) -> None:
    """What mypy proves in `interfaces.py`, checked at run time too: names, order and kinds agree.

    A role's method declared only by overloads has no signature left at run time (typing keeps a
    placeholder), so those are mypy's alone; the others are compared here."""
    methods = [name for name, member in vars(role).items() if inspect.isfunction(member) and name[0] != "_"]
    compared = [
        name for name in methods if ("args", inspect.Parameter.VAR_POSITIONAL) not in shapes(role, name)[0]
    ]
    assert compared
    for name in compared:
        [wanted] = shapes(role, name)
        [actual] = shapes(Client, name)
        # `Client` may take more keywords (e.g. `subresource=` for /scale), never fewer or reordered ones.
        extra = [p for p in actual if p not in wanted]
        assert [p for p in actual if p in wanted] == wanted, name
        assert all(kind is inspect.Parameter.KEYWORD_ONLY for _, kind in extra), name


def test_an_object_key_reads_as_kubectl_writes_it() -> None:
    assert str(ObjectKey("default", "web")) == "default/web"
    assert str(ObjectKey("", "member1")) == "member1"
    assert ObjectKey.of({"metadata": {"name": "web", "namespace": "default"}}) == ObjectKey("default", "web")
    assert ObjectKey.of({"metadata": {"name": "member1"}}) == ObjectKey("", "member1")
    assert ObjectKey.of({}) == ObjectKey("", "")
    assert sorted([ObjectKey("b", "a"), ObjectKey("a", "z")]) == [ObjectKey("a", "z"), ObjectKey("b", "a")]
    with pytest.raises(AttributeError):
        ObjectKey("a", "b").name = "c"  # type: ignore[misc]
