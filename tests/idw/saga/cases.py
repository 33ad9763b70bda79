# SPDX-License-Identifier: MIT
"""The cases of the SAGA comparison (make_refs.py makes their references, compare.py checks them)."""
MEUSE_GRID = (178440.0, 181560.0, 329600.0, 333760.0, 78, 104)
ANISO_GRID = (0.0, 1000.0, 0.0, 1000.0, 50, 50)
CASES = [
    dict(name="meuse_13_19", file="meuse.gpkg", layer="meuse", field="logzinc", grid=MEUSE_GRID, nq=13, nw=19),
    dict(name="meuse_9_30", file="meuse.gpkg", layer="meuse", field="logzinc", grid=MEUSE_GRID, nq=9, nw=30),
    dict(name="aniso_13_19", file="aniso_trend.gpkg", layer="aniso_trend", field="z", grid=ANISO_GRID, nq=13, nw=19),
    dict(name="aniso_25_10", file="aniso_trend.gpkg", layer="aniso_trend", field="z", grid=ANISO_GRID, nq=25, nw=10),
]
