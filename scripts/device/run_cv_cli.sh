#!/bin/bash
# SPDX-License-Identifier: MIT
# gridkit cv through the CLI on a GPU machine (docs/benchmarks.md,
# "Cross-validation on the GPU"): leave-one-out of N points (default
# 1,048,576, uniform in a 10 km square, a GeoPackage) with local kriging
# nmax=20, --device cpu, cuda and auto, the whole command timed; the
# statistics must agree. Needs .mpi-e2e/ (carried): gridkit and
# pack-gdal-runtime's tarball. Usage, from the repository root:
#     bash scripts/device/run_cv_cli.sh [N]
set -o pipefail
E=$PWD/.mpi-e2e
W=/tmp/cv-cli
mkdir -p $W
tar -C $W -xJf $E/gdal-runtime.tar.xz && source $W/gdal-runtime/env.sh || exit 1
cmake -S . -B /tmp/gk-cuda -DGRIDKIT_WITH_GDAL=OFF -DGRIDKIT_TESTS=OFF -DCMAKE_BUILD_TYPE=Release >/dev/null &&
  cmake --build /tmp/gk-cuda -j"$(nproc)" --target gridkit_cuda >/dev/null || exit 1
cp $E/gridkit /tmp/gk-cuda/gridkit_cuda.so $W/ && cd $W || exit 1
N=${1:-1048576}
echo "$(nvidia-smi -L | head -1); $(nproc) cores; $N points"
awk -v n=$N 'BEGIN{srand(42); print "x,y,z"; for(i=0;i<n;i++){x=10000*rand(); y=10000*rand();
  printf "%.4f,%.4f,%.6f\n", x, y, 100+40*sin(6e-4*x)*cos(5e-4*y)+1e-3*x+rand()}}' > pts.csv
ogr2ogr -f GPKG pts.gpkg pts.csv -oo X_POSSIBLE_NAMES=x -oo Y_POSSIBLE_NAMES=y -oo AUTODETECT_TYPE=YES -nln pts
A="kriging:model=Sph:psill=500:range=3000:nugget=1:max_points=20"
for dev in cpu cuda auto; do
  s=$(date +%s.%N)
  ./gridkit cv pts.gpkg -zfield z -a $A --device $dev --format json > cv_$dev.json 2> cv_$dev.err
  rc=$?
  echo "--device $dev: $(awk -v a=$(date +%s.%N) -v b=$s 'BEGIN{printf "%.2f s", a - b}') rc $rc"
  python3 -c "import json; j=json.load(open('cv_$dev.json')); print('   ', j['device'], j['method'], 'rmse', j['rmse'], 'msdr', j['msdr'])"
  head -3 cv_$dev.err
done
python3 - <<'PY'
import json
a, b = json.load(open("cv_cpu.json")), json.load(open("cv_cuda.json"))
d = max(abs(a[k] - b[k]) / max(abs(a[k]), 1e-300) for k in ("mean_error", "rmse", "mae", "msdr", "cor"))
print("statistics, cuda against cpu: largest relative difference %.2e" % d)
PY
