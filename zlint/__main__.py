import sys

from zlint.cli import main

sys.exit(main())
