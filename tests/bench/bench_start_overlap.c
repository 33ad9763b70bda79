/* SPDX-License-Identifier: MIT */
/*
 * bench_start_overlap.c - could `gridkit grid` read a GeoPackage's points
 * while libgdal loads? Times three things in one process each:
 *
 *   bench_start_overlap load LIB          dlopen(LIB) alone (libgdal's start-up)
 *   bench_start_overlap read GPKG TABLE   the points read on up to 16 SQLite
 *                                         connections, as driver/io/read_gpkg.c does
 *   bench_start_overlap both GPKG TABLE LIB   the read while another thread loads LIB
 *
 * Not a test: a measuring tool for the start-up path (docs/benchmarks.md,
 * "End to end: reading, computing, writing"). The
 * read takes the table's geometry column "geom" and FID column "fid" (what
 * ogr2ogr makes) and keeps x and y of each GeoPackage point blob.
 */
#include <dlfcn.h>
#include <omp.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double t_start;

static double since_start(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec - t_start;
}

typedef struct {
    const char *lib;
    double t0, t1;
    int failed;
} load_task;

static void *load(void *arg)
{
    load_task *t = arg;
    t->t0 = since_start();
    t->failed = !dlopen(t->lib, RTLD_LAZY | RTLD_GLOBAL);
    if (t->failed)
        fprintf(stderr, "bench_start_overlap: %s\n", dlerror());
    t->t1 = since_start();
    return NULL;
}

/* x and y of a standard GeoPackage point blob (little-endian WKB). */
static int blob_xy(const unsigned char *b, int len, double *x, double *y)
{
    static const int env_bytes[8] = {0, 32, 48, 48, 64, -1, -1, -1};
    if (!b || len < 8 || b[0] != 'G' || b[1] != 'P')
        return -1;
    int env = env_bytes[(b[3] >> 1) & 7];
    if (env < 0 || len < 8 + env + 21 || b[8 + env] != 1)
        return -1;
    memcpy(x, b + 8 + env + 5, sizeof *x);
    memcpy(y, b + 8 + env + 13, sizeof *y);
    return 0;
}

static int read_points(const char *path, const char *table, double *t0, double *t1)
{
    *t0 = since_start();
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    long long lo = 0, hi = -1;
    /* each alone in its SELECT, or SQLite scans the table for them */
    char *q = sqlite3_mprintf("SELECT (SELECT min(fid) FROM \"%w\"), (SELECT max(fid) FROM \"%w\")",
                              table, table);
    int rc = sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL);
    if (rc == SQLITE_OK && (rc = sqlite3_prepare_v2(db, q, -1, &st, NULL)) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW) {
        lo = sqlite3_column_int64(st, 0);
        hi = sqlite3_column_int64(st, 1);
    }
    if (rc != SQLITE_OK || hi < lo)
        fprintf(stderr, "bench_start_overlap: %s, table %s: %s\n", path, table,
                rc != SQLITE_OK ? sqlite3_errmsg(db) : "no rows");
    sqlite3_finalize(st);
    sqlite3_close(db);
    sqlite3_free(q);
    if (rc != SQLITE_OK || hi < lo)
        return 1;
    long long span = hi - lo + 1;
    double *x = malloc((size_t)span * sizeof *x), *y = malloc((size_t)span * sizeof *y);
    if (!x || !y) {
        free(x);
        free(y);
        return 1;
    }
    int nt = omp_get_num_procs() < 16 ? omp_get_num_procs() : 16, nr = 8 * nt;
    long long n = 0;
    q = sqlite3_mprintf("SELECT fid, geom FROM \"%w\" WHERE fid BETWEEN ?1 AND ?2", table);
#pragma omp parallel num_threads(nt) reduction(+ : n)
    {
        sqlite3 *dbt = NULL;
        sqlite3_stmt *s = NULL;
        sqlite3_open_v2(path, &dbt, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, NULL);
        sqlite3_exec(dbt, "PRAGMA mmap_size=2147418112", NULL, NULL, NULL);
        int ok = sqlite3_prepare_v2(dbt, q, -1, &s, NULL) == SQLITE_OK;
#pragma omp for schedule(dynamic, 1)
        for (int k = 0; k < nr; k++) {
            long long a = lo + span * k / nr, b = lo + span * (k + 1) / nr - 1;
            if (!ok)
                continue;
            sqlite3_reset(s);
            sqlite3_bind_int64(s, 1, a);
            sqlite3_bind_int64(s, 2, b);
            while (sqlite3_step(s) == SQLITE_ROW) {
                long long i = sqlite3_column_int64(s, 0) - lo; /* its slot, as the reader */
                double px, py;
                if (blob_xy(sqlite3_column_blob(s, 1), sqlite3_column_bytes(s, 1), &px, &py) == 0) {
                    x[i] = px;
                    y[i] = py;
                    n++;
                }
            }
        }
        sqlite3_finalize(s);
        sqlite3_close(dbt);
    }
    sqlite3_free(q);
    *t1 = since_start();
    printf("  %lld points on %d connections\n", n, nt);
    free(x);
    free(y);
    return 0;
}

int main(int argc, char **argv)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    t_start = (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
    sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0); /* as the gridkit command does */
    setenv("OPENBLAS_NUM_THREADS", "1", 0);     /* no spinning pool beside the readers */
    const char *mode = argc > 1 ? argv[1] : "";
    int do_load = !strcmp(mode, "load") || !strcmp(mode, "both");
    int do_read = !strcmp(mode, "read") || !strcmp(mode, "both");
    if ((!do_load && !do_read) || argc != (do_read ? 4 : 3) + (do_load && do_read)) {
        fputs("usage: bench_start_overlap load LIB | read GPKG TABLE | both GPKG TABLE LIB\n",
              stderr);
        return 2;
    }
    load_task lt = {do_read ? (do_load ? argv[4] : NULL) : argv[2], 0, 0, 0};
    pthread_t th;
    if (do_load && pthread_create(&th, NULL, load, &lt) != 0)
        return 1;
    double r0 = 0, r1 = 0;
    int rc = do_read ? read_points(argv[2], argv[3], &r0, &r1) : 0;
    if (do_load)
        pthread_join(th, NULL);
    if (rc || lt.failed)
        return 1;
    printf("%s: load %.3f-%.3f s, read %.3f-%.3f s, all done %.3f s\n", mode, lt.t0, lt.t1, r0, r1,
           since_start());
    return 0;
}
