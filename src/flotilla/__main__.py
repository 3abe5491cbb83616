"""`python -m flotilla` runs the `flotilla` command."""

from flotilla.cli.main import main

main()
