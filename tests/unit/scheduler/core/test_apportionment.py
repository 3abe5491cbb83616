"""Webster apportionment: the classic example, Karmada's tie rules, and its properties."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from flotilla.scheduler.core.apportionment import fnv32a, names_descending, webster

votes_maps = st.dictionaries(st.sampled_from("abcdefgh"), st.integers(0, 500), min_size=1, max_size=8)


def one_by_one(seats: int, votes: dict[str, int], descending: bool) -> dict[str, int]:
    """Webster by its definition: each seat to the highest votes/(2s+1), ties to fewer seats, then name."""
    held = dict.fromkeys(votes, 0)
    for _ in range(seats):
        best = None
        for name in sorted(votes, reverse=descending):
            key = (Fraction(votes[name], 2 * held[name] + 1), -held[name])
            if best is None or key > best[0]:
                best = (key, name)
        assert best is not None
        held[best[1]] += 1
    return held


def test_sainte_lague_classic_example() -> None:
    """230,000 votes for 8 seats: 100k→3, 80k→3, 30k→1, 20k→1."""
    votes = {"A": 100_000, "B": 80_000, "C": 30_000, "D": 20_000}
    assert webster(8, votes) == {"A": 3, "B": 3, "C": 1, "D": 1}


def test_karmadas_documented_nine_over_one_to_three() -> None:
    """Karmada's own example: 9 replicas at weights 1:3 split 2:7."""
    assert webster(9, {"a": 1, "b": 3}) == {"a": 2, "b": 7}


def test_fnv32a_matches_the_reference_vectors() -> None:
    """FNV-1a 32-bit test vectors from the FNV specification."""
    assert fnv32a(b"") == 0x811C9DC5
    assert fnv32a(b"a") == 0xE40C292C
    assert fnv32a(b"foobar") == 0xBF9CF968


def test_uid_parity_picks_the_name_order() -> None:
    """Odd FNV-1a of the UID means descending names; even, or no UID, ascending."""
    assert fnv32a(b"uid-1") % 2 == 1 and names_descending("uid-1")
    assert fnv32a(b"uid-0") % 2 == 0 and not names_descending("uid-0")
    assert not names_descending("")


@pytest.mark.parametrize(("descending", "expected"), [(False, {"a": 2, "b": 1}), (True, {"a": 1, "b": 2})])
def test_tied_last_seat_follows_the_name_order(descending: bool, expected: dict[str, int]) -> None:
    """3 seats at 1:1: the odd seat goes to the first name in the binding's order."""
    assert webster(3, {"a": 1, "b": 1}, descending_names=descending) == expected


def test_tie_prefers_the_party_with_fewer_seats() -> None:
    """At equal priority the smaller party wins: 1 vs 3 after b's first seat, a gets the second."""
    assert webster(2, {"a": 1, "b": 3}) == {"a": 1, "b": 1}


def test_initial_seats_without_votes_are_kept_and_not_grown() -> None:
    """A party with seats but no votes keeps them and gets nothing new."""
    assert webster(3, {"a": 1}, initial={"gone": 2}) == {"a": 3, "gone": 2}


@given(st.integers(0, 400), votes_maps, st.booleans())
def test_matches_the_one_by_one_definition(seats: int, votes: dict[str, int], descending: bool) -> None:
    """The shortcut for large seat counts gives exactly the seat-by-seat result, ties included."""
    assert webster(seats, votes, descending_names=descending) == one_by_one(seats, votes, descending)


@given(st.integers(0, 300), votes_maps, st.booleans())
def test_adding_a_seat_takes_none_away(seats: int, votes: dict[str, int], descending: bool) -> None:
    """House monotonicity: with one more seat every party keeps what it had, and one party gains one."""
    before = webster(seats, votes, descending_names=descending)
    after = webster(seats + 1, votes, descending_names=descending)
    assert all(after[name] >= before[name] for name in votes)
    assert sum(after.values()) == sum(before.values()) + 1 == seats + 1
