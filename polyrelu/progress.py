"""Progress bars for the long computations, one set-up for all of them.

A bar goes to standard error, appears only after a second (quick runs stay
silent), disappears when done, and by default shows only when standard
error is a terminal, so logs and pipes never get one.
"""

import sys
from typing import Iterable, Optional

from tqdm import tqdm

__all__ = ["progress_bar"]


def progress_bar(
    iterable: Optional[Iterable] = None,
    *,
    total: Optional[int] = None,
    desc: str,
    unit: str = "it",
    enabled: Optional[bool] = None,
) -> tqdm:
    """A progress bar over ``iterable``, or one to advance by hand with ``update`` up to ``total``.

    Parameters
    ----------
    iterable : iterable, optional
        Items to pass through; the bar advances with each.
    total : int, optional
        The number of steps, when ``update`` is called by hand.
    desc : str
        What is being counted (``"neurons"``).
    unit : str
        The name of one step.
    enabled : bool, optional
        ``True`` or ``False`` to force the bar on or off; ``None`` (the default)
        shows it only when standard error is a terminal.

    Returns
    -------
    tqdm.tqdm
        Close it (or exhaust ``iterable``) when done.

    Examples
    --------
    >>> bar = progress_bar(total=3, desc="neurons", enabled=False)
    >>> bar.update(3); bar.close()
    >>> [x for x in progress_bar(range(2), desc="regions")]
    [0, 1]
    """
    return tqdm(
        iterable,
        total=total,
        desc=desc,
        unit=unit,
        delay=1.0,
        disable=None if enabled is None else not enabled,
        file=sys.stderr,
        leave=False,
    )
