"""The Pull-mode registration flow: `flotilla token`, `register` and `accept`, below their commands.

`tokens` are the bootstrap tokens (their Secret, their row in `token list`); `discovery` is how a
registering member learns to trust the hub from a token and a CA hash, as `kubeadm join` does;
`request` is the agent's private key and CertificateSigningRequest, and waiting for the answer;
`data` is what `register` writes into the agent's data directory and how it starts the agent;
`acceptance` reads the requests that wait for `flotilla accept` and says when accepting is refused.
"""
