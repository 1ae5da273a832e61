"""Parsing: damaged text repaired (repair.py), prefixes off each line (kept as fields; the error-format table of
formats.py gives the level of every C++/Go/Rust/TensorRT/logfmt family), tracebacks per process (traceback.py,
rich boxes in richbox.py), incidents of error lines (incidents.py), start attempts."""
