#!/usr/bin/env python3
"""Runs every `test_*` function of the `test_*.py` files here against the real server.

    python3 Tests/adversarial/run.py [--bin PATH] [-k SUBSTRING]

Ends with one line 'N passed, N failed' and exits 1 when anything failed.
"""

import argparse
import asyncio
import importlib.util
import inspect
import os
import sys
import time
import traceback
from pathlib import Path


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", default=os.environ.get("MOCK_COLLAB_BIN", ".build/debug/mock-collab"))
    parser.add_argument("-k", default="", help="run only tests whose name contains this")
    options = parser.parse_args()
    os.environ["MOCK_COLLAB_BIN"] = os.path.abspath(options.bin)
    here = Path(__file__).resolve().parent
    sys.path.insert(0, str(here))

    passed = failed = 0
    for path in sorted(here.glob("test_*.py")):
        spec = importlib.util.spec_from_file_location(path.stem, path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        for name, function in inspect.getmembers(module, inspect.isfunction):
            if not name.startswith("test_") or function.__module__ != module.__name__ or options.k not in name:
                continue
            started = time.monotonic()
            try:
                result = function()
                if inspect.iscoroutine(result):
                    asyncio.run(result)
                passed += 1
                print(f"PASS {path.stem}.{name} ({time.monotonic() - started:.1f} s)", flush=True)
            except Exception:
                failed += 1
                print(f"FAIL {path.stem}.{name} ({time.monotonic() - started:.1f} s)", flush=True)
                traceback.print_exc()
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
