"""Go tabwriter alignment as kubectl uses it: blocks of consecutive lines, last cell never padded."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from flotilla.cli.output.tabwriter import DESCRIBE_PADDING, GET_PADDING, align, render, table


def test_cells_are_padded_to_the_widest_cell_plus_padding() -> None:
    """Each tab-terminated cell is as wide as the widest cell of its column plus the padding."""
    assert align(["NAME\tAGE", "member1\t5m"], GET_PADDING) == ["NAME      AGE", "member1   5m"]


def test_the_last_cell_of_a_line_is_never_padded_but_empty_cells_are() -> None:
    """An empty last column adds no spaces, while the column before it keeps its padding."""
    lines = align(["A\tB\tC", "aaaa\t\t"], GET_PADDING)
    assert lines == ["A      B   C", "aaaa   " + "    "]


def test_a_line_with_fewer_cells_ends_the_column_block() -> None:
    """Lines after a line without a tab are aligned on their own, as in kubectl describe."""
    lines = align(["Name:\tnginx", "Spec:", "  Replicas:\t2", "  Paused:\tfalse"], DESCRIBE_PADDING)
    assert lines == ["Name:  nginx", "Spec:", "  Replicas:  2", "  Paused:    false"]


def test_a_deeper_column_is_aligned_only_among_lines_that_have_it() -> None:
    """The second column's block stops at a line with only one tab."""
    lines = align(["a\tbb\tx", "aaa\tb\ty", "a\tz"], 1)
    assert lines == ["a   bb x", "aaa b  y", "a   z"]


def test_render_ends_every_line_with_a_newline_and_nothing_for_no_lines() -> None:
    """The rendered text is one newline-terminated line per input line."""
    assert render([], GET_PADDING) == ""
    assert render(["x\ty"], GET_PADDING) == "x   y\n"


def test_tables_pad_columns_three_apart_without_trailing_blanks() -> None:
    """`table` (token list, accept --list, plan): every cell starts under its header, no blank tails."""
    assert table([("A", "LONGER"), ("value", "x")]) == ["A       LONGER", "value   x"]
    assert table([["CLUSTER", "PLANNED"], ["m1", "10"], ["member-two", "-"]]) == [
        "CLUSTER      PLANNED",
        "m1           10",
        "member-two   -",
    ]
    assert table([("NAME", "DESCRIPTION"), ("a", "")]) == ["NAME   DESCRIPTION", "a"]


def test_table_cells_keep_their_tabs() -> None:
    """Cells are given as cells, so a tab in a value does not start a new column."""
    assert table([("A", "B"), ("x\ty", "z")], DESCRIBE_PADDING) == ["A    B", "x\ty  z"]


@given(
    st.lists(
        st.lists(st.text(alphabet="abc xyz-", max_size=6), min_size=2, max_size=4), min_size=1, max_size=6
    )
)
def test_aligned_rows_of_equal_cell_count_start_every_column_at_the_same_offset(
    rows: list[list[str]],
) -> None:
    """With the same number of cells per line, every column starts at one offset on every line."""
    width = len(rows[0])
    rows = [(row + [""] * width)[:width] for row in rows]
    aligned = align(["\t".join(row) for row in rows], GET_PADDING)
    offsets: list[int] = []
    for column in range(width - 1):
        offsets.append(max(len(row[column]) for row in rows) + GET_PADDING + (offsets[-1] if offsets else 0))
    for row, line in zip(rows, aligned, strict=True):
        assert line.endswith(row[-1])
        for column, offset in enumerate(offsets):
            start = offsets[column - 1] if column else 0
            assert line[start:offset].rstrip(" ") == row[column].rstrip(" ")
