"""Label selectors: kube's string grammar and messages, the object form, matching, canonical strings."""

from __future__ import annotations

import string

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from flotilla.api.fielderrors import ErrorType
from flotilla.api.selectors import (
    EVERYTHING,
    NOTHING,
    LabelSelector,
    Operator,
    Requirement,
    SelectorError,
    go_quoted,
    label_selector_from_object,
    label_selector_from_set,
    parse_int64,
    parse_label_selector,
    validate_label_selector,
)

NAME_RULE = (
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
    "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
    "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
)
VALUE_RULE = (
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must "
    "start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used "
    "for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
)


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("", ""),
        ("   ", ""),
        ("a=b", "a=b"),
        ("a==b", "a==b"),
        ("a!=b", "a!=b"),
        ("a", "a"),
        ("!a", "!a"),
        ("a=", "a="),
        (" a = b , c ", "a=b,c"),
        ("\ta\nin\r(x, y)", "a in (x,y)"),
        ("b=1,a=2", "a=2,b=1"),
        ("x in (foo,,baz),y,z notin ()", "x in (,baz,foo),y,z notin ()"),
        ("a in (c,b,a,b)", "a in (a,b,c)"),
        ("a in (,b)", "a in (,b)"),
        ("a in (b,)", "a in (,b)"),
        ("in in (in,notin)", "in in (in,notin)"),
        ("a=in", "a=in"),
        ("a>1,b<20", "a>1,b<20"),
        ("example.com/app=web", "example.com/app=web"),
        ("a=b\x00 garbage ((", "a=b"),
    ],
)
def test_valid_strings_parse_to_their_canonical_form(text: str, canonical: str) -> None:
    """Accepted strings print back as apimachinery's Selector.String() prints them."""
    assert str(parse_label_selector(text)) == canonical


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (",", "found ',', expected: !, identifier, or 'end of string'"),
        ("=a", "found '=', expected: !, identifier, or 'end of string'"),
        ("a,", "found '', expected: identifier after ','"),
        ("a,,b", "found ',', expected: identifier after ','"),
        ("a=b c", "found 'c', expected: ',' or 'end of string'"),
        ("!a=b", "found '=', expected: ',' or 'end of string'"),
        ("a b", "unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt"),
        ("a >= 1", "unable to parse requirement: found '=', expected: identifier"),
        ("!", "unable to parse requirement: found '', expected: identifier"),
        ("!!a", "unable to parse requirement: found '!', expected: identifier"),
        ("a in b", "unable to parse requirement: found 'b' expected: '('"),
        ("a in", "unable to parse requirement: found '' expected: '('"),
        ("a in (b", "unable to parse requirement: found '', expected: ',' or ')'"),
        ("a in (b c)", "unable to parse requirement: found 'c', expected: ',' or ')'"),
        ("a in (=)", "unable to parse requirement: found '=', expected: ',', ')' or identifier"),
        ("a in (b,=)", "unable to parse requirement: found '=', expected: ',', or identifier"),
        ("a in (b,,)", "unable to parse requirement: found ')', expected: ',', or identifier"),
        ("a=(b)", "unable to parse requirement: found '(', expected: identifier"),
        ("-a=b", f'unable to parse requirement: <nil>: Invalid value: "-a": {NAME_RULE}'),
        ("a:b", f'unable to parse requirement: <nil>: Invalid value: "a:b": {NAME_RULE}'),
        ("a=-b", f'unable to parse requirement: values[0][a]: Invalid value: "-b": {VALUE_RULE}'),
        (
            "a in (ok,-b,-c)",
            f'unable to parse requirement: [values[0][a]: Invalid value: "-b": {VALUE_RULE}, '
            f'values[1][a]: Invalid value: "-c": {VALUE_RULE}]',
        ),
        (
            "a>x",
            "unable to parse requirement: values[0]: Invalid value: \"x\": for 'Gt', 'Lt' operators, "
            "the value must be an integer",
        ),
    ],
)
def test_invalid_strings_are_refused_with_kube_messages(text: str, message: str) -> None:
    """Each malformed selector raises SelectorError worded exactly as kube-apiserver words it."""
    with pytest.raises(SelectorError) as caught:
        parse_label_selector(text)
    assert str(caught.value) == message


