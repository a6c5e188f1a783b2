"""Import of pycddlib with a clear error when its exact (GMP) module is missing."""

from ..errors import BackendUnavailableError

_FIX = (
    "polyrelu needs pycddlib 3.0.x built against GMP. On Debian/Ubuntu run "
    "'apt-get install libcdd-dev libgmp-dev', then "
    "'pip install --force-reinstall --no-binary pycddlib \"pycddlib==3.0.*\"' "
    "(or simply 'make test', which does both)."
)

try:
    import cdd
except ImportError as exc:  # pragma: no cover - exercised only on broken installs
    raise BackendUnavailableError(f"pycddlib is not installed ({exc}). {_FIX}") from exc
try:
    import cdd.gmp as cdd_gmp
except ImportError as exc:  # pragma: no cover - exercised only on broken installs
    raise BackendUnavailableError(f"pycddlib was built without GMP: 'import cdd.gmp' fails ({exc}). {_FIX}") from exc
if not hasattr(cdd, "linprog_from_array"):  # pragma: no cover
    raise BackendUnavailableError(f"pycddlib {getattr(cdd, '__version__', '2.x')} has the old 2.x API. {_FIX}")

__all__ = ["cdd", "cdd_gmp"]
