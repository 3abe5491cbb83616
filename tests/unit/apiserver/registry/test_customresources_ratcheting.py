from typing import Any

from flotilla.apiserver.registry.customresources import served_for_crd
from flotilla.apiserver.store.watchcache import CachedObject
from flotilla.apiserver.writes.normalize import written_under_schema

SCHEMA = {"openAPIV3Schema": {"type": "object", "properties": {"spec": {"type": "object"}}}}


def crd(versions: list[str], revision: str = "40") -> dict[str, Any]:
    return {
        "metadata": {"name": "widgets.example.com", "resourceVersion": revision},
        "spec": {
            "group": "example.com",
            "names": {"kind": "Widget", "plural": "widgets"},
            "scope": "Namespaced",
            "versions": [
                {"name": name, "served": True, "storage": index == 0, "schema": SCHEMA}
                for index, name in enumerate(versions)
            ],
        },
    }


def stored(created: int) -> CachedObject:
    return CachedObject("/registry/example.com/widgets/ns/w", "ns", "w", created + 5, {}, created)


def test_objects_created_after_the_crd_last_changed_were_written_under_its_schema() -> None:
    """With one served version, only objects created after the CRD's revision count as written under it."""
    (served,) = served_for_crd(crd(["v1"]))
    assert written_under_schema(served, stored(41))
    assert not written_under_schema(served, stored(39))
    assert not written_under_schema(served, stored(0))


def test_a_crd_serving_several_versions_never_counts_as_one_schema() -> None:
    """Objects of a CRD with two served versions may have been written under either schema."""
    assert not any(written_under_schema(served, stored(99)) for served in served_for_crd(crd(["v1", "v2"])))
