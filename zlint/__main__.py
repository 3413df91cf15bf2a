import sys

from zlint.frontends.cli import main

sys.exit(main())
