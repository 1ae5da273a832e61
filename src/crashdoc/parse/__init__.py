"""Parsing: prefixes off each line (kept as fields), tracebacks per process, start attempts."""
