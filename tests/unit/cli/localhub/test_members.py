"""Which members `flotilla up` runs and how each is described to the hub (names, regions, zones, labels)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from flotilla.cli.localhub.members import (
    ConfigError,
    default_member_names,
    default_sim_config,
    missing_labels,
    placement_of,
    sim_config_from_document,
)
from flotilla.sim.config import clusters_from_file
from flotilla.sim.spec import Timing

REGION = "topology.kubernetes.io/region"
ZONE = "topology.kubernetes.io/zone"


def read_back(tmp_path: Path, config: dict[str, Any]) -> list[Any]:
    path = tmp_path / "sim.yaml"
    path.write_text(yaml.safe_dump(config))
    return [placement_of(spec) for spec in clusters_from_file(path, Timing())]


def test_default_members_are_named_member1_to_n() -> None:
    """`--members 3` means member1, member2 and member3, as in Karmada's local setup."""
    assert default_member_names(3) == ["member1", "member2", "member3"]


@pytest.mark.parametrize("count", [0, 101])
def test_a_member_count_out_of_range_is_refused(count: int) -> None:
    """Zero members or more than a hundred is a mistake worth a message."""
    with pytest.raises(ConfigError, match="between 1 and 100"):
        default_member_names(count)


def test_default_members_spread_over_two_regions_with_zones_of_their_region(tmp_path: Path) -> None:
    """Four members fill two regions with two zones each, every zone inside its member's region."""
    placements = read_back(tmp_path, default_sim_config(4))
    assert [p.region for p in placements] == ["region-a", "region-b", "region-a", "region-b"]
    assert len({p.zones for p in placements}) == 4
    for placement in placements:
        assert placement.zones[0].startswith(placement.region)
        assert placement.labels[REGION] == placement.region
        assert placement.labels[ZONE] == placement.zones[0]


def test_region_zone_and_provider_shorthands_become_labels_and_spec_fields(tmp_path: Path) -> None:
    """A member's region, zone and provider reach both its labels and the Cluster's spec fields."""
    document = {
        "members": [
            {"name": "sz", "region": "cn-south", "zone": "cn-south-1a", "provider": "cloud-one", "nodes": 2},
        ]
    }
    config = sim_config_from_document(document, "members.yaml")
    assert config["clusters"][0]["nodes"] == 2
    (placement,) = read_back(tmp_path, config)
    assert (placement.name, placement.region, placement.zones, placement.provider) == (
        "sz",
        "cn-south",
        ("cn-south-1a",),
        "cloud-one",
    )
    assert placement.labels[REGION] == "cn-south" and placement.labels["provider"] == "cloud-one"


def test_a_region_without_a_zone_gets_a_zone_of_that_region(tmp_path: Path) -> None:
    """The simulator's default zone would belong to another region; the member gets one of its own."""
    config = sim_config_from_document({"members": [{"name": "eu", "region": "eu-west"}]}, "f")
    (placement,) = read_back(tmp_path, config)
    assert placement.zones == ("eu-west-1",)


def test_user_labels_are_kept_beside_the_topology_labels(tmp_path: Path) -> None:
    """Labels given in the file end up on the member next to region and zone."""
    config = sim_config_from_document({"members": [{"name": "a", "labels": {"tier": "gold"}}]}, "f")
    (placement,) = read_back(tmp_path, config)
    assert placement.labels["tier"] == "gold" and REGION in placement.labels


def test_a_sim_config_file_is_accepted_as_it_is(tmp_path: Path) -> None:
    """A `flotilla sim --config` document (top-level `clusters:`) works for `up --config` too."""
    document = {"clusters": [{"name": "a", "nodeCPU": "4", "labels": {REGION: "r1", ZONE: "r1-b"}}]}
    config = sim_config_from_document(document, "f")
    assert config == document
    (placement,) = read_back(tmp_path, config)
    assert placement.region == "r1"


def test_an_unknown_field_names_the_known_ones() -> None:
    """A typo is reported with the member's position and the fields that exist."""
    with pytest.raises(ConfigError, match=r"members\[1\]: unknown field\(s\) regoin; known: .*region"):
        sim_config_from_document({"members": [{"name": "a"}, {"name": "b", "regoin": "x"}]}, "f")


def test_a_shorthand_contradicting_a_label_is_refused() -> None:
    """`region: a` with a region label of `b` has no right answer, so it is an error."""
    document = {"members": [{"name": "a", "region": "x", "labels": {REGION: "y"}}]}
    with pytest.raises(ConfigError, match="contradicts label"):
        sim_config_from_document(document, "f")


@pytest.mark.parametrize("document", [None, [], {"members": []}, {"members": "a"}, {"other": 1}])
def test_a_file_without_members_is_refused(document: Any) -> None:
    """An empty or misshapen file says what it should contain."""
    with pytest.raises(ConfigError, match="'members:' list"):
        sim_config_from_document(document, "f")


def test_missing_labels_leave_values_someone_changed_alone(tmp_path: Path) -> None:
    """Only labels the Cluster lacks are added; a value changed by hand is not reset."""
    (placement,) = read_back(tmp_path, default_sim_config(1))
    cluster = {"metadata": {"labels": {REGION: "moved-by-hand"}}}
    missing = missing_labels(cluster, placement)
    assert REGION not in missing and missing[ZONE] == placement.zones[0]
    assert missing_labels({"metadata": {"labels": placement.labels}}, placement) == {}
