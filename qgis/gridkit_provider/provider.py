# SPDX-License-Identifier: MIT
"""The gridkit Processing provider: one algorithm per gridkit command, and
the Heatmap tool. Its setting "gridkit program" (GRIDKIT_PATH, in
Settings > Options > Processing > Providers > gridkit) names the program;
left empty, the program is found automatically (gridkit_cli.py)."""
import os

from qgis.core import QgsProcessingProvider
from qgis.PyQt.QtGui import QIcon

from . import gridkit_cli
from .algorithms import (CrossValidationAlgorithm, GridAlgorithm, GridkitJobFileAlgorithm,
                         VariogramAlgorithm, reset_algorithm_list)
from .heatmap_algorithm import HeatmapAlgorithm
from .ridges_algorithm import RidgesAlgorithm

ICON = os.path.join(os.path.dirname(__file__), "icon.png")


def algorithm_classes():
    """Every tool, in the Toolbox's order."""
    return (GridAlgorithm, HeatmapAlgorithm, GridkitJobFileAlgorithm, VariogramAlgorithm,
            CrossValidationAlgorithm, RidgesAlgorithm)


class GridkitProvider(QgsProcessingProvider):
    def id(self):
        return "gridkit"

    def name(self):
        return "gridkit"

    def longName(self):  # noqa: N802
        return "gridkit (scattered points to rasters, ridge lines)"

    def versionInfo(self):  # noqa: N802
        """The plugin's version (metadata.txt, gridkit's own)."""
        try:
            with open(os.path.join(os.path.dirname(__file__), "metadata.txt"),
                      encoding="utf-8") as f:
                for line in f:
                    if line.startswith("version="):
                        return line.split("=", 1)[1].strip()
        except OSError:
            pass
        return ""

    def icon(self):
        return QIcon(ICON)

    def svgIconPath(self):  # noqa: N802
        return ICON

    def load(self):
        """Registers the setting (as QGIS's own Python providers do) and
        loads the algorithms."""
        try:
            from processing.core.ProcessingConfig import ProcessingConfig, Setting
        except ImportError:  # no Processing framework: the program is found automatically
            return super().load()
        found = gridkit_cli.default_executable()
        ProcessingConfig.settingIcons[self.name()] = self.icon()
        ProcessingConfig.addSetting(Setting(
            self.name(), gridkit_cli.SETTING, gridkit_cli.SETTING_LABEL, "",
            valuetype=Setting.FILE,
            placeholder=("empty: found automatically (now %s)" % found if found else
                         "empty: found automatically ($GRIDKIT_CLI, PATH, /usr/bin/gridkit): "
                         "not found")))
        ProcessingConfig.readSettings()
        self.refreshAlgorithms()
        return True

    def unload(self):
        try:
            from processing.core.ProcessingConfig import ProcessingConfig
        except ImportError:
            return
        if gridkit_cli.SETTING in ProcessingConfig.settings:
            ProcessingConfig.removeSetting(gridkit_cli.SETTING)

    def loadAlgorithms(self):  # noqa: N802
        reset_algorithm_list()  # the program may have changed (the setting, PATH)
        for cls in algorithm_classes():
            self.addAlgorithm(cls())
