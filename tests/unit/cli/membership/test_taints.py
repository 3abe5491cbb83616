"""Taint arguments and the new taint list, as `kubectl taint` and `karmadactl cordon` compute them."""

from __future__ import annotations

import pytest

from flotilla.cli.membership.taints import (
    MODIFIED,
    TAINTED,
    UNTAINTED,
    TaintChanges,
    TaintError,
    TaintSpec,
    cordon_taints,
    existing_keys,
    is_cordoned,
    parse_taint,
    parse_taint_specs,
    reorganize_taints,
    split_taint_arguments,
)

CORDON = {"key": "cluster.karmada.io/unschedulable", "effect": "NoSchedule"}
NOT_READY = {"key": "cluster.karmada.io/not-ready", "effect": "NoSchedule"}


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("dedicated=gpu:NoSchedule", TaintSpec("dedicated", "gpu", "NoSchedule")),
        ("example.com/maintenance:NoExecute", TaintSpec("example.com/maintenance", "", "NoExecute")),
        ("spot=:PreferNoSchedule", TaintSpec("spot", "", "PreferNoSchedule")),
        ("dedicated", TaintSpec("dedicated")),
    ],
)
def test_taint_specs_parse_into_key_value_and_effect(spec: str, expected: TaintSpec) -> None:
    """key=value:Effect, key:Effect and a bare key (for removals) are understood."""
    assert parse_taint(spec) == expected


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("a:b:NoSchedule", "invalid taint spec: a:b:NoSchedule"),
        ("dedicated=gpu:Sometimes", "invalid taint effect: Sometimes, unsupported taint effect"),
        ("a=b=c:NoSchedule", "invalid taint spec: a=b=c:NoSchedule"),
        ("bad key:NoSchedule", "invalid taint spec: bad key:NoSchedule, name part must consist of"),
        ("k=bad value:NoSchedule", "invalid taint spec: k=bad value:NoSchedule, a valid label must be"),
    ],
)
def test_invalid_specs_get_kubectls_messages(spec: str, message: str) -> None:
    """Too many colons or equals, unknown effects, bad keys and bad values are refused."""
    with pytest.raises(TaintError) as caught:
        parse_taint(spec)
    assert str(caught.value).startswith(message)


def test_additions_need_an_effect_and_a_trailing_dash_removes() -> None:
    """`key-` removes every effect of key, `key:Effect-` one taint; `key` alone cannot be added."""
    changes = parse_taint_specs(["a=1:NoSchedule", "b-", "c:NoExecute-"])
    assert changes.add == (TaintSpec("a", "1", "NoSchedule"),)
    assert changes.remove == (TaintSpec("b"), TaintSpec("c", effect="NoExecute"))
    with pytest.raises(TaintError, match="invalid taint spec: a=1"):
        parse_taint_specs(["a=1"])


def test_duplicates_and_add_plus_remove_of_one_taint_are_refused() -> None:
    """The same key and effect twice, or adding and removing it at once, is an error."""
    with pytest.raises(TaintError, match="duplicated taints with the same key and effect: a=2:NoSchedule"):
        parse_taint_specs(["a=1:NoSchedule", "a=2:NoSchedule"])
    with pytest.raises(TaintError, match=r'can not both modify and remove .*\{"a":""\}'):
        parse_taint_specs(["a=1:NoSchedule", "a-"])


def test_resources_come_before_taint_arguments() -> None:
    """Words before the first taint are the resource type and names; a name after a taint is an error."""
    assert split_taint_arguments(["clusters", "m1", "m2", "a=1:NoSchedule", "b-"]) == (
        ["clusters", "m1", "m2"],
        ["a=1:NoSchedule", "b-"],
    )
    with pytest.raises(TaintError, match="all resources must be specified before taint changes: m2"):
        split_taint_arguments(["clusters", "m1", "a:NoSchedule", "m2"])


def test_adding_a_taint_keeps_the_others_and_says_tainted() -> None:
    """New taints come first, existing ones (the controller's too) are kept."""
    operation, taints = reorganize_taints(
        [NOT_READY], TaintChanges(add=(TaintSpec("a", "1", "NoSchedule"),)), False
    )
    assert operation == TAINTED
    assert taints == [{"key": "a", "value": "1", "effect": "NoSchedule"}, NOT_READY]


def test_existing_taints_with_the_same_key_and_effect_are_found_for_the_overwrite_check() -> None:
    """The value does not matter to the check; another effect is another taint."""
    existing = [{"key": "a", "value": "1", "effect": "NoSchedule"}]
    assert existing_keys(existing, [TaintSpec("a", "2", "NoSchedule")]) == ["a"]
    assert existing_keys(existing, [TaintSpec("a", "2", "NoExecute")]) == []


def test_overwrite_replaces_the_value_and_says_modified() -> None:
    """With --overwrite the old taint of that key and effect is replaced, not duplicated."""
    existing = [{"key": "a", "value": "1", "effect": "NoSchedule"}]
    operation, taints = reorganize_taints(
        existing, TaintChanges(add=(TaintSpec("a", "2", "NoSchedule"),)), True
    )
    assert operation == MODIFIED
    assert taints == [{"key": "a", "value": "2", "effect": "NoSchedule"}]


def test_removing_by_key_or_key_and_effect_says_untainted() -> None:
    """`a-` removes both effects of a; `a:NoExecute-` only that one."""
    existing = [
        {"key": "a", "effect": "NoSchedule"},
        {"key": "a", "effect": "NoExecute", "timeAdded": "2024-01-01T00:00:00Z"},
        NOT_READY,
    ]
    operation, taints = reorganize_taints(existing, TaintChanges(remove=(TaintSpec("a"),)), False)
    assert (operation, taints) == (UNTAINTED, [NOT_READY])
    _, taints = reorganize_taints(existing, TaintChanges(remove=(TaintSpec("a", effect="NoExecute"),)), False)
    assert taints == [{"key": "a", "effect": "NoSchedule"}, NOT_READY]


def test_removing_a_taint_that_is_not_there_is_an_error() -> None:
    """kubectl says `taint "x" not found` and writes nothing."""
    with pytest.raises(TaintError, match='taint "x:NoSchedule" not found'):
        reorganize_taints([NOT_READY], TaintChanges(remove=(TaintSpec("x", effect="NoSchedule"),)), False)


def test_adding_and_removing_in_one_command_says_modified() -> None:
    """A change that both adds and removes is reported as modified."""
    existing = [{"key": "old", "effect": "NoSchedule"}]
    changes = TaintChanges(add=(TaintSpec("new", "", "NoSchedule"),), remove=(TaintSpec("old"),))
    operation, taints = reorganize_taints(existing, changes, False)
    assert (operation, taints) == (MODIFIED, [{"key": "new", "effect": "NoSchedule"}])


def test_cordon_adds_the_unschedulable_taint_once() -> None:
    """Cordon appends karmadactl's taint; a cordoned cluster needs no change."""
    taints = cordon_taints([NOT_READY], cordon=True)
    assert taints == [NOT_READY, CORDON]
    assert is_cordoned(taints)
    assert cordon_taints(taints, cordon=True) is None


def test_uncordon_removes_only_the_unschedulable_taint() -> None:
    """Uncordon keeps every other taint; an uncordoned cluster needs no change."""
    assert cordon_taints([CORDON, NOT_READY], cordon=False) == [NOT_READY]
    assert cordon_taints([NOT_READY], cordon=False) is None
    assert not is_cordoned([{"key": "cluster.karmada.io/unschedulable", "effect": "NoExecute"}])
