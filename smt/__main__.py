import sys

from smt.cli import main

sys.exit(main())
