"""Which object a list or watch is authorized as, from its field selector (kube's RequestInfo rule)."""

from __future__ import annotations

import pytest

from flotilla.apiserver.http.app import selected_name


@pytest.mark.parametrize(
    ("selector", "name"),
    [
        ("metadata.name=mine", "mine"),
        ("metadata.name==mine", "mine"),
        ("status.phase=Running,metadata.name=mine", "mine"),
        ("metadata.name!=mine", ""),
        ("metadata.namespace=a", ""),
        ("metadata.name=a,metadata.name=b", ""),
        ("", ""),
    ],
)
def test_only_an_exact_name_requirement_pins_the_request(selector: str, name: str) -> None:
    """`metadata.name=X` (or `==`) pins the request to X; inequality, other fields or two names do not."""
    assert selected_name(selector) == name
