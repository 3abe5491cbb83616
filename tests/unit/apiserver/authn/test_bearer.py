"""The bearer-token union: header parsing, first user wins, present-but-bad tokens are errors."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from flotilla.apiserver.authn.bearer import (
    AudienceAgnostic,
    InvalidToken,
    TokenAuthenticators,
    TokenResult,
    bearer_token,
)
from flotilla.apiserver.users import UserInfo


class Fixed:
    """A token kind that accepts one token, refuses another and ignores the rest."""

    def __init__(self, good: str, bad: str = "") -> None:
        self.good, self.bad = good, bad
        self.asked: list[tuple[str, ...]] = []

    def authenticate_token(self, token: str, audiences: Sequence[str]) -> TokenResult | None:
        self.asked.append(tuple(audiences))
        if token == self.good:
            return TokenResult(UserInfo(f"user-{token}"), tuple(audiences))
        if token == self.bad:
            raise InvalidToken(f"{token} is bad")
        return None


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        ("Bearer abc", ("abc", False)),
        ("bearer abc", ("abc", False)),
        ("  BEARER abc  ", ("abc", False)),
        ("Bearer abc def", ("abc", False)),
        ("Bearer  abc", ("", True)),
        ("Bearer", ("", False)),
        ("Basic dXNlcjpwYXNz", ("", False)),
        ("", ("", False)),
    ],
)
def test_the_token_is_the_second_space_separated_field_of_a_bearer_header(
    header: str, expected: tuple[str, bool]
) -> None:
    """Scheme case-insensitive, extra fields dropped, a double space ignored with a warning flag."""
    assert bearer_token(header) == expected


def test_the_first_authenticator_accepting_the_token_wins_and_adds_authenticated() -> None:
    """The union returns the first user, in system:authenticated, despite earlier refusals."""
    union = TokenAuthenticators([Fixed("a", bad="b"), Fixed("b")])
    result = union.authenticate_token("b")
    assert result.user.username == "user-b"
    assert "system:authenticated" in result.user.groups


def test_a_token_nobody_accepts_is_invalid_with_the_reasons() -> None:
    """Refusals are reported; with none, the error is kube's "invalid bearer token"."""
    union = TokenAuthenticators([Fixed("a", bad="b"), Fixed("c")])
    with pytest.raises(InvalidToken, match="b is bad"):
        union.authenticate_token("b")
    with pytest.raises(InvalidToken, match="invalid bearer token"):
        union.authenticate_token("zzz")


def test_audience_agnostic_tokens_are_only_good_for_the_api_audiences() -> None:
    """Without audiences the API's are used; asking only for foreign audiences is not recognised."""
    inner = Fixed("t")
    wrapped = AudienceAgnostic(inner, ["https://api"])
    result = wrapped.authenticate_token("t", [])
    assert result is not None and result.audiences == ("https://api",)
    assert wrapped.authenticate_token("t", ["vault"]) is None
    mixed = wrapped.authenticate_token("t", ["vault", "https://api"])
    assert mixed is not None and mixed.audiences == ("https://api",)
