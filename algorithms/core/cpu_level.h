/* SPDX-License-Identifier: MIT */
/*
 * cpu_level.h - which vector instructions the dispatched kernels may use.
 *
 * Every kernel with an AVX2 or AVX-512 variant asks here, so that one
 * setting caps them all: GRIDKIT_ISA=portable|avx2|avx512 (or 0, 1, 2) runs
 * the lower paths on a CPU that has the higher ones. The tests use it to
 * show that each path gives the same bytes (a result must not depend on
 * the CPU: docs/reliability.md).
 */
#ifndef GK_CPU_LEVEL_H
#define GK_CPU_LEVEL_H

#define GK_ISA_PORTABLE 0
#define GK_ISA_AVX2 1   /* AVX2 and FMA */
#define GK_ISA_AVX512 2 /* AVX-512 F and VL */

/* The level this CPU supports, capped by GRIDKIT_ISA; read once. */
int gk_cpu_level(void);

#endif
