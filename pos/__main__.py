"""`python -m pos` is `booth`."""

from pos.cli.main import main

main()
