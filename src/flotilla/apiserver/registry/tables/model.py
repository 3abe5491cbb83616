"""What a table convertor is: column definitions plus a function from one object to one row of cells.

`kubectl get` asks for `meta.k8s.io/v1 Table`s and prints whatever columns the server defines; the
server owns the printing logic. Each kind gets a `TableConvertor`: a fixed tuple of `Column`s (the
`columnDefinitions` of the Table) and `cells(obj, now)`, which renders one stored object (plain JSON) into
one row. Cells are JSON scalars; `now` is passed in so ages are computed against the request's clock
and tests never depend on the wall clock.

Like kube-apiserver, every convertor renders the wide (`-o wide`) cells too: the columns with
`priority > 0` are always in the Table and kubectl hides them unless asked.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

from flotilla.apiserver.registry.tables.descriptions import swagger_doc

Cell = str | int | float | bool | None
"""One JSON-serialisable table cell."""


@dataclass(frozen=True, slots=True)
class Column:
    """One `columnDefinitions` entry; kubectl upper-cases `name` for the header."""

    name: str
    type: str
    format: str = ""
    description: str = ""
    priority: int = 0

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "type": self.type,
            "format": self.format,
            "description": self.description,
            "priority": self.priority,
        }


class TableConvertor(Protocol):
    """Renders objects of one kind as Table rows."""

    @property
    def columns(self) -> tuple[Column, ...]: ...

    def cells(self, obj: dict[str, Any], now: datetime) -> list[Any]:
        """One row for `obj`: as many cells as there are columns, in the same order."""
        ...


RowFunction = Callable[[dict[str, Any], datetime], list[Cell]]


@dataclass(frozen=True, slots=True)
class Printer:
    """A `TableConvertor` made of its columns and a row function (one per built-in kind)."""

    columns: tuple[Column, ...]
    row: RowFunction

    def cells(self, obj: dict[str, Any], now: datetime) -> list[Any]:
        return list(self.row(obj, now))


NAME = Column("Name", "string", "name", swagger_doc("ObjectMeta.name"))
"""The first column of nearly every table."""
AGE = Column("Age", "string", description=swagger_doc("ObjectMeta.creationTimestamp"))
"""The age column of the built-in printers (a string cell, already humanised)."""
CONTAINERS = Column(
    "Containers", "string", description="Names of each container in the template.", priority=1
)
IMAGES = Column(
    "Images", "string", description="Images referenced by each container in the template.", priority=1
)


def wide(name: str, description: str, type_: str = "string") -> Column:
    """A column kubectl shows only with `-o wide`."""
    return Column(name, type_, description=description, priority=1)
