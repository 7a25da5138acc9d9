"""``python -m tarneeb.testing.corpus DIR [--search]``: write the corpus."""

import sys

from tarneeb.testing.corpus.writer import main

sys.exit(main())
