"""``python -m modeller`` behaves exactly like the ``modeller`` program."""

from modeller.entry import main

raise SystemExit(main())
