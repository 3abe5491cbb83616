"""`flotilla promote` on the command line: what it needs before anything is read."""

from __future__ import annotations

from click.testing import CliRunner

from flotilla.cli.commands.apply import apply
from flotilla.cli.commands.promote import promote


def test_the_member_cluster_is_required() -> None:
    """Without --cluster there is no member to read from: a usage error."""
    result = CliRunner().invoke(promote, ["deployment", "nginx"])
    assert result.exit_code == 2
    assert "Missing option '-C' / '--cluster'" in result.output


def test_output_is_yaml_or_json_only() -> None:
    """-o takes the formats karmadactl's promote prints."""
    result = CliRunner().invoke(promote, ["deployment", "nginx", "-C", "member1", "-o", "wide"])
    assert result.exit_code == 2


def test_help_shows_examples() -> None:
    """promote and apply document themselves with an Examples block."""
    for command, name in ((promote, "promote"), (apply, "apply")):
        result = CliRunner().invoke(command, ["--help"])
        assert result.exit_code == 0
        assert f"  Examples:\n    flotilla {name} " in result.output
