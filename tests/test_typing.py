"""Every public callable has type hints: all its parameters and its return.

The public callables are the functions and classes in ``__all__`` of
:mod:`polyrelu` and of the modules documented in ``docs/api.md``, with the
classes' constructors and public methods, properties, classmethods and
staticmethods. mypy (``make typecheck``) checks that the hints are right;
this test checks that they are there, so a new public function without them
fails ``make test``.
"""

import enum
import importlib
import inspect
import re
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parents[1]
MODULES = ["polyrelu", *re.findall(r"^::: (\S+)", (REPOSITORY / "docs" / "api.md").read_text(), re.M)]

def missing_annotations(function, *, bound=False, constructor=False):
    """The names of ``function``'s unannotated parameters, and ``"return"`` if its return is unannotated.

    ``bound``: the first parameter is ``self`` or ``cls`` and needs no annotation. A constructor
    other than ``__init__`` (``__new__`` of a NamedTuple) needs no return annotation.
    """
    parameters = list(inspect.signature(function).parameters.values())
    if bound:
        parameters = parameters[1:]
    missing = [p.name for p in parameters if p.annotation is inspect.Parameter.empty]
    needs_return = not constructor or function.__name__ == "__init__"
    if needs_return and inspect.signature(function).return_annotation is inspect.Signature.empty:
        missing.append("return")
    return missing


def _constructor(cls):
    """The ``__init__`` or ``__new__`` that builds ``cls``, if polyrelu defines one (else a builtin's)."""
    for klass in cls.__mro__:
        if not klass.__module__.startswith("polyrelu"):
            return None
        for name in ("__init__", "__new__"):
            function = vars(klass).get(name)
            function = function.__func__ if isinstance(function, staticmethod) else function
            if inspect.isfunction(function):
                return function
    return None


def _members(cls):
    """``(name, function, bound)`` for the public methods, properties, classmethods and staticmethods of ``cls``."""
    seen = set()
    for klass in cls.__mro__:
        if not klass.__module__.startswith("polyrelu"):
            break
        for name, attribute in vars(klass).items():
            if name.startswith("_") or name in seen:
                continue
            seen.add(name)
            if isinstance(attribute, staticmethod):
                yield name, attribute.__func__, False
            elif isinstance(attribute, classmethod):
                yield name, attribute.__func__, True
            elif isinstance(attribute, property):
                yield name, attribute.fget, True
            elif inspect.isfunction(attribute):
                yield name, attribute, True


def public_callables():
    """``{defining module.qualified name: [(what, function, bound, constructor)]}`` over the public API."""
    found = {}
    for module_name in MODULES:
        module = importlib.import_module(module_name)
        for name in module.__all__:
            obj = getattr(module, name)
            if not (inspect.isfunction(obj) or inspect.isclass(obj)):
                continue  # constants
            key = f"{obj.__module__}.{obj.__qualname__}"
            if key in found:
                continue
            if inspect.isfunction(obj):
                found[key] = [(key, obj, False, False)]
                continue
            parts = []
            init = _constructor(obj)
            if init is not None and not issubclass(obj, enum.Enum):
                parts.append((f"{key} constructor", init, True, True))
            parts.extend((f"{key}.{member}", function, bound, False) for member, function, bound in _members(obj))
            found[key] = parts
    return found


def _unannotated(parts):
    return [f"{what}: {', '.join(missing)}" for what, function, bound, constructor in parts
            if (missing := missing_annotations(function, bound=bound, constructor=constructor))]


def test_every_public_callable_is_annotated():
    problems = [line for parts in public_callables().values() for line in _unannotated(parts)]
    assert not problems, "public callables without type hints (parameter names, or 'return'):\n" + "\n".join(problems)


def test_the_check_finds_what_is_missing():
    def bare(a, b: int = 0, *args, **kwargs):
        return a

    def complete(a: int, *args: int, **kwargs: str) -> int:
        return a

    class Thing:
        def __init__(self, x):
            self.x = x

        @property
        def size(self):
            return 1

    assert missing_annotations(bare) == ["a", "args", "kwargs", "return"]
    assert missing_annotations(complete) == []
    assert missing_annotations(Thing.__init__, bound=True, constructor=True) == ["x", "return"]
    assert missing_annotations(Thing.size.fget, bound=True) == ["return"]
