/*
 * read_gpkg.c - GeoPackage points straight from SQLite, several connections
 * at once, each on its own range of FIDs (see read_gpkg.h).
 */
#include "read_gpkg.h"
#include "wkb_point.h"

#include "ogr_core.h"

#include <math.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* One range of FIDs and what a connection read from it. */
typedef struct {
    sqlite3_int64 lo, hi; /* inclusive */
    double *x, *y, *z;    /* its slots in the point set: hi - lo + 1 of them */
    size_t n;
    size_t n_features, n_skipped_z;
    int declined;
} chunk;

static sqlite3 *open_db(const char *path)
{
    sqlite3 *db = NULL;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, NULL) !=
        SQLITE_OK) {
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
static int blob_point(const unsigned char *b, int len, double *x, double *y, double *z,
                      int *is3d)
{
    static const int env_bytes[8] = {0, 32, 48, 48, 64, -1, -1, -1};
    if (!b || len < 8 || b[0] != 'G' || b[1] != 'P' || b[2] != 0 || (b[3] & 0x20))
        return -1; /* not GP, another version, or an extended blob */
    int env = env_bytes[(b[3] >> 1) & 7];
    if (env < 0 || len < 8 + env)
        return -1;
    return gk_wkb_point(b + 8 + env, (size_t)(len - 8 - env), x, y, z, is3d);
}

/* One range: every row of it, as read_points.c's visitor takes a feature. */
static void read_chunk(const gk_gpkg_layer *l, const char *sql, chunk *c)
{
    sqlite3 *db = open_db(l->path);
    sqlite3_stmt *st = NULL;
    if (!db || sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
        c->declined = 1;
        sqlite3_finalize(st);
        sqlite3_close(db);
        return;
    }
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
        if (l->zfield) {
            int zt = sqlite3_column_type(st, 1);
            if (zt == SQLITE_NULL) {
                c->n_skipped_z++;
                continue;
            }
            if (zt != SQLITE_INTEGER && zt != SQLITE_FLOAT) {
                c->declined = 1;
                break;
            }
            /* the conversions OGR's GeoPackage driver applies */
            z = l->zfield_type == OFTInteger     ? (double)sqlite3_column_int(st, 1)
                : l->zfield_type == OFTInteger64 ? (double)sqlite3_column_int64(st, 1)
                                                 : sqlite3_column_double(st, 1);
        }
        if (isnan(z)) {
            c->n_skipped_z++;
            continue;
        }
        /* at most one point per FID: the range's slots cannot overflow */
        c->x[c->n] = x;
        c->y[c->n] = y;
        c->z[c->n] = (z + l->z_increase) * l->z_multiply;
        c->n++;
    }
    if (!c->declined && rc != SQLITE_DONE)
        c->declined = 1;
    sqlite3_finalize(st);
    sqlite3_close(db);
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

int gk_read_gpkg_points(gk_context *ctx, const gk_gpkg_layer *l, gk_points *pts,
                        size_t *n_features, size_t *n_skipped_z)
{
    if (!l->path || !l->table || !l->fid || !*l->fid || !l->geom || !*l->geom ||
        strncmp(l->path, "/vsi", 4) == 0 || !sqlite3_threadsafe())
        return GK_GPKG_DECLINED;
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
    int nc = l->threads > 1 ? l->threads : 1;
    if ((uint64_t)nc > span / 16384) /* ranges of at least 16384 FIDs */
        nc = span / 16384 > 1 ? (int)(span / 16384) : 1;
    size_t n0 = gk_points_count(pts);
    double *x, *y, *z;
    chunk *c = calloc((size_t)nc, sizeof *c);
    char *sql = l->zfield ? sqlite3_mprintf("SELECT \"%w\", \"%w\" FROM \"%w\" WHERE \"%w\" "
                                            "BETWEEN ?1 AND ?2",
                                            l->geom, l->zfield, l->table, l->fid)
                          : sqlite3_mprintf("SELECT \"%w\" FROM \"%w\" WHERE \"%w\" BETWEEN "
                                            "?1 AND ?2",
                                            l->geom, l->table, l->fid);
    if (!c || !sql || gk_points_extend(pts, (size_t)span, &x, &y, &z) != GK_OK) {
        free(c);
        sqlite3_free(sql);
        gk_error_clear(ctx);
        return GK_GPKG_DECLINED;
    }
    uint64_t step = span / (uint64_t)nc, rem = span % (uint64_t)nc;
    for (int k = 0; k < nc; k++) {
        uint64_t a = (uint64_t)k * step + ((uint64_t)k < rem ? (uint64_t)k : rem);
        uint64_t len = step + ((uint64_t)k < rem ? 1 : 0);
        c[k].lo = (sqlite3_int64)((uint64_t)lo + a);
        c[k].hi = (sqlite3_int64)((uint64_t)lo + a + len - 1);
        c[k].x = x + a;
        c[k].y = y + a;
        c[k].z = z + a;
    }
#pragma omp parallel for num_threads(nc) schedule(static, 1)
    for (int k = 0; k < nc; k++)
        read_chunk(l, sql, &c[k]);
    sqlite3_free(sql);

    int declined = 0;
    size_t n = 0;
    for (int k = 0; k < nc; k++) {
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
