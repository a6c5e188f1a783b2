"""Output files that are never lost: checked targets and atomic replacement.

Every file polyrelu writes (networks, complexes, weights, graphs, figures)
goes through :func:`atomic_write`: the content is written to a temporary file
in the target's own directory, flushed to disk, and only then renamed onto the
target with :func:`os.replace`, which is atomic on POSIX and Windows. An
error, Ctrl-C or ``SIGTERM`` in the middle leaves the previous file exactly as
it was, and a reader never sees a half-written file.

:func:`check_output_path` is called before any long computation, so that a
typo in ``-o`` fails in milliseconds instead of after the work is done;
:func:`write_json` does both for a JSON document, which it builds only once
the target is known to be writable.

Nothing here knows about networks.
"""

import contextlib
import json
import os
import secrets
from pathlib import Path

from .errors import InvalidArgumentError, OutputPathError

__all__ = ["atomic_write", "check_output_path", "write_json"]


def check_output_path(path, *, suffixes=None, inputs=()):
    """Check that ``path`` can be written, before any work is done.

    Parameters
    ----------
    path : str or os.PathLike
        The target file.
    suffixes : sequence of str, optional
        Allowed suffixes (such as ``(".json",)``), compared case-insensitively;
        ``None`` allows any.
    inputs : sequence of str or os.PathLike
        Files the command reads: the target must not be one of them.

    Returns
    -------
    pathlib.Path

    Raises
    ------
    InvalidArgumentError
        ``path`` is not a string or path.
    OutputPathError
        The directory does not exist or cannot be written, the target is a
        directory or one of the inputs, or its suffix is not allowed.

    Examples
    --------
    >>> import tempfile, os
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     check_output_path(os.path.join(tmp, "out.json"), suffixes=(".json",)).name
    'out.json'
    >>> check_output_path("/no/such/dir/out.json")
    Traceback (most recent call last):
    ...
    polyrelu.errors.OutputPathError: /no/such/dir/out.json: the directory /no/such/dir does not exist; create it first or choose another path
    """
    if not isinstance(path, (str, os.PathLike)) or (isinstance(path, str) and not path.strip()):
        raise InvalidArgumentError(f"output path: expected a file name, got {path!r}")
    target = Path(path)
    if suffixes is not None and target.suffix.lower() not in {s.lower() for s in suffixes}:
        raise OutputPathError(
            f"{target}: the suffix {target.suffix or '(none)'!r} is not one of {', '.join(suffixes)}; name the file accordingly"
        )
    if target.is_dir():
        raise OutputPathError(f"{target}: is a directory; give a file name")
    parent = target.parent if str(target.parent) else Path(".")
    if not parent.is_dir():
        raise OutputPathError(f"{target}: the directory {parent} does not exist; create it first or choose another path")
    for source in inputs:
        if source is not None and _same_file(target, Path(source)):
            raise OutputPathError(f"{target}: is the input file; writing there would destroy it, choose another path")
    # os.access says yes to root even on a read-only file system: try it
    fd, probe = _create_temporary(target, parent, ".probe")
    os.close(fd)
    os.unlink(probe)
    if target.exists() and not os.access(target, os.W_OK):
        raise OutputPathError(f"{target}: the existing file is read-only; remove it or choose another path")
    return target


def _same_file(a, b):
    try:
        return a.exists() and b.exists() and os.path.samefile(a, b)
    except OSError:
        return False


@contextlib.contextmanager
def atomic_write(path, mode="w", *, encoding="utf-8"):
    """Open a file for writing that appears at ``path`` only once it is complete.

    Parameters
    ----------
    path : str or os.PathLike
    mode : {"w", "wb"}
        Text (``encoding``) or binary.

    Yields
    ------
    file object
        A temporary file in the target's directory. When the ``with`` block
        ends normally it is flushed, synced and renamed onto ``path``; when it
        ends by any exception (``KeyboardInterrupt`` included) it is removed
        and ``path`` is left as it was.

    Raises
    ------
    OutputPathError
        The temporary file cannot be created or renamed.

    Examples
    --------
    >>> import tempfile, os
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     target = os.path.join(tmp, "a.txt")
    ...     with atomic_write(target) as fh:
    ...         _ = fh.write("new")
    ...     open(target).read()
    'new'

    Notes
    -----
    The new file gets the permissions of the file it replaces, or the usual
    ``0o666`` minus the umask for a new file (a bare temporary file would be
    private to its owner).
    """
    if mode not in ("w", "wb"):
        raise InvalidArgumentError(f"atomic_write: mode must be 'w' or 'wb', not {mode!r}")
    target = Path(path)
    directory = target.parent if str(target.parent) else Path(".")
    fd, temp = _create_temporary(target, directory, ".tmp")
    try:
        with os.fdopen(fd, mode, **({"encoding": encoding} if mode == "w" else {})) as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(temp, _mode_for(target))
        os.replace(temp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise


def _create_temporary(target, directory, suffix):
    """``(fd, path)`` of a new file ``.{target name}.{random}{suffix}`` in ``directory``, created exclusively.

    The name is chosen before the file exists, so an interrupt (Ctrl-C,
    ``SIGTERM``) at any moment of the creation leaves nothing behind: the file
    is removed by name. Blocking the signals instead would not do, since a
    process with other threads (a progress bar's monitor) receives them there.
    """
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
    while True:
        path = os.path.join(directory, f".{target.name}.{secrets.token_hex(6)}{suffix}")
        try:
            return os.open(path, flags, 0o600), path
        except FileExistsError:
            continue  # another file has this name: never ours to remove
        except OSError as exc:
            raise OutputPathError(f"{target}: cannot write in {directory} ({exc.strerror}); choose another directory") from None
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(path)
            raise


def _mode_for(target):
    try:
        return os.stat(target).st_mode & 0o7777
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def write_json(path, produce, *, indent=None):
    """Check ``path``, then write the JSON document ``produce()`` there atomically.

    Parameters
    ----------
    path : str or os.PathLike
    produce : callable
        Returns the document; called only once the path is known to be
        writable, so a bad path costs nothing.
    indent : int, optional
        As in :func:`json.dump`.

    Raises
    ------
    OutputPathError
        ``path`` cannot be written (see :func:`check_output_path`).
    ValueError
        The document holds NaN or an infinity, which JSON cannot represent
        (a bug in the caller: documents are built from exact numbers).

    Examples
    --------
    >>> import tempfile, os
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     write_json(os.path.join(tmp, "a.json"), lambda: {"a": [1, "1/2"]})
    ...     open(os.path.join(tmp, "a.json")).read().splitlines()
    ['{"a": [1, "1/2"]}']
    """
    check_output_path(path)
    data = produce()
    with atomic_write(path) as fh:
        json.dump(data, fh, indent=indent, allow_nan=False)
        fh.write("\n")
