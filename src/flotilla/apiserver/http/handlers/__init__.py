"""HTTP handlers: one module per verb family, all reached through `dispatch`."""
