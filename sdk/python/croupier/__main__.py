"""`python -m croupier ...`: the `croupier` command."""

from ._cli import main

main()
