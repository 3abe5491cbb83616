"""The etcd cluster of `flotilla up --ha` as command lines, and the files its API servers share."""

from __future__ import annotations

from pathlib import Path

import pytest

from flotilla.apiserver.pki.etcd import ensure_etcd_pki
from flotilla.cli.localhub.etcdcluster import EtcdCluster, EtcdMember, member_names
from flotilla.cli.localhub.replicas import replica_data_dir, share_hub_files


def cluster(directory: Path) -> EtcdCluster:
    names = member_names(3)
    members = tuple(EtcdMember(name, 2379 + 10 * i, 2380 + 10 * i) for i, name in enumerate(names))
    # EtcdPKIPaths fills the EtcdCertificates protocol the localhub layer declares.
    return EtcdCluster(members, directory, ensure_etcd_pki(directory / "pki", names))


def test_every_member_lists_the_whole_cluster_and_speaks_mutual_tls_both_ways(tmp_path: Path) -> None:
    """Each member names all three peer URLs, its own data dir and certificates, and checks client certs."""
    etcd = cluster(tmp_path)
    command = etcd.command(etcd.members[1], "etcd")
    assert command[0] == "etcd"
    flags = dict(argument.split("=", 1) for argument in command[1:] if "=" in argument)
    assert flags["--name"] == "etcd-2"
    assert flags["--data-dir"] == str(tmp_path / "etcd-2")
    assert flags["--initial-cluster"] == (
        "etcd-1=https://127.0.0.1:2380,etcd-2=https://127.0.0.1:2390,etcd-3=https://127.0.0.1:2400"
    )
    assert flags["--listen-client-urls"] == flags["--advertise-client-urls"] == "https://127.0.0.1:2389"
    assert flags["--cert-file"] == str(tmp_path / "pki" / "etcd-2" / "server.crt")
    assert flags["--peer-cert-file"] == str(tmp_path / "pki" / "etcd-2" / "peer.crt")
    assert flags["--trusted-ca-file"] == flags["--peer-trusted-ca-file"] == str(tmp_path / "pki" / "ca.crt")
    assert "--client-cert-auth" in command and "--peer-client-cert-auth" in command


def test_api_servers_reach_every_member_with_their_own_client_certificate(tmp_path: Path) -> None:
    """`--etcd-servers` lists the three members; the client certificate is the API servers' one."""
    arguments = cluster(tmp_path).apiserver_arguments()
    flags = dict(zip(arguments[::2], arguments[1::2], strict=True))
    assert flags["--etcd-servers"] == "https://127.0.0.1:2379,https://127.0.0.1:2389,https://127.0.0.1:2399"
    assert flags["--etcd-certfile"].endswith("apiserver-etcd-client.crt")
    assert flags["--etcd-keyfile"].endswith("apiserver-etcd-client.key")


def test_a_replica_gets_the_first_api_servers_keys_and_keeps_its_own_files(tmp_path: Path) -> None:
    """pki/ and encryption-keys.yaml are copied (private); admin.kubeconfig and audit.log stay apart."""
    first = tmp_path / "hub"
    (first / "pki").mkdir(parents=True)
    (first / "pki" / "ca.key").write_text("key")
    (first / "pki" / "ca.key").chmod(0o600)
    (first / "encryption-keys.yaml").write_text("keys: 1")
    (first / "admin.kubeconfig").write_text("first")
    replica = replica_data_dir(first, 2)
    assert replica == tmp_path / "hub-2" and replica_data_dir(first, 1) == first
    replica.mkdir()
    (replica / "admin.kubeconfig").write_text("second")
    share_hub_files(first, replica)
    assert (replica / "pki" / "ca.key").read_text() == "key"
    assert (replica / "pki" / "ca.key").stat().st_mode & 0o077 == 0
    assert (replica / "encryption-keys.yaml").read_text() == "keys: 1"
    assert (replica / "admin.kubeconfig").read_text() == "second"
    (first / "encryption-keys.yaml").write_text("keys: 2")  # rotated in DIR/hub: the next start copies it
    share_hub_files(first, replica)
    assert (replica / "encryption-keys.yaml").read_text() == "keys: 2"


def test_a_replica_does_not_start_before_the_first_api_server_made_its_keys(tmp_path: Path) -> None:
    """Missing shared files are an error naming the file, not an API server with keys of its own."""
    with pytest.raises(FileNotFoundError, match="pki"):
        share_hub_files(tmp_path / "hub", tmp_path / "hub-2")
