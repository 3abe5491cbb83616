"""The static token file: kube's CSV format, its errors and how its tokens authenticate."""

from __future__ import annotations

import pytest

from flotilla.apiserver.authn.tokens import StaticTokenAuthenticator, TokenFileError, parse_token_file
from flotilla.apiserver.users import UserInfo


def test_rows_give_user_uid_and_quoted_groups() -> None:
    """token,user,uid,"g1,g2" yields the user with both groups; a three-column row has none."""
    tokens = parse_token_file('\ufefft1,alice,1001,"dev,ops"\n\nt2, bob ,1002\n', "tokens.csv")
    assert tokens == {"t1": UserInfo("alice", ("dev", "ops"), "1001"), "t2": UserInfo(" bob ", (), "1002")}


def test_a_row_with_fewer_than_three_columns_rejects_the_file() -> None:
    """A short row is an error naming the file and the column count, as kube words it."""
    with pytest.raises(TokenFileError, match=r"token file 'f.csv' must have at least 3 columns .* found 2"):
        parse_token_file("t1,alice\n", "f.csv")


def test_empty_tokens_are_skipped_and_duplicates_override() -> None:
    """An empty token never authenticates; a repeated token takes the later line's user."""
    tokens = parse_token_file(",nobody,0\nt,first,1\nt,second,2\n", "f.csv")
    assert set(tokens) == {"t"}
    assert tokens["t"].username == "second"


def test_only_listed_tokens_are_recognised() -> None:
    """A listed token authenticates for the asked audiences; any other is not this kind's."""
    authenticator = StaticTokenAuthenticator({"t": UserInfo("alice")})
    result = authenticator.authenticate_token("t", ["api"])
    assert result is not None and result.user.username == "alice" and result.audiences == ("api",)
    assert authenticator.authenticate_token("T", []) is None
