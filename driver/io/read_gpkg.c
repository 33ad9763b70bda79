/* SPDX-License-Identifier: MIT */
/*
 * read_gpkg.c - GeoPackage points straight from SQLite, several connections
 * at once, each on its own range of FIDs (see read_gpkg.h).
 */
#include "io/read_gpkg.h"
#include "io/text_number.h"
#include "io/wkb_point.h"

#include "cpl_error.h"
#include "ogr_core.h"

#include <math.h>
#include <omp.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* One range of FIDs and what was read from it. */
typedef struct {
    sqlite3_int64 lo, hi; /* inclusive */
    double *x, *y, *z;    /* its slots in the point set: hi - lo + 1 of them */
    size_t n;
    size_t n_features, n_skipped_z;
    int declined;
} chunk;

/* What one thread's connection did (for the debug line). */
typedef struct {
    double t_open, t_done; /* seconds from the start of the reading */
    int ranges;
} reader;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static sqlite3 *open_db(const char *path)
{
    sqlite3 *db = NULL;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
        sqlite3_close(db);
        return NULL;
    }
    /* pages mapped instead of read() into each connection's cache: a
     * third faster, and the connections share the pages (SQLite caps it at
     * its own maximum) */
    sqlite3_exec(db, "PRAGMA mmap_size=2147418112", NULL, NULL, NULL);
    return db;
}

/* A standard GeoPackage geometry blob around a WKB Point: 1 with its
 * coordinates, 0 for an empty point, -1 for anything else. */
static int blob_point(const unsigned char *b, int len, double *x, double *y, double *z, int *is3d)
{
    static const int env_bytes[8] = {0, 32, 48, 48, 64, -1, -1, -1};
    if (!b || len < 8 || b[0] != 'G' || b[1] != 'P' || b[2] != 0 || (b[3] & 0x20))
        return -1; /* not GP, another version, or an extended blob */
    int env = env_bytes[(b[3] >> 1) & 7];
    if (env < 0 || len < 8 + env)
        return -1;
    return gk_wkb_point(b + 8 + env, (size_t)(len - 8 - env), x, y, z, is3d);
}

/* One range, on the thread's prepared statement: every row of it, as
 * read_points.c's visitor takes a feature. */
static void read_chunk(const gk_gpkg_layer *l, sqlite3_stmt *st, chunk *c)
{
    sqlite3_reset(st);
    sqlite3_bind_int64(st, 1, c->lo);
    sqlite3_bind_int64(st, 2, c->hi);
    int rc;
    while (!c->declined && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        c->n_features++;
        int gt = sqlite3_column_type(st, 0);
        if (gt == SQLITE_NULL)
            continue; /* no geometry */
        if (gt != SQLITE_BLOB) {
            c->declined = 1;
            break;
        }
        const unsigned char *b = sqlite3_column_blob(st, 0);
        double x, y, z;
        int is3d, k = blob_point(b, sqlite3_column_bytes(st, 0), &x, &y, &z, &is3d);
        if (k < 0 || (k == 1 && l->need_3d && !is3d)) {
            c->declined = 1; /* OGR decodes it, or says what is wrong */
            break;
        }
        if (k == 0)
            continue; /* POINT EMPTY: no vertex */
        if (l->no_z) {
            if (!isfinite(x) || !isfinite(y)) {
                c->n_skipped_z++;
                continue;
            }
            c->x[c->n] = x;
            c->y[c->n] = y;
            c->z[c->n] = 0.0;
            c->n++;
            continue;
        }
        if (l->zfield) {
            int zt = sqlite3_column_type(st, 1);
            if (zt == SQLITE_NULL) {
                c->n_skipped_z++;
                continue;
            }
            if (l->zfield_type == OFTString) {
                /* the text OGR's driver reads (sqlite3_column_text), read
                 * as read_points.c reads it; not a number: OGR's path says
                 * which feature */
                const unsigned char *t = sqlite3_column_text(st, 1);
                int got = zt == SQLITE_BLOB || !t ? -1 : gk_text_number((const char *)t, &z);
                if (got < 0) {
                    c->declined = 1;
                    break;
                }
                if (got == 0) { /* empty text: no value */
                    c->n_skipped_z++;
                    continue;
                }
            } else if (zt != SQLITE_INTEGER && zt != SQLITE_FLOAT) {
                c->declined = 1;
                break;
            } else {
                /* the conversions OGR's GeoPackage driver applies */
                z = l->zfield_type == OFTInteger     ? (double)sqlite3_column_int(st, 1)
                    : l->zfield_type == OFTInteger64 ? (double)sqlite3_column_int64(st, 1)
                                                     : sqlite3_column_double(st, 1);
            }
        }
        z = (z + l->z_increase) * l->z_multiply;
        /* infinite or NaN coordinates: skipped and counted, as OGR's path does */
        if (!isfinite(x) || !isfinite(y) || !isfinite(z)) {
            c->n_skipped_z++;
            continue;
        }
        /* at most one point per FID: the range's slots cannot overflow */
        c->x[c->n] = x;
        c->y[c->n] = y;
        c->z[c->n] = z;
        c->n++;
    }
    if (!c->declined && rc != SQLITE_DONE)
        c->declined = 1;
}

