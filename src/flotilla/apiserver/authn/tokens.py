"""Static bearer tokens from a CSV file (`--token-auth-file`), as kube-apiserver reads them.

Each line is `token,user,uid` with an optional fourth column of groups — quote it when it holds
several: `s3cr3t,alice,1001,"dev,ops"`. Blank lines are skipped; a line with fewer than three
columns makes the whole file invalid (the server refuses to start rather than run with half its
users); an empty token is skipped and a repeated token overrides the earlier line, as in kube.
The file is read once at start.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping, Sequence

import structlog

from flotilla.apiserver.authn.bearer import TokenResult
from flotilla.apiserver.users import UserInfo

log = structlog.get_logger("flotilla.apiserver.authn")


class TokenFileError(ValueError):
    """The token file cannot be used; the message names the file and the problem."""


def parse_token_file(text: str, source: str) -> dict[str, UserInfo]:
    """The users of a token file's content, by token; `source` names the file in errors."""
    tokens: dict[str, UserInfo] = {}
    reader = csv.reader(io.StringIO(text.removeprefix("\ufeff")))
    try:
        rows = list(reader)
    except csv.Error as exc:
        raise TokenFileError(f"token file '{source}' is not valid CSV: {exc}") from exc
    record = 0
    for row in rows:
        if not row or row == [""]:
            continue
        if len(row) < 3:
            raise TokenFileError(
                f"token file '{source}' must have at least 3 columns (token, user name, user uid), "
                f"found {len(row)}"
            )
        record += 1
        token, name, uid = row[0], row[1], row[2]
        if not token:
            log.warning("authn.token_file.empty_token", file=source, record=record)
            continue
        if token in tokens:
            log.warning("authn.token_file.duplicate_token", file=source, record=record)
        groups = tuple(g for g in row[3].split(",") if g) if len(row) > 3 else ()
        tokens[token] = UserInfo(name, groups, uid)
    return tokens


class StaticTokenAuthenticator:
    """Accepts exactly the tokens of the file; any other token is someone else's kind."""

    def __init__(self, tokens: Mapping[str, UserInfo]) -> None:
        self.tokens = dict(tokens)

    def authenticate_token(self, token: str, audiences: Sequence[str]) -> TokenResult | None:
        user = self.tokens.get(token)
        if user is None:
            return None
        # Static tokens carry no audience: they are good for whatever the caller asked.
        return TokenResult(user, tuple(audiences))
