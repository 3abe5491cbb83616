"""The server's public-key infrastructure: its CA and certificates on disk, and what it signs.

`directory.py` creates and loads `<data-dir>/pki` (CA, serving and admin certificates),
`lifetime.py` checks and renews them and reloads the serving one live, `signing.py` issues client
certificates for approved CSRs, and `clusterbinding.py` is how an agent's certificate names the
registration it was issued for. The Certificates API that decides *what* to sign is
`certificates/`.
"""
