"""Benchmarks: `python -m bench.pairing`, `python -m bench.round` (results in docs/benchmarks.md)."""
