"""``python -m modeller`` runs the command line."""

from modeller.cli.main import main

raise SystemExit(main())
