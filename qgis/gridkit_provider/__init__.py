# SPDX-License-Identifier: MIT
"""gridkit Processing provider (a QGIS Python plugin)."""


def classFactory(iface):  # noqa: N802  (QGIS's name)
    from .plugin import GridkitPlugin
    return GridkitPlugin(iface)
