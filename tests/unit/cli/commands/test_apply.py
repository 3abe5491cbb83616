"""`flotilla apply` on the command line: the checks made before any hub is contacted."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from flotilla.cli.commands.apply import apply


def test_all_clusters_and_named_clusters_are_exclusive(tmp_path: Path) -> None:
    """Asking for both placements is a usage error (exit 2), as in karmadactl."""
    result = CliRunner().invoke(apply, ["-f", str(tmp_path), "--all-clusters", "--cluster", "member1"])
    assert result.exit_code == 2
    assert "--all-clusters and --cluster cannot be used together" in result.output


def test_nothing_readable_fails_before_contacting_a_hub(tmp_path: Path) -> None:
    """A missing path is kubectl's one-line error and exit 1, with no kubeconfig needed."""
    missing = tmp_path / "missing.yaml"
    result = CliRunner().invoke(apply, ["-f", str(missing), "--kubeconfig", str(tmp_path / "none")])
    assert result.exit_code == 1
    assert result.stderr == f'error: the path "{missing}" does not exist\n'


def test_an_empty_directory_has_no_objects_to_apply(tmp_path: Path) -> None:
    """kubectl refuses an apply with no objects."""
    result = CliRunner().invoke(apply, ["-f", str(tmp_path)])
    assert result.exit_code == 1
    assert "error: no objects passed to apply" in result.stderr


def test_dry_run_accepts_kubectls_modes_only(tmp_path: Path) -> None:
    """--dry-run takes none, server or client; anything else is a usage error."""
    result = CliRunner().invoke(apply, ["-f", str(tmp_path), "--dry-run=maybe"])
    assert result.exit_code == 2
