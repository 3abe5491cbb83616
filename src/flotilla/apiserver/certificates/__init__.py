"""The Certificates API: CertificateSigningRequests from creation to garbage collection.

kube splits this between kube-apiserver (the CSR strategy, admission plugins, the `approval` and
`status` subresources) and kube-controller-manager (signers, the cleaner); Karmada adds an approver
for its agents. A Flotilla API server holds the CA and runs them all:

- `signingrequests.py`: reading a CSR object (pure);
- `conditions.py`: the rules of its conditions and certificate (pure);
- `admission.py`: identity recorded at creation, `system:masters` refused, `approve` and `sign`
  permission on signers, status rules — kube's in-tree admission, wrapped around the webhooks;
- `approval.py`: the `approval` subresource (`kubectl certificate approve|deny`);
- `signing.py` and `signer.py`: the `kubernetes.io/kube-apiserver-client` signer with the server's CA;
- `approver.py`: Karmada's auto-approval of agent certificates requested with bootstrap tokens;
- `cleaner.py`: deletion of decided, stale and expired requests;
- `install.py`: wiring all of it into one API server.
"""
