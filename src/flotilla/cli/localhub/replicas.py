"""The API servers of `flotilla up --ha` after the first: what they share with it and what is their own.

Every API server of one hub must present the same identity and read the same secrets: the same CA
(clients trust one `ca.crt`, and a client certificate of the hub works on each), the same serving
certificate, the same service-account signing key (a token issued by one is accepted by the other)
and the same encryption keys (a Secret sealed by one is opened by the other). Those live in the
first API server's data dir, `DIR/hub`: `pki/` and `encryption-keys.yaml`. Each other API server
gets a data dir of its own, `DIR/hub-2`, … — the files every process writes for itself
(`admin.kubeconfig`, which names its own port, and `audit.log`) would otherwise be overwritten by
the other — and the shared files are copied into it before each start, so a certificate renewed in
`DIR/hub` (`flotilla certs renew`) reaches the others at their next start.
"""

from __future__ import annotations

import shutil
from pathlib import Path

SHARED = ("pki", "encryption-keys.yaml")
"""What every API server of the hub must hold the same copy of (relative to its data dir)."""


def replica_data_dir(hub_data_dir: Path, index: int) -> Path:
    """`DIR/hub` for the first API server, `DIR/hub-2`, `DIR/hub-3` … for the others."""
    return hub_data_dir if index == 1 else hub_data_dir.with_name(f"{hub_data_dir.name}-{index}")


def share_hub_files(first: Path, replica: Path) -> None:
    """Copy the shared files of the first API server's data dir into a replica's (kept private)."""
    replica.mkdir(mode=0o700, parents=True, exist_ok=True)
    replica.chmod(0o700)
    for name in SHARED:
        source, target = first / name, replica / name
        if source.is_dir():
            shutil.copytree(source, target, dirs_exist_ok=True)
        elif source.exists():
            temporary = target.with_name(f".{target.name}.tmp")
            shutil.copy2(source, temporary)
            temporary.replace(target)
        else:
            raise FileNotFoundError(f"{source} is missing: the first API server has not prepared it")
