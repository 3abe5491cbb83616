"""The etcd cluster of `flotilla up --ha`: its members on loopback, each a child process of `up`.

Each member is Debian's `etcd` binary (package `etcd-server`) with a data directory of its own,
`DIR/etcd/<member>`, a client port and a peer port. Both sides speak mutual TLS with certificates
of the cluster's own CA (`DIR/etcd/pki`, kubeadm's layout; issued by `flotilla.apiserver.pki.etcd`
before `up` hands over): members accept a client or a peer only with a certificate of that CA.
The ports are chosen on the first `up --ha` of a data dir and kept in `DIR/up.json`: the peer URLs
are written into the cluster's membership when it forms, so a member that came back on another
port would not be recognised by the others.

The first start forms the cluster (`--initial-cluster-state new`, every member listed in
`--initial-cluster`); later starts find a data directory and rejoin from it, whatever the flags say.
A member serves clients only once the cluster has a leader, so "serving client traffic" in its log
means the quorum is there. Everything here is pure: names, URLs and command lines.
"""

from __future__ import annotations

import re
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from flotilla.cli.localhub.state import ETCD_PREFIX

ETCD_PROGRAM = "etcd"
INSTALL_HINT = (
    "`flotilla up --ha` runs etcd from the system, and no `etcd` binary is on PATH: install it "
    "(Debian and Ubuntu: `sudo apt-get install etcd-server etcd-client`, the second for etcdctl; "
    "elsewhere etcd 3.4 or later from https://github.com/etcd-io/etcd/releases)"
)
SERVING = re.compile(r'"msg":"serving client traffic')
"""What a member logs once it serves clients (etcd 3.4+, zap logger), which needs the quorum."""
CLUSTER_TOKEN = "flotilla-up"  # noqa: S105 - etcd's cluster id seed, not a secret


class EtcdCertificates(Protocol):
    """The certificate files of the cluster (`flotilla.apiserver.pki.etcd.EtcdPKIPaths` has them)."""

    @property
    def ca_cert(self) -> Path: ...
    @property
    def apiserver_client_cert(self) -> Path: ...
    @property
    def apiserver_client_key(self) -> Path: ...
    @property
    def healthcheck_client_cert(self) -> Path: ...
    @property
    def healthcheck_client_key(self) -> Path: ...
    def server_cert(self, member: str) -> Path: ...
    def server_key(self, member: str) -> Path: ...
    def peer_cert(self, member: str) -> Path: ...
    def peer_key(self, member: str) -> Path: ...


@dataclass(frozen=True, slots=True)
class EtcdMember:
    name: str
    client_port: int
    peer_port: int
    host: str = "127.0.0.1"

    @property
    def client_url(self) -> str:
        return f"https://{self.host}:{self.client_port}"

    @property
    def peer_url(self) -> str:
        return f"https://{self.host}:{self.peer_port}"


@dataclass(frozen=True, slots=True)
class EtcdCluster:
    """The members of one `up --ha` and where their files are."""

    members: tuple[EtcdMember, ...]
    directory: Path
    """`DIR/etcd`: the members' data directories and `pki/`."""
    certificates: EtcdCertificates

    @property
    def client_urls(self) -> str:
        """Every member's client URL, comma-separated (`--etcd-servers`, `--endpoints`)."""
        return ",".join(member.client_url for member in self.members)

    def data_dir(self, member: EtcdMember) -> Path:
        return self.directory / member.name

    def command(self, member: EtcdMember, program: str) -> tuple[str, ...]:
        """The command line of `member` (`program` is the etcd binary)."""
        certificates = self.certificates
        initial_cluster = ",".join(f"{m.name}={m.peer_url}" for m in self.members)
        return (
            program,
            f"--name={member.name}",
            f"--data-dir={self.data_dir(member)}",
            f"--listen-client-urls={member.client_url}",
            f"--advertise-client-urls={member.client_url}",
            f"--listen-peer-urls={member.peer_url}",
            f"--initial-advertise-peer-urls={member.peer_url}",
            f"--initial-cluster={initial_cluster}",
            "--initial-cluster-state=new",
            f"--initial-cluster-token={CLUSTER_TOKEN}",
            f"--trusted-ca-file={certificates.ca_cert}",
            f"--cert-file={certificates.server_cert(member.name)}",
            f"--key-file={certificates.server_key(member.name)}",
            "--client-cert-auth",
            f"--peer-trusted-ca-file={certificates.ca_cert}",
            f"--peer-cert-file={certificates.peer_cert(member.name)}",
            f"--peer-key-file={certificates.peer_key(member.name)}",
            "--peer-client-cert-auth",
            "--logger=zap",
            "--log-level=info",
        )

    def apiserver_arguments(self) -> tuple[str, ...]:
        """The flags that put an API server's store on this cluster (key prefix: `/registry`)."""
        return (
            "--etcd-servers",
            self.client_urls,
            "--etcd-cafile",
            str(self.certificates.ca_cert),
            "--etcd-certfile",
            str(self.certificates.apiserver_client_cert),
            "--etcd-keyfile",
            str(self.certificates.apiserver_client_key),
        )

    def etcdctl_environment(self) -> str:
        """Shell lines that point `etcdctl` at this cluster, with the health-check client certificate."""
        certificates = self.certificates
        return (
            "# Source this file to point etcdctl at the etcd cluster of `flotilla up --ha`.\n"
            "export ETCDCTL_API=3\n"
            f"export ETCDCTL_ENDPOINTS={self.client_urls}\n"
            f"export ETCDCTL_CACERT={certificates.ca_cert}\n"
            f"export ETCDCTL_CERT={certificates.healthcheck_client_cert}\n"
            f"export ETCDCTL_KEY={certificates.healthcheck_client_key}\n"
        )


def member_names(count: int) -> list[str]:
    """`etcd-1` … `etcd-<count>`."""
    return [f"{ETCD_PREFIX}{index}" for index in range(1, count + 1)]


def find_etcd() -> str | None:
    """The etcd binary on PATH, None when it is not installed."""
    return shutil.which(ETCD_PROGRAM)
