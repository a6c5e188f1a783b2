"""``python -m polyrelu``: the ``polyrelu`` command (:func:`polyrelu.cli.main`), with its exit status."""

import sys

from polyrelu.cli import main

sys.exit(main())
