"""``python -m polycu``: the same as the ``polycu`` command."""
import sys

from .cli import main

sys.exit(main())