def test_a_key_with_two_slashes_gets_the_qualified_name_message() -> None:
    """A key with more than one '/' is refused with the whole-qualified-name rule, as kube does."""
    with pytest.raises(
        SelectorError, match=r'^unable to parse requirement: <nil>: Invalid value: "a/b/c": a qualified'
    ):
        parse_label_selector("a/b/c=d")


def test_quotes_in_messages_follow_go_rules() -> None:
    """Values in messages are quoted like Go's %q: escapes for quotes, backslashes and controls."""
    assert go_quoted('a"b\\c\x01\u00e9\u2028') == '"a\\"b\\\\c\\x01\u00e9\\u2028"'


LABELS = {"app": "web", "tier": "front", "replicas": "3"}


@pytest.mark.parametrize(
    ("text", "matches"),
    [
        ("app=web", True),
        ("app==web", True),
        ("app=db", False),
        ("app!=db", True),
        ("app!=web", False),
        ("missing!=x", True),
        ("missing=x", False),
        ("missing=", False),
        ("app in (db,web)", True),
        ("app in (db)", False),
        ("missing in (x)", False),
        ("app notin (db)", True),
        ("app notin (web,db)", False),
        ("missing notin (x)", True),
        ("app", True),
        ("missing", False),
        ("!app", False),
        ("!missing", True),
        ("replicas>2", True),
        ("replicas>3", False),
        ("replicas<4", True),
        ("app>1", False),
        ("missing<1", False),
        ("app=web,tier=front", True),
        ("app=web,tier=back", False),
        ("", True),
    ],
)
def test_matching_follows_kube_semantics(text: str, matches: bool) -> None:
    """Negative operators match objects lacking the key; positive ones and comparisons do not."""
    assert parse_label_selector(text).matches(LABELS) is matches


def test_missing_labels_read_as_no_labels() -> None:
    """Objects without labels (None) match selectors that only exclude, and nothing that requires."""
    assert parse_label_selector("a!=b,!c").matches(None)
    assert not parse_label_selector("a").matches(None)


def test_empty_and_nothing_selectors_are_explicit() -> None:
    """The empty selector matches everything and is empty; the nothing selector matches nothing."""
    assert EVERYTHING.empty
    assert EVERYTHING.matches_everything
    assert EVERYTHING.matches({"a": "b"})
    assert not NOTHING.empty
    assert not NOTHING.matches_everything
    assert not NOTHING.matches({})
    assert not NOTHING.matches(None)
    assert str(NOTHING) == ""
    assert NOTHING.add(Requirement("a", Operator.EXISTS)) is NOTHING


def test_selectors_are_hashable_and_compare_by_requirements() -> None:
    """Equal selectors hash equal whatever order their requirements were given in."""
    first = LabelSelector((Requirement("b", Operator.EXISTS), Requirement("a", Operator.EQUALS, ("x",))))
    second = parse_label_selector("a=x,b")
    assert first == second
    assert hash(first) == hash(second)
    assert parse_label_selector("a=x") != parse_label_selector("a==x")


def test_add_combines_requirements_in_key_order() -> None:
    """Adding requirements keeps the key order that the canonical string shows."""
    selector = parse_label_selector("b=1").add(Requirement("a", Operator.DOES_NOT_EXIST))
    assert str(selector) == "!a,b=1"


def test_selector_from_set_is_exact_match_and_empty_set_selects_all() -> None:
    """A label set becomes key=value requirements; an empty or missing set matches everything."""
    assert str(label_selector_from_set({"b": "2", "a": "1"})) == "a=1,b=2"
    assert label_selector_from_set({}) == EVERYTHING
    assert label_selector_from_set(None) == EVERYTHING


