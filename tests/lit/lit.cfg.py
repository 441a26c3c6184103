# lit configuration for tilesched golden tests (run through tests/test_lit.py or `lit tests/lit`).
import os
import shutil
import sys

import lit.formats

config.name = "tilesched"
config.test_format = lit.formats.ShTest()
config.suffixes = [".mlir", ".toml"]
config.excludes = ["Inputs", "lit.cfg.py"]
config.test_source_root = os.path.dirname(__file__)
config.environment["PATH"] = os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", "")
config.environment["PYTHONUNBUFFERED"] = "1"
for name in ("PYTHONPATH", "TILESCHED_PURE_PYTHON"):  # run the tree (and engine) the caller runs
    if name in os.environ:
        config.environment[name] = os.environ[name]
bin_dir = os.path.dirname(sys.executable)
tilesched = shutil.which("tilesched", path=bin_dir) or "tilesched"
config.substitutions.append(("%tilesched", tilesched))
config.substitutions.append(("%filecheck", shutil.which("filecheck", path=bin_dir) or "filecheck"))
config.substitutions.append(("%examples", os.path.join(os.path.dirname(__file__), "..", "..", "examples")))
