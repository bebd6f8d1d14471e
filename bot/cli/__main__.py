"""`python -m bot.cli`: the same as the `swissbot` command."""

import sys

from bot.cli import main

sys.exit(main())
