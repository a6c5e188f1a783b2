"""Functional dimension, identifiability and minimality of a ReLU network's parameters (docs/design.md §6).

- :mod:`~polyrelu.identifiability.dimension`: the exact functional dimension
  (:func:`functional_dimension`, :func:`batch_functional_dimension`, with a
  certificate both ways; :func:`float_functional_dimension`, the float fast
  path; :func:`scaling_directions`; :class:`FunctionalDimension`).
- :mod:`~polyrelu.identifiability.minimality`: hidden neurons that can go
  without changing ``f``, each removal proved exactly
  (:func:`minimality_report`, :class:`MinimalityReport`, :class:`Removal`).
- :mod:`~polyrelu.identifiability.verdicts`: the evidence weighed into one
  verdict (:func:`identifiability_report`, :class:`IdentifiabilityReport`).
- :mod:`~polyrelu.identifiability.survey`: over random parameters, how often
  the conditions hold and the rank is ``D − H`` (:func:`architecture_survey`,
  :class:`SurveyResult`).

Internal stages, each importing only the ones after it: ``_witnesses`` (second
parameters with the same function), ``_jacobian`` (the parameter Jacobian of
the affine pieces) and ``_parameters`` (positions in the flat parameter
vector, proportional neuron rows).
"""

from .dimension import (
    FunctionalDimension,
    batch_functional_dimension,
    float_functional_dimension,
    functional_dimension,
    scaling_directions,
)
from .minimality import MinimalityReport, Removal, minimality_report
from .survey import SurveyResult, architecture_survey
from .verdicts import IdentifiabilityReport, identifiability_report

__all__ = [
    "FunctionalDimension",
    "functional_dimension",
    "batch_functional_dimension",
    "float_functional_dimension",
    "scaling_directions",
    "Removal",
    "MinimalityReport",
    "minimality_report",
    "IdentifiabilityReport",
    "identifiability_report",
    "SurveyResult",
    "architecture_survey",
]
