"""`validate_create`/`validate_update` route every served built-in kind to its rules."""

from __future__ import annotations

from flotilla.api.builtin import BUILTIN_RESOURCES
from flotilla.api.scheme import GroupVersionKind
from flotilla.apiserver.registry.defaults import DEFAULTED_KINDS
from flotilla.apiserver.registry.validation import VALIDATED_KINDS, validate_create, validate_update
from flotilla.apiserver.registry.validation.batch import validate_job_update
from tests.unit.apiserver.registry.validation.manifests import JOB, job, stored


def test_every_served_built_in_kind_has_validation_rules() -> None:
    """No built-in kind of the scheme falls through to "no rules"."""
    assert {resource.gvk for resource in BUILTIN_RESOURCES} <= VALIDATED_KINDS


def test_defaulted_kinds_are_served_kinds() -> None:
    """Defaulters exist only for kinds the server actually serves."""
    assert {resource.gvk for resource in BUILTIN_RESOURCES} >= DEFAULTED_KINDS


def test_kinds_without_rules_validate_as_empty() -> None:
    """Custom resources are the API server's business, not these rules'."""
    custom = GroupVersionKind("example.com", "v1", "Widget")
    assert validate_create(custom, {"metadata": {}}) == []
    assert validate_update(custom, {}, {}) == []


def test_repeated_errors_are_reported_once() -> None:
    """Rules that run twice on update (object meta and its update) do not duplicate errors."""
    old = stored(JOB, job())
    new = stored(JOB, job())
    new["metadata"]["labels"] = {"bad key": "x"}
    assert len(validate_job_update(new, old)) == 2
    errors = [str(error) for error in validate_update(JOB, new, old)]
    assert len(errors) == len(set(errors)) == 1
