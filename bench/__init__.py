"""Benchmarks: run by the commands in README.md, figures in bench/RESULTS.md."""
