"""Shared by the scripts that write a generated file: write it, or with --check only compare."""
import os
import sys


def write_or_check(path, text, root, source):
    """Writes `text` to `path`; with --check on the command line, exits 1 when the file differs instead
    (naming `source`, what to run or edit). Returns when the file was written."""
    name = os.path.relpath(path, root)
    if "--check" in sys.argv:
        with open(path) as f:
            if f.read() != text:
                sys.exit(f"{name} is not what {source} writes: run it")
        sys.exit(0)
    with open(path, "w") as f:
        f.write(text)
