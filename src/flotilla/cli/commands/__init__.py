"""TODO: say why this package exists."""
