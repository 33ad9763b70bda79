#!/bin/bash
# SPDX-License-Identifier: MIT
# The end-to-end table of docs/benchmarks.md ("The whole command on the GPU machine"): each
# case once through gdal_grid (16 threads) where it takes under a minute, gridkit grid two or
# three times, pixels compared. Needs .e2e/ (carried; scripts/device/e2e_setup.sh). Run from the
# repository root.
source scripts/device/e2e_setup.sh >/dev/null 2>&1 || { echo setup failed; exit 1; }
nproc
A=average:radius1=25:radius2=25; N=invdistnn:power=2:radius=200:max_points=16
C1=${C/4096 4096/1024 1024}
./gridkit grid $C -a $A pts.gpkg warm.tif 2>/dev/null; ./gridkit grid $C -a $N pts.gpkg warm.tif 2>/dev/null
echo "== gdal_grid average 4096"; GDAL_NUM_THREADS=16 w gdal_grid -q ${C/-q --timings/} -a $A pts.gpkg a_gd.tif
for r in 1 2 3; do echo "== gridkit average 4096"; w ./gridkit grid $C -a $A pts.gpkg a_gk.tif; done
same a_gd.tif a_gk.tif
echo "== gdal_grid linear 4096"; GDAL_NUM_THREADS=16 w gdal_grid -q ${C/-q --timings/} -a linear pts.gpkg l_gd.tif
for r in 1 2; do echo "== gridkit linear 4096"; w ./gridkit grid $C -a linear pts.gpkg l_gk.tif; done
for r in 1 2 3; do echo "== gridkit invdistnn 4096 auto"; w ./gridkit grid $C -a $N pts.gpkg n_gk.tif; done
for r in 1 2; do echo "== gridkit invdistnn 4096 cuda"; w ./gridkit grid --device cuda $C -a $N pts.gpkg n_gk2.tif; done
echo "== gridkit invdistnn 4096 cpu"; w ./gridkit grid --device cpu $C -a $N pts.gpkg n_cpu.tif
same n_gk.tif n_cpu.tif
for r in 1 2; do echo "== gridkit nearest 4096"; w ./gridkit grid $C -a nearest pts.gpkg ne_gk.tif; done
for r in 1 2; do echo "== gridkit invdist single 4096"; w ./gridkit grid --precision single $C -a invdist:power=2 pts.gpkg i4.tif; done
echo "== gdal_grid invdistnn 1024"; GDAL_NUM_THREADS=16 w gdal_grid -q ${C1/-q --timings/} -a $N pts.gpkg n1_gd.tif
for r in 1 2; do echo "== gridkit invdistnn 1024"; w ./gridkit grid $C1 -a $N pts.gpkg n1_gk.tif; done
echo "== gdal_grid invdist 1024"; GDAL_NUM_THREADS=16 w gdal_grid -q ${C1/-q --timings/} -a invdist:power=2 pts.gpkg i1_gd.tif
for r in 1 2; do echo "== gridkit invdist single 1024"; w ./gridkit grid --precision single $C1 -a invdist:power=2 pts.gpkg i1_gk.tif; done
gdal_translate -q -of ENVI n1_gd.tif a.bil && gdal_translate -q -of ENVI n1_gk.tif b.bil && echo "invdistnn 1024 vs gdal_grid: $(python3 $OLDPWD/scripts/device/cmp_float_rasters.py a.bil b.bil)"
