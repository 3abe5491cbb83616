"""kube's in-tree admission for CertificateSigningRequests, in front of the webhooks.

kube-apiserver treats CSRs specially at several points of a write; here they meet in one
`Admission` that wraps the server's webhook admission (and passes every other kind straight on):

- create: the requester's identity replaces whatever `spec.username/uid/groups/extra` the client
  sent (kube's CSR strategy); a `kubernetes.io/kube-apiserver-client` request whose subject names
  the group `system:masters` is refused (the CertificateSubjectRestriction plugin): nobody gets a
  certificate that bypasses authorization through the API;
- update of the object itself: the spec never changes (status is the pipeline's business);
- `status`: the spec never changes, condition timestamps are filled; the update is checked against
  the status rules (`conditions.py`: no Approved/Denied there, a certificate set only once) and,
  when the certificate or the conditions change, the user needs `sign` on the signer (the
  CertificateSigning plugin);
- `approval` (written by `approval.py`, which applies the rules): the user needs `approve` on the
  signer (the CertificateApproval plugin).

"On the signer" is kube's check: verb on resource `signers` of `certificates.k8s.io` named by the
signer name, or failing that by its domain wildcard (`kubernetes.io/*`).
"""

from __future__ import annotations

from typing import Any

from flotilla.api.objects import copy_object
from flotilla.apiserver import errors
from flotilla.apiserver.admission import Admission, AdmissionAttributes
from flotilla.apiserver.authz import AuthorizationAttributes
from flotilla.apiserver.certificates.conditions import populate_timestamps, update_errors
from flotilla.apiserver.certificates.signingrequests import (
    CSR_RESOURCE,
    GROUP,
    KUBE_APISERVER_CLIENT,
    certificate,
    conditions,
    organizations,
    parse_request,
    set_requester,
    signer_name,
)
from flotilla.apiserver.context import APIContext
from flotilla.apiserver.users import UserInfo
from flotilla.apiserver.writes.pipeline import invalid

APPROVAL = "approval"
STATUS = "status"
MASTERS = "system:masters"


def is_signing_request(attributes: AdmissionAttributes) -> bool:
    return attributes.resource.builtin and attributes.resource.type.group_resource == CSR_RESOURCE


def authorized_for_signer(ctx: APIContext, user: UserInfo, verb: str, signer: str) -> bool:
    """Whether `user` may `verb` for `signer`, by name or by its domain's wildcard."""
    domain = signer.split("/", 1)[0]
    for name in (signer, f"{domain}/*"):
        attributes = AuthorizationAttributes(
            user=user,
            verb=verb,
            resource_request=True,
            group=GROUP,
            version="*",
            resource="signers",
            name=name,
        )
        if ctx.authorizer.authorize(attributes).allowed:
            return True
    return False


def forbidden(name: str, reason: str) -> errors.Forbidden:
    return errors.Forbidden(
        f'{CSR_RESOURCE} "{name}" is forbidden: {reason}',
        name=name,
        group=CSR_RESOURCE.group,
        kind=CSR_RESOURCE.resource,
    )


class CertificateAdmission:
    """kube's CSR strategy and CSR admission plugins, then the wrapped admission."""

    def __init__(self, ctx: APIContext, inner: Admission) -> None:
        self.ctx = ctx
        self.inner = inner

    async def mutate(
        self, attributes: AdmissionAttributes, obj: dict[str, Any], old: dict[str, Any] | None
    ) -> list[str]:
        if is_signing_request(attributes):
            if attributes.operation == "CREATE":
                set_requester(obj, attributes.user)
            elif attributes.operation == "UPDATE" and old is not None:
                obj["spec"] = copy_object(old.get("spec") or {})
                if attributes.subresource == STATUS:
                    populate_timestamps(conditions(obj), conditions(old), self.ctx.clock())
        return await self.inner.mutate(attributes, obj, old)

    async def validate(
        self, attributes: AdmissionAttributes, obj: dict[str, Any] | None, old: dict[str, Any] | None
    ) -> list[str]:
        if is_signing_request(attributes) and obj is not None:
            if attributes.operation == "CREATE":
                self._restrict_subject(attributes, obj)
            elif attributes.operation == "UPDATE" and old is not None:
                if attributes.subresource == STATUS:
                    self._check_status(attributes, obj, old)
                elif attributes.subresource == APPROVAL:
                    self._check_approver(attributes, old)
        return await self.inner.validate(attributes, obj, old)

    def _restrict_subject(self, attributes: AdmissionAttributes, obj: dict[str, Any]) -> None:
        if signer_name(obj) != KUBE_APISERVER_CLIENT:
            return
        request = parse_request(obj)
        if request is None:
            raise forbidden(
                attributes.name, "failed to parse CSR: PEM block type must be CERTIFICATE REQUEST"
            )
        if MASTERS in organizations(request):
            raise forbidden(
                attributes.name, f"use of {KUBE_APISERVER_CLIENT} signer with {MASTERS} group is not allowed"
            )

    def _check_status(
        self, attributes: AdmissionAttributes, obj: dict[str, Any], old: dict[str, Any]
    ) -> None:
        found = update_errors(obj, old, status=True)
        if found:
            raise invalid(attributes.resource, attributes.name, found)
        if certificate(obj) == certificate(old) and conditions(obj) == conditions(old):
            return
        signer = signer_name(old)
        if not authorized_for_signer(self.ctx, attributes.user, "sign", signer):
            raise forbidden(
                attributes.name, f'user not permitted to sign requests with signerName "{signer}"'
            )

    def _check_approver(self, attributes: AdmissionAttributes, old: dict[str, Any]) -> None:
        signer = signer_name(old)
        if not authorized_for_signer(self.ctx, attributes.user, "approve", signer):
            raise forbidden(
                attributes.name, f'user not permitted to approve requests with signerName "{signer}"'
            )
