"""Entry file for a packaged build of the desktop app (``pyside6-deploy packaging/modeller_app.py``, see
README "Packaged build"): the same as the ``modeller-gui`` program. It lives in its own folder because
pyside6-deploy scans the entry file's folder for the Qt modules to bundle and writes its build files there."""

from modeller.entry import gui_main

raise SystemExit(gui_main())
