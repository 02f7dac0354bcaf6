"""``python -m host_functions.sdk SOURCE... -o OUT_DIR`` compiles guest transforms to ``.wasm``."""

import sys

from host_functions.sdk.build import main

sys.exit(main())
