import pytest

from flotilla.apiserver.registry.tables.quantity import format_optional_quantity, format_quantity


@pytest.mark.parametrize(
    ("stored", "shown"),
    [
        ("1Gi", "1Gi"),
        ("1024Mi", "1Gi"),
        ("1.5Gi", "1536Mi"),
        ("2000Mi", "2000Mi"),
        ("1.5Ki", "1536"),
        ("512Ki", "512Ki"),
        ("0.5", "500m"),
        ("1.5", "1500m"),
        ("100m", "100m"),
        ("1000", "1k"),
        ("1500", "1500"),
        ("5G", "5G"),
        ("12e6", "12e6"),
        ("1.5e3", "1500"),
        ("1E3", "1e3"),
        ("0.0000000001", "1n"),
        ("-1Gi", "-1Gi"),
        ("0Gi", "0"),
        (" 2 ", "2"),
    ],
)
def test_format_quantity_gives_kubernetes_canonical_form(stored: str, shown: str) -> None:
    """Quantities print as Quantity.String() would after the API server parsed them."""
    assert format_quantity(stored) == shown


def test_format_quantity_accepts_json_numbers() -> None:
    """A quantity written as a JSON number is canonicalised like its string form."""
    assert format_quantity(2) == "2"
    assert format_quantity(0.25) == "250m"


def test_format_quantity_prints_zero_for_absent_and_keeps_garbage() -> None:
    """A missing quantity is Go's zero value `0`; an unparseable one is shown as stored."""
    assert format_quantity(None) == "0"
    assert format_quantity("lots") == "lots"


def test_format_optional_quantity_prints_nil_for_absent_pointer() -> None:
    """A nil *Quantity prints `<nil>`, as in the HPA TARGETS column."""
    assert format_optional_quantity(None) == "<nil>"
    assert format_optional_quantity("200Mi") == "200Mi"
