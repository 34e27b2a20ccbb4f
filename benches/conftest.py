"""Benchmarks are collected only from this folder and run with ``make bench``."""
