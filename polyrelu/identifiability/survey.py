"""Surveys over random parameters of one architecture: how often the identifiability theorem applies.

:func:`architecture_survey` counts over random parameters how often the four
genericity conditions hold, the functional dimension is ``D − H`` and the
theorem applies (docs/survey.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from typing import Literal

from ..checks import require_choice, require_int
from ..complex import canonical_complex
from ..genericity import genericity
from ..network import Architecture, ReLUNetwork, require_architecture
from ..parallel import check_parallel_arguments, parallel_map
from .dimension import functional_dimension
from .verdicts import theorem_applies

__all__ = ["SurveyResult", "architecture_survey"]


@dataclass(frozen=True)
class SurveyResult:
    """Fractions over random parameters of one architecture (see :func:`architecture_survey`)."""

    architecture: Architecture
    samples: int
    generic: int
    full_rank: int
    identifiable: int
    ranks: tuple[int, ...]

    def row(self) -> str:
        """``generic / full rank / identifiable`` as percentages, for tables."""
        pct = lambda k: f"{100 * k / self.samples:.0f}%"  # noqa: E731
        return f"{pct(self.generic)} / {pct(self.full_rank)} / {pct(self.identifiable)}"


def architecture_survey(
    architecture: Architecture | Sequence[int],
    samples: int = 20,
    seed: int = 0,
    kind: Literal["gaussian", "integer"] = "gaussian",
    *,
    n_jobs: int | None = None,
    scheduler: str | None = None,
) -> SurveyResult:
    """Over random parameters: how often the four conditions hold, the rank is ``D − H``, the theorem applies.

    Parameters are :meth:`~polyrelu.network.ReLUNetwork.random` draws with seeds
    ``seed, seed + 1, ...``. "Identifiable" counts the draws for which
    :func:`identifiability_report` would say ``"identifiable (theorem
    conditions hold)"``; the exact functional dimension of every draw is kept in
    ``ranks``.

    The draws are independent tasks, each with its own seed, run in parallel as
    :func:`~polyrelu.parallel.parallel_map` decides with ``n_jobs`` (``1``:
    serial; ``None``: every core once the survey is long enough) and
    ``scheduler`` (a Dask scheduler address); the result is the same for every
    choice (docs/parallel.md).

    Examples
    --------
    >>> result = architecture_survey((2, 2, 1), samples=5)
    >>> result.samples, result.ranks
    (5, (7, 7, 7, 7, 7))
    """
    caller = "architecture_survey"
    arch = require_architecture(architecture, "architecture", caller)
    samples = require_int(samples, "samples", caller, minimum=1)
    seed = require_int(seed, "seed", caller, minimum=0)
    require_choice(kind, ("gaussian", "integer"), "kind", caller)
    n_jobs, scheduler = check_parallel_arguments(n_jobs, scheduler, caller)
    seeds = [seed + k for k in range(samples)]
    draws = parallel_map(partial(_survey_draw, arch, kind), seeds, n_jobs=n_jobs, scheduler=scheduler,
                         desc="draws", names=[f"draw {k} (seed {s})" for k, s in enumerate(seeds)])
    generic, full, theorem, ranks = zip(*draws)
    return SurveyResult(arch, samples, sum(generic), sum(full), sum(theorem), ranks)


def _survey_draw(arch, kind, seed):
    """One draw of :func:`architecture_survey`: (conditions hold, rank ``D − H``, theorem applies, rank)."""
    net = ReLUNetwork.random(arch, seed=seed, kind=kind)
    K = canonical_complex(net)
    report = genericity(K)
    fd = functional_dimension(net, complex_=K, kernel=False)
    return report.holds, fd.attains_bound, theorem_applies(arch, report, fd), fd.rank
