/* SPDX-License-Identifier: MIT */
/*
 * core/big_alloc.c - gk_big_alloc(). Arrays of many megabytes written once,
 * by every thread at once (sorts, triangulations, their renumberings): in
 * 4 KiB pages the kernel's page faults (one lock per process) took a third
 * of gdal_grid's tie order on 16 cores, and a tenth of linear's set-up; in
 * 2 MiB pages, where the kernel gives them on request, a few hundred times
 * fewer.
 */
#define _DEFAULT_SOURCE 1 /* madvise() and MADV_HUGEPAGE, where Linux has them */
#include "core/big_alloc.h"

#include <stdint.h>
#include <stdlib.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

void *gk_big_alloc(size_t size)
{
#if defined(MADV_HUGEPAGE)
    const size_t huge = (size_t)2 << 20;
    if (size >= huge && size <= SIZE_MAX - huge) {
        size_t whole = (size + huge - 1) / huge * huge;
        void *p = NULL;
        if (posix_memalign(&p, huge, whole))
            return NULL;
        madvise(p, whole, MADV_HUGEPAGE); /* a hint: may be refused */
        return p;
    }
#endif
    return malloc(size);
}