@pytest.mark.parametrize(
    ("text", "number"),
    [
        ("0", 0),
        ("+7", 7),
        ("-12", -12),
        ("9223372036854775807", 2**63 - 1),
        ("9223372036854775808", None),
        ("", None),
        ("-", None),
        ("1_0", None),
        (" 1", None),
        ("\u0661", None),
        ("1.0", None),
    ],
)
def test_integers_parse_as_go_parseint_does(text: str, number: int | None) -> None:
    """Comparison operands accept what strconv.ParseInt(s, 10, 64) accepts and nothing more."""
    assert parse_int64(text) == number


# --- the object form ----------------------------------------------------------------------------


def test_object_selector_none_selects_nothing_and_empty_selects_everything() -> None:
    """A missing selector matches nothing while `{}` matches every object."""
    assert label_selector_from_object(None) == NOTHING
    assert label_selector_from_object({}) == EVERYTHING
    assert label_selector_from_object({"matchLabels": {}, "matchExpressions": []}).matches({"x": "y"})


def test_object_selector_converts_to_the_canonical_string() -> None:
    """matchLabels and matchExpressions become one selector whose string Scale status.selector uses."""
    selector = label_selector_from_object(
        {
            "matchLabels": {"tier": "front", "app": "web"},
            "matchExpressions": [
                {"key": "env", "operator": "NotIn", "values": ["prod", "dev"]},
                {"key": "app", "operator": "In", "values": ["web", "api"]},
                {"key": "canary", "operator": "DoesNotExist"},
                {"key": "zone", "operator": "Exists", "values": []},
            ],
        }
    )
    assert str(selector) == "app=web,app in (api,web),!canary,env notin (dev,prod),tier=front,zone"
    assert selector.matches({"app": "web", "tier": "front", "zone": "a"})
    assert not selector.matches({"app": "web", "tier": "front", "zone": "a", "env": "prod"})


def test_object_selector_errors_carry_paths_under_the_base_path() -> None:
    """Every problem becomes a FieldError at its path, and the raised message lists them all."""
    selector = {
        "matchLabels": {"ok": "-bad"},
        "matchExpressions": [
            {"key": "a", "operator": "In", "values": []},
            {"key": "b", "operator": "Exists", "values": ["x"]},
            {"key": "-c", "operator": "Near"},
            {"key": "d", "operator": "NotIn", "values": ["fine", "-e"]},
        ],
    }
    errors = validate_label_selector(selector, "spec.selector")
    assert [(e.type, e.field) for e in errors] == [
        (ErrorType.INVALID, "spec.selector.matchLabels"),
        (ErrorType.REQUIRED, "spec.selector.matchExpressions[0].values"),
        (ErrorType.FORBIDDEN, "spec.selector.matchExpressions[1].values"),
        (ErrorType.INVALID, "spec.selector.matchExpressions[2].operator"),
        (ErrorType.INVALID, "spec.selector.matchExpressions[2].key"),
        (ErrorType.INVALID, "spec.selector.matchExpressions[3].values[1]"),
    ]
    assert str(errors[1]) == (
        "spec.selector.matchExpressions[0].values: Required value: "
        "must be specified when `operator` is 'In' or 'NotIn'"
    )
    assert (
        str(errors[3])
        == 'spec.selector.matchExpressions[2].operator: Invalid value: "Near": not a valid selector operator'
    )
    with pytest.raises(SelectorError) as caught:
        label_selector_from_object(selector, "spec.selector")
    assert caught.value.causes == tuple(errors)
    assert str(caught.value).startswith("[spec.selector.matchLabels: Invalid value: ")


def test_object_selector_of_the_wrong_shape_is_a_type_error() -> None:
    """Non-object selectors, non-list expressions and non-string values are reported, not crashed on."""
    assert [e.field for e in validate_label_selector("app=web", "spec.selector")] == ["spec.selector"]
    errors = validate_label_selector(
        {"matchLabels": {"a": 1}, "matchExpressions": [{"key": "k", "operator": "In", "values": [2]}]}, "s"
    )
    assert [(e.type, e.field) for e in errors] == [
        (ErrorType.TYPE_INVALID, "s.matchLabels"),
        (ErrorType.TYPE_INVALID, "s.matchExpressions[0].values[0]"),
    ]
    assert validate_label_selector({"matchExpressions": "nope"}, "s")[0].field == "s.matchExpressions"


