from flotilla.apiserver.registry.tables.model import AGE, NAME, Column


def test_column_to_json_always_carries_all_five_fields() -> None:
    """columnDefinitions entries carry name, type, format, description and priority, as Kubernetes'."""
    assert Column("Ready", "string").to_json() == {
        "name": "Ready",
        "type": "string",
        "format": "",
        "description": "",
        "priority": 0,
    }
    assert Column("IP", "string", description="Pod IP", priority=1).to_json()["priority"] == 1


def test_shared_name_and_age_columns_use_object_meta_docs() -> None:
    """The Name column is formatted `name`; both take their description from ObjectMeta's field docs."""
    assert NAME.format == "name"
    assert NAME.description.startswith("Name must be unique within a namespace.")
    assert AGE.description.startswith("CreationTimestamp is a timestamp")
