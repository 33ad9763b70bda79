/* SPDX-License-Identifier: MIT */
/*
 * fail_malloc.c - an LD_PRELOAD library that makes one allocation of
 * gridkit's own code fail, as SQLite's tests do: GK_FAIL_MALLOC_AT=k fails
 * the k-th call of malloc, calloc or realloc made from the main program
 * (gridkit's code: the core and the driver are linked into it), and no
 * other. Allocations made inside GDAL, libc or OpenMP pass, so what is
 * tested is gridkit's own handling. GK_FAIL_MALLOC_COUNT=FILE keeps the
 * number of such calls in FILE (8 bytes, mapped: the command ends with
 * _exit, no destructor runs). tests/driver/fail_malloc.sh drives it.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <link.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);

static uintptr_t lo, hi;  /* the main program's loaded segments */
static long fail_at = -1; /* GK_FAIL_MALLOC_AT; -1: never */
static atomic_long calls;
static _Atomic(long) *shared; /* GK_FAIL_MALLOC_COUNT's mapping */
static atomic_int ready;

static int find_main(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size, (void)data;
    for (int i = 0; i < info->dlpi_phnum; i++)
        if (info->dlpi_phdr[i].p_type == PT_LOAD) {
            uintptr_t a = info->dlpi_addr + info->dlpi_phdr[i].p_vaddr;
            uintptr_t b = a + info->dlpi_phdr[i].p_memsz;
            if (!lo || a < lo)
                lo = a;
            if (b > hi)
                hi = b;
        }
    return 1; /* the first object is the main program */
}

/* From exit() on, nothing fails or counts: the program's exit handlers
 * (a coverage build's counter dump, linked into it) are not under test.
 * Registered at the program's first allocation, after the handler that
 * runs the destructors (registered when main is entered), so it runs first. */
static void stop(void) { atomic_store(&ready, 0); }
static atomic_int stop_registered;

/* Before the program's own code runs; allocations until then pass. */
__attribute__((constructor)) static void setup(void)
{
    dl_iterate_phdr(find_main, NULL);
    const char *at = getenv("GK_FAIL_MALLOC_AT");
    fail_at = at && *at ? atol(at) : -1;
    const char *cf = getenv("GK_FAIL_MALLOC_COUNT");
    if (cf && *cf) {
        int fd = open(cf, O_RDWR | O_CREAT | O_TRUNC, 0644);
        if (fd >= 0 && ftruncate(fd, sizeof(long)) == 0) {
            void *m = mmap(NULL, sizeof(long), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
            if (m != MAP_FAILED)
                shared = m;
        }
        if (fd >= 0)
            close(fd);
    }
    atomic_store(&ready, 1);
}

/* Does this call, made from address ra, fail? */
static int fails(void *ra)
{
    if (!atomic_load(&ready))
        return 0;
    uintptr_t a = (uintptr_t)ra;
    if (a < lo || a >= hi)
        return 0;
    if (!atomic_exchange(&stop_registered, 1))
        atexit(stop);
    long k = atomic_fetch_add(&calls, 1) + 1;
    if (shared)
        atomic_store(shared, k);
    return k == fail_at;
}

void *malloc(size_t n) { return fails(__builtin_return_address(0)) ? NULL : __libc_malloc(n); }

void *calloc(size_t m, size_t n)
{
    return fails(__builtin_return_address(0)) ? NULL : __libc_calloc(m, n);
}

void *realloc(void *p, size_t n)
{
    return fails(__builtin_return_address(0)) ? NULL : __libc_realloc(p, n);
}
