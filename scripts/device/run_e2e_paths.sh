#!/bin/bash
# SPDX-License-Identifier: MIT
# End to end through GDAL on the GPU machine, new reading and writing paths
# beside the old ones (GRIDKIT_GPKG_SQLITE=NO GRIDKIT_DIRECT_BLOCKS=NO), runs
# interleaved, pixels compared, gdal_grid average on every core. Needs .e2e/
# (carried): gridkit built with GDAL, gridkit_cuda.so and pack-gdal-runtime's
# tarball. Run from the repository root.
source "$(dirname "$0")/e2e_setup.sh"
OLD="env GRIDKIT_GPKG_SQLITE=NO GRIDKIT_DIRECT_BLOCKS=NO"
A=average:radius1=25:radius2=25
N=invdistnn:power=2:radius=200:max_points=16
K=kriging:model=Exp:psill=1:range=1500:nugget=0.001:max_points=16:radius=300
for r in 1 2 3 4; do
  echo "== average"; w ./gridkit grid $C -a $A pts.gpkg a_new.tif
  echo "== average, old paths"; w $OLD ./gridkit grid $C -a $A pts.gpkg a_old.tif
done
same a_new.tif a_old.tif
echo "== gdal_grid average (GDAL_NUM_THREADS=16)"
GDAL_NUM_THREADS=16 w gdal_grid -q ${C/-q --timings/} -a $A pts.gpkg a_gd.tif
for r in 1 2; do
  echo "== count"; w ./gridkit grid $C -a count:radius1=25:radius2=25 pts.gpkg c.tif
  echo "== invdistnn k=16"; w ./gridkit grid $C -a $N pts.gpkg n_new.tif
  echo "== invdistnn k=16, old paths"; w $OLD ./gridkit grid $C -a $N pts.gpkg n_old.tif
  echo "== kriging k=16, estimate"; w ./gridkit grid $C -a $K:variance=no pts.gpkg k1.tif
  echo "== kriging k=16, estimate + variance"; w ./gridkit grid $C -a $K pts.gpkg k2.tif
  echo "== linear"; w ./gridkit grid $C -a linear pts.gpkg l.tif
  echo "== invdist p=2, single, 1024^2"; w ./gridkit grid --precision single ${C/4096 4096/1024 1024} -a invdist:power=2 pts.gpkg i.tif
done
same n_new.tif n_old.tif
