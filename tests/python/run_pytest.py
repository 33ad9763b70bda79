# SPDX-License-Identifier: MIT
"""Runs one test file of tests/python/ under pytest for ctest:
run_pytest.py TEST_FILE WORK_DIR. Exit 77 (ctest's SKIP_RETURN_CODE) where
numpy or pytest is missing (Debian: python3-numpy, python3-pytest)."""
import os
import sys

missing = []
for mod in ("numpy", "pytest"):
    try:
        __import__(mod)
    except ImportError:
        missing.append(mod)
if missing:
    print("SKIP: no %s for %s (apt-get install %s)" % (
        " and ".join(missing), sys.executable, " ".join("python3-" + m for m in missing)))
    sys.exit(77)

import pytest  # noqa: E402

test, work = sys.argv[1], sys.argv[2]
os.makedirs(work, exist_ok=True)
sys.exit(pytest.main(["-q", "-p", "no:cacheprovider", "--basetemp", os.path.join(work, "tmp"),
                      "-W", "error::pytest.PytestUnraisableExceptionWarning", test]))
