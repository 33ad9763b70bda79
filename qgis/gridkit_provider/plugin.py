# SPDX-License-Identifier: MIT
"""Registers the provider with QGIS (desktop and qgis_process)."""
from qgis.core import QgsApplication

from .provider import GridkitProvider


class GridkitPlugin:
    def __init__(self, iface=None):
        self.iface = iface
        self.provider = None

    def initProcessing(self):  # noqa: N802  (QGIS calls it by this name)
        if self.provider is not None:  # once (QGIS's own order may call it again)
            return
        self.provider = GridkitProvider()
        QgsApplication.processingRegistry().addProvider(self.provider)

    def initGui(self):  # noqa: N802
        self.initProcessing()

    def unload(self):
        if self.provider is not None:
            QgsApplication.processingRegistry().removeProvider(self.provider)
            self.provider = None
