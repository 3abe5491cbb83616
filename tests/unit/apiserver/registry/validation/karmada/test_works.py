"""Works are validated: every manifest says what it is."""

from __future__ import annotations

from flotilla.apiserver.registry.validation import karmada as validation
from tests.unit.api.karmada.manifests import WORK, fresh


def test_a_work_names_each_manifest() -> None:
    """Every manifest has an apiVersion, a kind and a name."""
    assert validation.validate_work(fresh(WORK)) == []
    work = fresh(WORK)
    work["spec"]["workload"]["manifests"] = [{"kind": "ConfigMap", "metadata": {}}, "text"]
    assert [str(e) for e in validation.validate_work(work)] == [
        "spec.workload.manifests[0].apiVersion: Required value",
        "spec.workload.manifests[0].metadata.name: Required value",
        'spec.workload.manifests[1]: Invalid value: "text": must be an object',
    ]
