"""The hostile-input suite: what an attacker or a careless client sends, and the hub staying well.

Each test sends one bad request (or a few) with a bounded client, checks the answer is a Kubernetes
`Status` with the right code and nothing was half-applied, and — through `probe.Responsiveness` —
that the server kept answering `/readyz` within 100 ms while the request ran.
"""
