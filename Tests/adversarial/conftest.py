# Lets pytest run the same cases: `python3 -m pytest Tests/adversarial` (async cases need pytest-asyncio,
# or use run.py, which needs nothing).
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
