#!/bin/bash
# SPDX-License-Identifier: MIT
# The GPU's start hidden (docs/benchmarks.md, "End to end"): each GPU case at 4096^2 with
# --device auto (the cores begin while CUDA starts, the GPU joins), --device cuda (waits for
# the GPU) and --device cpu, alternating, pixels compared with the CPU's. Needs .e2e/
# (carried; scripts/device/e2e_setup.sh) with gridkit_cuda.so beside gridkit. Run from the
# repository root. ROUNDS=n (default 3), SIZE=n (default 4096: n x n nodes), CASES (default all
# three: invdistnn nearest kriging).
source scripts/device/e2e_setup.sh >/dev/null 2>&1 || { echo setup failed; exit 1; }
nproc
N=invdistnn:power=2:radius=200:max_points=16
K=kriging:model=Exp:psill=1:range=1500:nugget=0.001:max_points=16:variance=no
C=${C/4096 4096/${SIZE:-4096} ${SIZE:-4096}}
./gridkit grid $C -a $N pts.gpkg warm.tif 2>/dev/null
for spec in "$N" nearest "$K"; do
  case " ${CASES:-invdistnn nearest kriging} " in *" ${spec%%:*} "*) ;; *) continue;; esac
  set -- $spec; a=$1; shift
  echo "== $a $* --device cpu"; w ./gridkit grid "$@" --device cpu ${C/-q /} -a $a pts.gpkg c.tif
  for r in $(seq ${ROUNDS:-3}); do
    echo "== $a $* auto"; w ./gridkit grid "$@" ${C/-q /} -a $a pts.gpkg g_auto.tif
    echo "== $a $* cuda"; w ./gridkit grid "$@" --device cuda ${C/-q /} -a $a pts.gpkg g_cuda.tif
  done
  same c.tif g_auto.tif; same g_cuda.tif g_auto.tif
done
