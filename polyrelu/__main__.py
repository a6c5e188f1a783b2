import sys

from polyrelu.cli import main

sys.exit(main())
