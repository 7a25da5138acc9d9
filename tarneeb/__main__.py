"""``python -m tarneeb``: the ``tarneeb`` command."""

from tarneeb.cli.entry import main

main()
