from flotilla.apiserver.registry.tables.labels import format_label_selector, format_labels, selector_string


def test_format_labels_sorts_keys_and_prints_none_when_empty() -> None:
    """Label maps print as sorted `k=v` pairs, `<none>` when there are none."""
    assert format_labels({"tier": "web", "app": "shop"}) == "app=shop,tier=web"
    assert format_labels({}) == "<none>"


def test_selector_string_sorts_requirements_by_key_and_values_within_sets() -> None:
    """Requirements from matchLabels and matchExpressions are sorted by key; set values are sorted."""
    selector = {
        "matchLabels": {"tier": "web"},
        "matchExpressions": [
            {"key": "env", "operator": "In", "values": ["prod", "dev"]},
            {"key": "zone", "operator": "NotIn", "values": ["b", "a"]},
            {"key": "canary", "operator": "DoesNotExist"},
            {"key": "app", "operator": "Exists"},
        ],
    }
    assert selector_string(selector) == "app,!canary,env in (dev,prod),tier=web,zone notin (a,b)"


def test_format_label_selector_distinguishes_empty_and_invalid() -> None:
    """An empty or missing selector prints `<none>`; an unknown operator prints `<error>`."""
    assert format_label_selector({}) == "<none>"
    assert format_label_selector(None) == "<none>"
    assert format_label_selector({"matchExpressions": [{"key": "a", "operator": "Near"}]}) == "<error>"
    assert (
        format_label_selector({"matchExpressions": [{"key": "a", "operator": "In", "values": []}]})
        == "<error>"
    )
    assert format_label_selector({"matchLabels": {"not a key!": "x"}}) == "<error>"
