"""Start-up against PySide6's import hook: the Qt-free layers load before Qt, and the source the hook read is let go.

Once PySide6 is imported, shiboken's ``__import__`` reads the whole source of every module imported
after it, or named by an import statement run after it (``inspect.getsource``, to see whether the
module mentions PySide6 and so may switch its ``__feature__`` options); each file's lines then stay in
:mod:`linecache`. PySide6 (6.11) has no switch for this. Importing the model, the loader and the
analysis engine first spares the modules only they import that read (about 0.1 s of the window's 0.7 s
of imports, CPU), and clearing the cache after the last large batch of imports (the preview's Faker)
gives back its memory, 10-18 MiB (RSS target, DESIGN.md "Performance targets"). Nothing here imports Qt.
"""

from __future__ import annotations

import importlib
import linecache

#: the Qt-free layers the window needs at once (the model comes with them)
BEFORE_QT = ("modeller.persistence", "modeller.rules.engine")


def load_before_qt() -> None:
    """Import :data:`BEFORE_QT`; call it before the first PySide6 import (later it only costs a lookup)."""
    for name in BEFORE_QT:
        importlib.import_module(name)


def drop_read_sources() -> None:
    """Forget the source lines read so far (a traceback reads again the few lines it shows)."""
    linecache.clearcache()
