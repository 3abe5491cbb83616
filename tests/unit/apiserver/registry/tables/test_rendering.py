import pytest

from flotilla.apiserver.registry.tables.rendering import go_float, go_json, jsonpath_text


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (1.0, "1"),
        (3.14, "3.14"),
        (123456.0, "123456"),
        (1e6, "1e+06"),
        (1234567.0, "1.234567e+06"),
        (0.0001, "0.0001"),
        (0.00001, "1e-05"),
        (-2.5, "-2.5"),
    ],
)
def test_go_float_follows_fmt_v_formatting(value: float, expected: str) -> None:
    """Floats print like Go's `%v`: shortest digits, exponent form from 1e+06 and below 1e-04."""
    assert go_float(value) == expected


def test_go_json_sorts_keys_escapes_html_and_writes_floats_like_go() -> None:
    """Objects are compact JSON with sorted keys, HTML characters escaped and floats without `.0`."""
    value = {"b": [1, 2.0, "<a&b>"], "a": None, "c": True, "d": 1e-7}
    assert go_json(value) == '{"a":null,"b":[1,2,"\\u003ca\\u0026b\\u003e"],"c":true,"d":1e-7}'


def test_jsonpath_text_prints_scalars_plainly_and_containers_as_json() -> None:
    """Strings print raw, booleans in lower case, null as `<no value>`, lists as JSON."""
    assert jsonpath_text("Ready") == "Ready"
    assert jsonpath_text(False) == "false"
    assert jsonpath_text(None) == "<no value>"
    assert jsonpath_text(["a", "b"]) == '["a","b"]'
