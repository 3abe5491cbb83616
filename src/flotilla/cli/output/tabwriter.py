"""Columns aligned the way kubectl aligns them: Go's `text/tabwriter` elastic tabstops.

kubectl writes every table (`get`) and every description (`describe`) as lines of tab-separated
cells and lets a tabwriter pad them: `get` with a padding of 3 spaces, `describe` with 2. Matching
its output byte for byte means matching the tabwriter's rules, which are not "pad every column to
its widest cell":

- a cell is the text before a tab; the text after a line's last tab is not a cell and is never
  padded (so only the last column of a table has no trailing spaces);
- a column is aligned only within a *block*: a run of consecutive lines that all have a cell in
  that column. A line with fewer tabs ends the block, and the next block is aligned on its own.
  That is why `describe` aligns `Name:` with `Namespace:` but not with a value after `Spec:`;
- a cell is padded to the widest cell of its block plus the padding, counting characters.

`table` is the same layout for the CLI's own small tables (`token list`, `accept --list`, the
clusters of `plan`, the fields of a plan): rows given as cells, so a tab inside a value stays in
its cell, and trailing blanks trimmed.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

GET_PADDING = 3
"""kubectl get's tabwriter: `tabwriter.NewWriter(out, 0, 8, 3, ' ', 0)`."""
DESCRIBE_PADDING = 2
"""kubectl describe's tabwriter: `tabwriter.NewWriter(out, 0, 8, 2, ' ', 0)`."""


def align(lines: Iterable[str], padding: int) -> list[str]:
    """Each line with its tab-terminated cells padded as Go's tabwriter pads them."""
    return align_cells([line.split("\t") for line in lines], padding)


def align_cells(rows: Sequence[Sequence[str]], padding: int) -> list[str]:
    """`align` of lines already split into cells: every cell but a line's last is padded."""
    widths: list[list[int]] = [[0] * (len(cells) - 1) for cells in rows]
    _measure(rows, widths, 0, len(rows), 0, padding)
    aligned = []
    for cells, cell_widths in zip(rows, widths, strict=True):
        padded = [cell.ljust(width) for cell, width in zip(cells, cell_widths, strict=False)]
        aligned.append("".join(padded) + cells[-1])
    return aligned


def _measure(
    rows: Sequence[Sequence[str]], widths: list[list[int]], first: int, end: int, column: int, padding: int
) -> None:
    """Set the width of `column` for every block of lines in [first, end), then recurse rightwards."""
    line = first
    while line < end:
        if column >= len(rows[line]) - 1:
            line += 1
            continue
        start = line
        width = 0
        while line < end and column < len(rows[line]) - 1:
            width = max(width, len(rows[line][column]) + padding)
            line += 1
        for member in range(start, line):
            widths[member][column] = width
        _measure(rows, widths, start, line, column + 1, padding)


def render(lines: Iterable[str], padding: int) -> str:
    """The aligned lines joined, each ending in a newline (empty when there are no lines)."""
    return "".join(f"{line}\n" for line in align(lines, padding))


def table(rows: Sequence[Sequence[str]], padding: int = GET_PADDING) -> list[str]:
    """Rows of cells aligned as kubectl aligns a table, each line without trailing blanks."""
    return [line.rstrip() for line in align_cells(rows, padding)]
