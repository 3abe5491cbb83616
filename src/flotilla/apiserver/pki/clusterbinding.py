"""Client certificates bound to one registration of a Pull cluster.

An agent's identity is its certificate's subject, `system:karmada:agent:<cluster>`, and RBAC grants
that name its cluster's Works. Names come back: a cluster unjoined and registered again later — by
another member — gets the same name, and a certificate issued to the first member would still be
valid for a year. So the hub's signer names, in every agent certificate it issues, the UID of the
Cluster object the agent was registered as: a URI subject alternative name `urn:uuid:<uid>` (RFC
4122's URN of a UUID; a URI SAN names a workload's identity as SPIFFE does, every TLS stack parses
it, and Kubernetes' authentication ignores it). Authentication reports it as the user's extra
`CLUSTER_UID_EXTRA`, and the certificates package's authorizer refuses an agent whose certificate
names a Cluster that is no longer the one of that name. Only this hub's signer writes the name: it
drops any such URI an agent's request carries (the agent approver refuses URI names anyway).
"""

from __future__ import annotations

from cryptography import x509

URN_PREFIX = "urn:uuid:"
CLUSTER_UID_EXTRA = "registration.flotilla.io/cluster-uid"
"""The user extra holding the UID of the Cluster a client certificate was issued for."""


def binding_name(cluster_uid: str) -> x509.UniformResourceIdentifier:
    """The subject alternative name binding a certificate to the Cluster whose UID is `cluster_uid`."""
    return x509.UniformResourceIdentifier(URN_PREFIX + cluster_uid)


def is_binding_name(name: x509.GeneralName) -> bool:
    return isinstance(name, x509.UniformResourceIdentifier) and name.value.startswith(URN_PREFIX)


def bound_cluster_uids(certificate: x509.Certificate) -> list[str]:
    """The Cluster UIDs `certificate` names (empty when it carries no binding)."""
    try:
        names = certificate.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    except (x509.ExtensionNotFound, ValueError):
        return []
    return [name.value[len(URN_PREFIX) :] for name in names if is_binding_name(name)]


def cluster_uid_extra(der: bytes) -> dict[str, list[str]]:
    """The user extras of the certificate `der` (its cluster binding), empty when it has none."""
    try:
        uids = bound_cluster_uids(x509.load_der_x509_certificate(der))
    except ValueError:
        return {}
    return {CLUSTER_UID_EXTRA: uids} if uids else {}
