/* SPDX-License-Identifier: MIT */
/*
 * cpu_level.c - the CPU's vector level, capped by GRIDKIT_ISA (cpu_level.h).
 */
#include "cpu_level.h"

#include <stdlib.h>
#include <string.h>

static int detect(void)
{
    int v = GK_ISA_PORTABLE;
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl"))
        v = GK_ISA_AVX512;
    else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        v = GK_ISA_AVX2;
#endif
    const char *cap = getenv("GRIDKIT_ISA");
    int c = -1;
    if (cap && (!strcmp(cap, "portable") || !strcmp(cap, "0")))
        c = GK_ISA_PORTABLE;
    else if (cap && (!strcmp(cap, "avx2") || !strcmp(cap, "1")))
        c = GK_ISA_AVX2;
    if (c >= 0 && c < v)
        v = c;
    return v;
}

int gk_cpu_level(void)
{
    static int level = -1; /* benign race: every thread computes the same value */
    int v = __atomic_load_n(&level, __ATOMIC_RELAXED);
    if (v < 0) {
        v = detect();
        __atomic_store_n(&level, v, __ATOMIC_RELAXED);
    }
    return v;
}