/* The table is a plain table whose FID column is its INTEGER PRIMARY KEY
 * (a rowid: ranges of it are cheap), and its FID range. 0, or -1. */
static int table_ok(sqlite3 *db, const gk_gpkg_layer *l, sqlite3_int64 *lo, sqlite3_int64 *hi,
                    int *empty)
{
    int ok = 0;
    sqlite3_stmt *st = NULL;
    char *q = sqlite3_mprintf("SELECT type FROM sqlite_master WHERE name = %Q", l->table);
    if (q && sqlite3_prepare_v2(db, q, -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW)
        ok = sqlite3_strnicmp((const char *)sqlite3_column_text(st, 0), "table", 6) == 0;
    sqlite3_finalize(st);
    sqlite3_free(q);
    st = NULL;
    int pk_fid = 0, pk_other = 0;
    q = ok ? sqlite3_mprintf("PRAGMA table_info(\"%w\")", l->table) : NULL;
    if (q && sqlite3_prepare_v2(db, q, -1, &st, NULL) == SQLITE_OK) {
        while (sqlite3_step(st) == SQLITE_ROW) {
            const char *name = (const char *)sqlite3_column_text(st, 1);
            const char *type = (const char *)sqlite3_column_text(st, 2);
            if (sqlite3_column_int(st, 5) == 0)
                continue;
            if (name && type && sqlite3_stricmp(name, l->fid) == 0 &&
                sqlite3_stricmp(type, "INTEGER") == 0)
                pk_fid = 1;
            else
                pk_other = 1;
        }
    }
    sqlite3_finalize(st);
    sqlite3_free(q);
    st = NULL;
    ok = ok && pk_fid && !pk_other;
    /* two subqueries: SQLite reads min() and max() off the b-tree only
     * when each is alone in its SELECT, and scans the table otherwise */
    q = ok ? sqlite3_mprintf("SELECT (SELECT min(\"%w\") FROM \"%w\"), "
                             "(SELECT max(\"%w\") FROM \"%w\")",
                             l->fid, l->table, l->fid, l->table)
           : NULL;
    ok = 0;
    if (q && sqlite3_prepare_v2(db, q, -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW) {
        ok = 1;
        *empty = sqlite3_column_type(st, 0) == SQLITE_NULL;
        *lo = sqlite3_column_int64(st, 0);
        *hi = sqlite3_column_int64(st, 1);
    }
    sqlite3_finalize(st);
    sqlite3_free(q);
    return ok ? 0 : -1;
}

int gk_read_gpkg_points(gk_context *ctx, const gk_gpkg_layer *l, gk_points *pts, size_t *n_features,
                        size_t *n_skipped_z)
{
    if (!l->path || !l->table || !l->fid || !*l->fid || !l->geom || !*l->geom ||
        strncmp(l->path, "/vsi", 4) == 0 || !sqlite3_threadsafe())
        return GK_GPKG_DECLINED;
    double t0 = now();
    sqlite3 *db = open_db(l->path);
    sqlite3_int64 lo = 0, hi = -1;
    int empty = 0;
    int bad = !db || table_ok(db, l, &lo, &hi, &empty) != 0;
    sqlite3_close(db);
    if (bad)
        return GK_GPKG_DECLINED;
    *n_features = *n_skipped_z = 0;
    if (empty)
        return GK_OK;

    /* One slot per FID, written in place by the range's connection, then
     * closed up: no copy where FIDs are dense (the usual case). FIDs so
     * sparse that the slots would far outnumber the features, or more than
     * 2^28 slots, or slots that memory cannot hold: left to OGR. */
    uint64_t span = (uint64_t)hi - (uint64_t)lo + 1;
    if (span == 0 || span > ((uint64_t)1 << 28) ||
        (l->n_hint >= 0 && span > 2 * (uint64_t)l->n_hint + (1u << 20)))
        return GK_GPKG_DECLINED;
    /* A connection per thread; the ranges, several per thread, go to
     * whichever is free: a thread that starts late (this one, running
     * `beside`) or shares its core (the GPU's start-up) reads fewer. */
    int nt = l->threads > 1 ? l->threads : 1;
    uint64_t nr64 = span / 16384; /* ranges of at least 16384 FIDs */
    if (nr64 > (uint64_t)nt * 8)
        nr64 = (uint64_t)nt * 8;
    int nr = nr64 > 1 ? (int)nr64 : 1;
    if (nt > nr)
        nt = nr;
    size_t n0 = gk_points_count(pts);
    double *x, *y, *z;
    chunk *c = calloc((size_t)nr, sizeof *c);
    reader *rd = calloc((size_t)nt, sizeof *rd);
    char *sql = l->zfield ? sqlite3_mprintf("SELECT \"%w\", \"%w\" FROM \"%w\" WHERE \"%w\" "
                                            "BETWEEN ?1 AND ?2",
                                            l->geom, l->zfield, l->table, l->fid)
                          : sqlite3_mprintf("SELECT \"%w\" FROM \"%w\" WHERE \"%w\" BETWEEN "
                                            "?1 AND ?2",
                                            l->geom, l->table, l->fid);
    if (!c || !rd || !sql || gk_points_extend(pts, (size_t)span, &x, &y, &z) != GK_OK) {
        free(c);
        free(rd);
        sqlite3_free(sql);
        gk_error_clear(ctx);
        return GK_GPKG_DECLINED;
    }
    uint64_t step = span / (uint64_t)nr, rem = span % (uint64_t)nr;
    for (int k = 0; k < nr; k++) {
        uint64_t a = (uint64_t)k * step + ((uint64_t)k < rem ? (uint64_t)k : rem);
        uint64_t len = step + ((uint64_t)k < rem ? 1 : 0);
        c[k].lo = (sqlite3_int64)((uint64_t)lo + a);
        c[k].hi = (sqlite3_int64)((uint64_t)lo + a + len - 1);
        c[k].x = x + a;
        c[k].y = y + a;
        c[k].z = z + a;
    }
    double t1 = now();
#pragma omp parallel num_threads(nt)
    {
        int me = omp_get_thread_num();
        if (me == 0 && l->beside)
            l->beside(l->beside_arg); /* the others start on the ranges */
        sqlite3 *db = open_db(l->path);
        sqlite3_stmt *st = NULL;
        int ok = db && sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK;
        rd[me].t_open = now() - t1;
#pragma omp for schedule(dynamic, 1) nowait
        for (int k = 0; k < nr; k++) {
            if (ok)
                read_chunk(l, st, &c[k]);
            else
                c[k].declined = 1;
            rd[me].ranges++;
        }
        sqlite3_finalize(st);
        sqlite3_close(db);
        rd[me].t_done = now() - t1;
    }
    sqlite3_free(sql);
    double t_open = 0, t_first = INFINITY, t_last = 0;
    int r_min = nr, r_max = 0;
    for (int k = 0; k < nt; k++) {
        t_open = fmax(t_open, rd[k].t_open);
        t_first = fmin(t_first, rd[k].t_done);
        t_last = fmax(t_last, rd[k].t_done);
        r_min = rd[k].ranges < r_min ? rd[k].ranges : r_min;
        r_max = rd[k].ranges > r_max ? rd[k].ranges : r_max;
    }
    free(rd);
    CPLDebug("GRIDKIT",
             "GeoPackage table \"%s\": table check %.3f s, then %d connections on %d ranges "
             "(%d-%d each): opened in %.3f s at most, done after %.3f-%.3f s",
             l->table, t1 - t0, nt, nr, r_min, r_max, t_open, t_first, t_last);

    int declined = 0;
    size_t n = 0;
    for (int k = 0; k < nr; k++) {
        declined |= c[k].declined;
        if (c[k].x != x + n) {
            memmove(x + n, c[k].x, c[k].n * sizeof *x);
            memmove(y + n, c[k].y, c[k].n * sizeof *y);
            memmove(z + n, c[k].z, c[k].n * sizeof *z);
        }
        n += c[k].n;
        *n_features += c[k].n_features;
        *n_skipped_z += c[k].n_skipped_z;
    }
    free(c);
    gk_points_truncate(pts, declined ? n0 : n0 + n);
    return declined ? GK_GPKG_DECLINED : GK_OK;
}
