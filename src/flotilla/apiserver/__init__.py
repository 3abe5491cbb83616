"""The Kubernetes-compatible API server: the only component that touches storage.

Its rooms, from the top down; each may use the ones below it, never those above (import-linter
checks it; `docs/design/layout.md` says why each line is where it is):

- `server.py`, `embedded.py` — one instance assembled: HTTPS listener, PKI, store, controllers.
- `certificates/` | `housekeeping/` — what runs inside the server besides requests: the Certificates
  API (CSR admission, approval, signer, agent approver), and the API's own controllers (garbage
  collector, namespaces, CRDs, RBAC bootstrap and aggregation, token cleanup, cluster-info).
- `http/` | `localclient.py` — the two ways in: the HTTP edge (app and filters, request parsing,
  negotiation, responses, audit, limits and fairness, discovery, OpenAPI, handlers per verb) and
  the in-process client that controllers and simulated clusters use.
- `writes/` — every create, update, patch, delete and binding: the write pipeline.
- `context.py` — one instance's parts, fixed at start (store, cache, registry, admission,
  authentication and authorization, settings).
- `authn/`, `authz/`, `admission/` — who is asking, what they may do, and the webhooks a write passes.
- `store/` | `encoding/` — objects in memory and on disk (object store, watch cache and history,
  compaction, encryption at rest), and request bodies as data (JSON, YAML, protobuf).
- `registry/` — what is served and the rules of each kind: resources and custom resources,
  strategies, object metadata, schemas, validation, defaults, CEL, tables, apply and patch.
- `pki/` — the CA and certificates on disk, their lifetime, and signing client certificates.
- `errors.py`, `users.py`, `requestinfo.py`, `requestwarnings.py`, `gostrings.py` — what every layer
  speaks: Status errors, users, what a request asks, its warnings, Go's quoting.
"""
