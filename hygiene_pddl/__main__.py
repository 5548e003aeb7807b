import sys

from hygiene_pddl.cli import main

sys.exit(main())