# --- properties ---------------------------------------------------------------------------------

ALPHANUMERIC = string.ascii_letters + string.digits
LOWER_ALPHANUMERIC = string.ascii_lowercase + string.digits


def _bounded(outer: str, inner: str) -> st.SearchStrategy[str]:
    """Strings of `outer` characters, or two such runs around a run of `inner` characters."""
    run = st.text(outer, min_size=1, max_size=4)
    return st.one_of(run, st.builds(lambda a, m, b: a + m + b, run, st.text(inner, max_size=4), run))


names = _bounded(ALPHANUMERIC, ALPHANUMERIC + "-_.")
prefixes = _bounded(LOWER_ALPHANUMERIC, LOWER_ALPHANUMERIC + "-.").filter(
    lambda p: ".." not in p and ".-" not in p and "-." not in p
)
keys = st.one_of(names, st.builds(lambda prefix, name: f"{prefix}/{name}", prefixes, names))
values = st.one_of(st.just(""), names)
value_sets = st.lists(values, min_size=1, max_size=4, unique=True).map(lambda vs: tuple(sorted(vs)))
label_sets = st.dictionaries(
    st.sampled_from(["a", "b", "c", "example.com/d"]), st.sampled_from(["", "x", "y", "1"])
)


@st.composite
def requirements(draw: st.DrawFn) -> Requirement:
    key = draw(keys)
    operator = draw(st.sampled_from(list(Operator)))
    if operator in (Operator.EXISTS, Operator.DOES_NOT_EXIST):
        return Requirement(key, operator)
    if operator in (Operator.IN, Operator.NOT_IN):
        return Requirement(key, operator, draw(value_sets))
    if operator in (Operator.GREATER_THAN, Operator.LESS_THAN):
        return Requirement(key, operator, (str(draw(st.integers(0, 10**6))),))
    return Requirement(key, operator, (draw(values),))


@settings(max_examples=200)
@given(st.lists(requirements(), max_size=5))
def test_the_string_form_parses_back_to_an_equal_selector(reqs: list[Requirement]) -> None:
    """str() of any valid selector is accepted by the parser and yields the same selector."""
    selector = LabelSelector(tuple(reqs))
    assert parse_label_selector(str(selector)) == selector


@settings(max_examples=300)
@given(st.text(alphabet="ab=!(), in\tx-./", max_size=16))
def test_parsing_arbitrary_text_only_fails_with_selector_errors_and_is_idempotent(text: str) -> None:
    """Any text either parses, to a selector whose string parses to itself, or raises SelectorError."""
    try:
        selector = parse_label_selector(text)
    except SelectorError:
        return
    assert parse_label_selector(str(selector)) == selector


@given(keys, values, label_sets)
def test_not_equals_is_the_negation_of_equals(key: str, value: str, labels: dict[str, str]) -> None:
    """`k!=v` matches exactly the label sets `k=v` does not."""
    assert parse_label_selector(f"{key}!={value}").matches(labels) is not parse_label_selector(
        f"{key}={value}"
    ).matches(labels)


@given(st.sampled_from(["a", "b", "example.com/d"]), value_sets, label_sets)
def test_notin_is_the_negation_of_in(key: str, vals: tuple[str, ...], labels: dict[str, str]) -> None:
    """`k notin (..)` matches exactly the label sets `k in (..)` does not, and `!k` negates `k`."""
    listed = ",".join(vals)
    assert parse_label_selector(f"{key} notin ({listed})").matches(labels) is not parse_label_selector(
        f"{key} in ({listed})"
    ).matches(labels)
    assert parse_label_selector(f"!{key}").matches(labels) is not parse_label_selector(key).matches(labels)


@given(st.dictionaries(keys, values, max_size=4), label_sets)
def test_a_set_selector_matches_exactly_supersets(
    selector_labels: dict[str, str], labels: dict[str, str]
) -> None:
    """A selector built from a label set matches the objects carrying every one of those pairs."""
    expected = all(labels.get(k) == v for k, v in selector_labels.items())
    assert label_selector_from_set(selector_labels).matches(labels) is expected
