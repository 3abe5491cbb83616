"""Cached objects are the JSON the search API answers with, compressed, without what nobody searches."""

from __future__ import annotations

import orjson

from flotilla.api.karmada.search import CACHED_FROM_CLUSTER_ANNOTATION
from flotilla.apiserver.search.compact import Codec, Entry, cached_form, flat_labels, selectable_values
from tests.unit.apiserver.search.objects import pod


def test_the_cached_form_drops_managed_fields_and_last_applied_and_names_the_cluster() -> None:
    shown = cached_form(pod("a"), "member1")
    metadata = shown["metadata"]
    assert "managedFields" not in metadata
    assert metadata["annotations"] == {"team": "a", CACHED_FROM_CLUSTER_ANNOTATION: "member1"}
    assert list(shown)[:3] == ["apiVersion", "kind", "metadata"]
    assert next(iter(metadata)) == "resourceVersion" and metadata["resourceVersion"] == ""


def test_render_fills_in_the_cache_revision_and_round_trips() -> None:
    raw = orjson.dumps(cached_form(pod("a"), "member1"))
    codec = Codec.trained([raw])
    entry = Entry(codec.compress(raw), (), (), 4711)
    decoded = orjson.loads(codec.render(entry))
    assert decoded["metadata"]["resourceVersion"] == "4711"
    assert decoded["spec"] == pod("a")["spec"]
    assert decoded["metadata"]["annotations"][CACHED_FROM_CLUSTER_ANNOTATION] == "member1"


def test_a_dictionary_of_the_kind_compresses_each_object_well_below_its_json() -> None:
    samples = [orjson.dumps(cached_form(pod(f"web-{i}"), "member1")) for i in range(16)]
    codec = Codec.trained(samples)
    alone = Codec()
    other = orjson.dumps(cached_form(pod("web-9999", app="api"), "member2"))
    assert len(codec.compress(other)) < len(alone.compress(other)) / 2
    assert codec.decompress(codec.compress(other)) == other


def test_labels_are_flat_sorted_and_interned() -> None:
    labels = flat_labels(pod("a", tier="front"))
    assert labels == ("app", "web", "tier", "front")
    again = flat_labels(pod("b", tier="front"))
    assert all(x is y for x, y in zip(labels, again, strict=True))


def test_selectable_values_follow_the_kinds_field_labels() -> None:
    values = selectable_values(
        pod("a", phase="Pending"), ("spec.nodeName", "status.phase"), namespaced=True, custom=False
    )
    assert values == ("node-1", "Pending")
