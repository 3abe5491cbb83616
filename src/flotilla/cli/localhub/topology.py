"""How many etcd members and API servers one `flotilla up` runs: the flags, else the previous run's.

`up` keeps the store in SQLite unless told otherwise; `--ha` means three etcd members and two API
servers; `--etcd-members N` and `--apiservers N` say each on its own. Without flags a data dir keeps
what it ran last time, since its data is where that run put it. What cannot work is refused before
anything starts: an even number of members (it survives no more failures than one member fewer),
several API servers without etcd (they share a store only there), a different number of members
for a cluster that exists (`up` does not change a cluster's membership), and etcd for a hub whose
store is a SQLite file (`flotilla store migrate` moves it). Pure: numbers in, numbers out.
"""

from __future__ import annotations

from dataclasses import dataclass

HA_ETCD_MEMBERS = 3
HA_APISERVERS = 2


class TopologyError(ValueError):
    """The flags ask for something `up` cannot run; the message says what to do instead."""


@dataclass(frozen=True, slots=True)
class Topology:
    etcd_members: int
    """0: no etcd, the store is SQLite in the first API server's data dir."""
    apiservers: int


@dataclass(frozen=True, slots=True)
class PreviousRun:
    """What the data dir holds already, as the messages name it."""

    etcd_members: int = 0
    apiservers: int = 1
    etcd_directory: str = "DIR/etcd"
    data_dir: str = "DIR"
    sqlite_store: str | None = None
    """The SQLite file of a hub that has one, else None."""


def settle_topology(
    previous: PreviousRun, *, ha: bool = False, etcd_members: int | None = None, apiservers: int | None = None
) -> Topology:
    """This run's etcd members and API servers; TopologyError for a combination that cannot work."""
    before = previous.etcd_members
    if etcd_members is None:
        etcd_members = before or (HA_ETCD_MEMBERS if ha or (apiservers or 1) > 1 else 0)
    if apiservers is None:
        apiservers = HA_APISERVERS if ha else previous.apiservers
    if etcd_members % 2 == 0 and etcd_members:
        raise TopologyError(
            f"--etcd-members {etcd_members}: use an odd number (1, 3, 5, 7); an even cluster survives "
            "no more member failures than one member fewer, and needs more for its quorum"
        )
    if apiservers > 1 and not etcd_members:
        raise TopologyError("several API servers share a store only on etcd: add --etcd-members 3 (or --ha)")
    if before and etcd_members != before:
        raise TopologyError(
            f"the etcd cluster in {previous.etcd_directory} has {before} members and `up` does not change a "
            f"cluster's membership; run with --etcd-members {before}, or remove {previous.data_dir} to "
            "start over (its data goes with it)"
        )
    if etcd_members and not before and previous.sqlite_store is not None:
        raise TopologyError(
            f"the hub in {previous.data_dir} keeps its store in SQLite ({previous.sqlite_store}); "
            "`flotilla store migrate` moves it to etcd, or give `up --ha` another --data-dir"
        )
    return Topology(etcd_members, apiservers)
