"""Reading and writing networks and other files: bounded, never executing code, never misreading.

Readers check sizes, nesting and number literals before they allocate
(:class:`Limits`); PyTorch files are opened with ``weights_only=True`` only.
"""

from .limits import DEFAULT_LIMITS, Limits, check_file_size, json_depth, parse_json, read_json

__all__ = ["Limits", "DEFAULT_LIMITS", "read_json", "parse_json", "json_depth", "check_file_size"]
