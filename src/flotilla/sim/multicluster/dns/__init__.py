"""A member's DNS for multi-cluster services: what to answer (`records`) and a UDP server (`server`)."""
