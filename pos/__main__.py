"""`python -m pos` is `booth`."""

from pos.cli.entry import main

main()
