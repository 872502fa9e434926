"""The UI's name for the shared counted collector pause (:mod:`modeller.runtime.gc_pause`, where it lives)."""

from modeller.runtime.gc_pause import collector_paused, keep_long_lived

__all__ = ["collector_paused", "keep_long_lived"]
