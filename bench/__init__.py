"""Benchmarks: listed in docs/development.md, figures in bench/RESULTS.md."""
