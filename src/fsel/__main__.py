"""``python -m fsel`` runs the ``fsel`` command."""

import sys

from fsel.cli.main import main

sys.exit(main())
