# SPDX-License-Identifier: MIT
"""The gridkit Processing provider: one algorithm per gridkit command."""
from qgis.core import QgsProcessingProvider

from .algorithms import (CrossValidationAlgorithm, GridAlgorithm, GridkitJobFileAlgorithm,
                         VariogramAlgorithm)
from .ridges_algorithm import RidgesAlgorithm


class GridkitProvider(QgsProcessingProvider):
    def id(self):
        return "gridkit"

    def name(self):
        return "gridkit"

    def longName(self):  # noqa: N802
        return "gridkit (scattered points to rasters, ridge lines)"

    def loadAlgorithms(self):  # noqa: N802
        for alg in (GridAlgorithm(), GridkitJobFileAlgorithm(), VariogramAlgorithm(),
                    CrossValidationAlgorithm(), RidgesAlgorithm()):
            self.addAlgorithm(alg)
