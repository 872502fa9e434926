"""Performance benchmarks: ``python benchmarks/run.py`` runs every ``bench_*.py`` module."""
