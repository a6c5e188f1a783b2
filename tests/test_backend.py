"""Importing polyrelu without the exact backend fails with one clear error that says how to fix it."""

import importlib
import subprocess
import sys

import polyrelu
from polyrelu.errors import BackendUnavailableError, PolyReluError

SCRIPT = """
import sys
sys.modules["cdd.gmp"] = None          # what Python sees when pycddlib was built without GMP
try:
    import polyrelu
except Exception as exc:
    print(type(exc).__name__)
    print(exc)
"""


def test_missing_gmp_module_gives_backend_error_with_fix():
    out = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, check=True).stdout
    kind, message = out.split("\n", 1)
    assert kind == "BackendUnavailableError"
    assert "cdd.gmp" in message and "libcdd-dev libgmp-dev" in message and "--no-binary pycddlib" in message


def test_backend_error_is_a_polyrelu_error_and_an_import_error():
    assert issubclass(BackendUnavailableError, PolyReluError)
    assert issubclass(BackendUnavailableError, ImportError)


def test_exact_backend_present_here():
    gmp = importlib.import_module("cdd.gmp")
    assert hasattr(gmp, "linprog_from_array")
    assert polyrelu.geometry.default_oracle.method == "certified"
