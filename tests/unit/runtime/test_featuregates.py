"""Karmada's `--feature-gates` syntax and Flotilla's defaults (Failover on)."""

from __future__ import annotations

import pytest

from flotilla.runtime.hubcontroller import KARMADA_FEATURE_GATES, FeatureGates


def test_defaults_follow_karmada_except_failover_which_is_on() -> None:
    gates = FeatureGates()
    assert gates.failover
    assert gates.graceful_eviction
    assert not gates.enabled("StatefulFailoverInjection")
    assert set(KARMADA_FEATURE_GATES) >= {"Failover", "GracefulEviction", "PropagateDeps"}


def test_pairs_override_defaults_with_gos_booleans_and_spaces() -> None:
    gates = FeatureGates.parse(" Failover=false, GracefulEviction = F ,StatefulFailoverInjection=1,")
    assert not gates.failover
    assert not gates.graceful_eviction
    assert gates.enabled("StatefulFailoverInjection")
    assert gates.enabled("PropagateDeps")
    assert FeatureGates.parse("") == FeatureGates()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("Failover", "missing bool value for Failover"),
        ("Failover=maybe", "invalid value of Failover: maybe"),
        ("Teleport=true", "unrecognized feature gate: Teleport"),
    ],
)
def test_mistakes_are_named(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        FeatureGates.parse(text)


def test_gates_are_values() -> None:
    """Frozen and hashable, as the settings that carry them."""
    assert hash(FeatureGates.parse("Failover=false")) == hash(FeatureGates.parse("Failover=0"))
