"""The gridkit Processing provider: one algorithm per gridkit command."""
from qgis.core import QgsProcessingProvider

from .algorithms import (CrossValidationAlgorithm, GridAlgorithm, GridkitJobFileAlgorithm,
                         VariogramAlgorithm)


class GridkitProvider(QgsProcessingProvider):
    def id(self):
        return "gridkit"

    def name(self):
        return "gridkit"

    def longName(self):  # noqa: N802
        return "gridkit (scattered points to rasters)"

    def loadAlgorithms(self):  # noqa: N802
        for alg in (GridAlgorithm(), GridkitJobFileAlgorithm(), VariogramAlgorithm(),
                    CrossValidationAlgorithm()):
            self.addAlgorithm(alg)
        # Ridge extraction (`gridkit ridges`, not written yet) goes here: a
        # RidgeAlgorithm in algorithms.py built like VariogramAlgorithm
        # (a raster INPUT, typed options, a vector OUTPUT), added to this tuple.
