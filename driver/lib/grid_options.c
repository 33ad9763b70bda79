/* SPDX-License-Identifier: MIT */
/*
 * grid_options.c - gdal_grid's command line (3.6, plus -oo from 3.7) and
 * gridkit's own options, parsed into gk_grid_options. The one grammar that the
 * CLI, the plugin's open string and the tests share.
 */
#include "lib/grid_options.h"
#include "mpi/world.h"

#include <cpl_conv.h>
#include <cpl_multiproc.h>
#include <cpl_string.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <omp.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

/* text from column 24 on, wrapped at spaces before column 78. */
static size_t add_wrapped(char *buf, size_t used, size_t cap, const char *text)
{
    int col = 24;
    for (const char *w = text; *w && used < cap;) {
        size_t n = strcspn(w, " ");
        if (col > 24 && col + 1 + (int)n > 78) {
            used += (size_t)snprintf(buf + used, cap - used, "\n%24s", "");
            col = 24;
        } else if (col > 24) {
            used += (size_t)snprintf(buf + used, cap - used, " ");
            col++;
        }
        if (used < cap)
            used += (size_t)snprintf(buf + used, cap - used, "%.*s", (int)n, w);
        col += (int)n;
        w += n + strspn(w + n, " ");
    }
    if (used < cap)
        used += (size_t)snprintf(buf + used, cap - used, "\n");
    return used;
}

/* The algorithms' part of the help, from the library's list of methods:
 * a method added to algorithms/methods.def appears here by itself. */
static void add_algorithms(char *buf, size_t cap)
{
    size_t used = strlen(buf);
    used += (size_t)snprintf(buf + used, used < cap ? cap - used : 0,
                             "Algorithms (-a name[:key=value]*; gdal_grid's take its keys and "
                             "defaults;\ndocs/grid.md and docs/kriging.md say more):\n");
    for (int i = 0; i < gk_n_algorithms() && used < cap; i++) {
        char keys[1024] = "keys: ";
        gk_algorithm_keys_at(i, keys + 6, sizeof keys - 6);
        used += (size_t)snprintf(buf + used, cap - used, "  %-21s ", gk_algorithm_name_at(i));
        used = add_wrapped(buf, used, cap, gk_algorithm_summary_at(i));
        if (used < cap)
            used += (size_t)snprintf(buf + used, cap - used, "%24s", "");
        used = add_wrapped(buf, used, cap, keys);
    }
}

static char usage_text[8192];
static pthread_once_t usage_once = PTHREAD_ONCE_INIT;

static void build_usage(void)
{
    snprintf(usage_text, sizeof usage_text, "%s",
             "Usage: gridkit grid [-ot type] [-of format] [-co NAME=VALUE]*\n"
             "    [-zfield field] [-z_increase v] [-z_multiply v] [-a_srs srs]\n"
             "    [-spat xmin ymin xmax ymax] [-clipsrc xmin ymin xmax ymax|WKT|datasource|"
             "spat_extent]\n"
             "    [-clipsrcsql sql] [-clipsrclayer layer] [-clipsrcwhere expr]\n"
             "    [-l layer]* [-where expr] [-sql statement] [-oo NAME=VALUE]*\n"
             "    [-txe xmin xmax] [-tye ymin ymax] [-tr xres yres] [-outsize nx ny]\n"
             "    [-a algorithm[:key=value]*] [-q] [--threads N] [--precision single|double]\n"
             "    [--device auto|cpu|cuda|cuda:N] [--timings] [--parts DIR]\n"
             "    src_datasource dst_filename\n"
             "       mpirun -n N gridkit grid ... (the same raster, computed by N processes)\n"
             "       gridkit grid --algorithms\n"
             "    (the algorithms, one per line: name, keys and summary, separated by tabs)\n"
             "\n");
    add_algorithms(usage_text, sizeof usage_text);
    size_t used = strlen(usage_text);
    snprintf(usage_text + used, sizeof usage_text - used, "%s",
             "Sources: any OGR vector source, or XYZ text (*.xyz or -oo FORMAT=XYZ).\n"
             "Grid: -txe/-tye (default: the points' extent) with -outsize (default 256 256)\n"
             "or -tr (the extent then needed, as in gdal_grid; heatmap alone takes QGIS's\n"
             "grid from -tr: the points' extent widened by the radius, ceil(side/res)+1\n"
             "pixels of exactly that size from its top-left corner).\n"
             "--timings prints the seconds spent reading points, preparing (index, GPU),\n"
             "gridding (and writing tiles, within it) and finishing the file, on stderr.\n"
             "--parts DIR writes the grid as strips, each a tiled GeoTIFF in DIR, and\n"
             "dst_filename (a .vrt) as their mosaic; under mpirun each rank writes its own.\n");
}

const char *gk_grid_usage(void)
{
    pthread_once(&usage_once, build_usage);
    return usage_text;
}

static int parse_double(gk_context *ctx, const char *opt, const char *s, double *v)
{
    char *end;
    errno = 0;
    *v = strtod(s, &end);
    if (end == s || *end || errno == ERANGE || !isfinite(*v))
        return gk_error(ctx, GK_ERR_ARG, "%s: '%s' is not a number", opt, s);
    return GK_OK;
}

static int parse_int(gk_context *ctx, const char *opt, const char *s, int *v)
{
    char *end;
    errno = 0;
    long long x = strtoll(s, &end, 10);
    if (end == s || *end || errno == ERANGE)
        return gk_error(ctx, GK_ERR_ARG, "%s: '%s' is not a whole number", opt, s);
    if (x <= 0 || x > INT_MAX)
        return gk_error(ctx, GK_ERR_ARG, "%s: %s must be between 1 and %d", opt, s, INT_MAX);
    *v = (int)x;
    return GK_OK;
}

/* More threads than this only cost memory and start-up time, and far more
 * crash libgomp (--threads 70000: a segfault): 64 per CPU, never above
 * GK_THREADS_MAX. */
#define GK_THREADS_PER_CPU 64
#define GK_THREADS_MAX 4096

int gk_thread_limit(void)
{
    int cpus = CPLGetNumCPUs();
    long lim = (long)GK_THREADS_PER_CPU * (cpus < 1 ? 1 : cpus);
    return lim > GK_THREADS_MAX ? GK_THREADS_MAX : (int)lim;
}

/* The limit and where it comes from, for messages. */
static const char *thread_limit_text(char buf[128])
{
    int cpus = CPLGetNumCPUs();
    snprintf(buf, 128, "%d here (%d per CPU, %d CPU%s, never more than %d)", gk_thread_limit(),
             GK_THREADS_PER_CPU, cpus, cpus == 1 ? "" : "s", GK_THREADS_MAX);
    return buf;
}

static int check_threads(gk_context *ctx, const char *what, const char *given, long long n)
{
    if (n <= gk_thread_limit())
        return GK_OK;
    char lim[128];
    return gk_error(ctx, GK_ERR_ARG, "%s%s%s: too many threads; at most %s", what,
                    what[0] == '-' ? " " : "=", given, thread_limit_text(lim));
}

/* --threads N: a whole number from 1 to gk_thread_limit(), or ALL_CPUS. */
static int parse_threads(gk_context *ctx, const char *a, const char *s, int *v)
{
    if (!strcasecmp(s, "ALL_CPUS")) {
        *v = 0;
        return GK_OK;
    }
    char *end, lim[128];
    errno = 0;
    long long n = strtoll(s, &end, 10);
    if (end == s || *end)
        return gk_error(ctx, GK_ERR_ARG,
                        "%s: '%s' is not a whole number: give from 1 to %s, or ALL_CPUS", a, s,
                        thread_limit_text(lim));
    if (n < 1)
        return gk_error(ctx, GK_ERR_ARG,
                        "%s %s: the thread count must be from 1 to %s, or ALL_CPUS for every "
                        "core",
                        a, s, thread_limit_text(lim));
    if (errno == ERANGE)
        n = LLONG_MAX;
    if (check_threads(ctx, a, s, n))
        return gk_errno(ctx);
    *v = (int)n;
    return GK_OK;
}

/* Where several ranks share a host, each takes its share of the cores that
 * it may run on: unbound ranks (mpirun --bind-to none) would otherwise each
 * start a thread per core, and their spinning threads slow every rank. A
 * rank bound to fewer cores than its share keeps those. 0: every core. */
static int rank_share(void)
{
    const gk_world *w = gk_world_get();
    const int ranks = gk_world_local_size(w);
    if (ranks <= 1)
        return 0;
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    int mine = omp_get_num_procs(), share = online > 0 ? (int)(online / ranks) : mine;
    share = share < mine ? share : mine;
    return share < 1 ? 1 : share;
}

static int threads_wanted(gk_context *ctx, const gk_grid_options *o)
{
    if (o->threads > 0)
        return o->threads; /* checked when parsed */
    const char *s = CPLGetConfigOption("GDAL_NUM_THREADS", NULL);
    if (!s)
        return rank_share();
    if (EQUAL(s, "ALL_CPUS"))
        return 0;
    char *end;
    errno = 0;
    long long n = strtoll(s, &end, 10);
    if (end == s || *end || n <= 0)
        return 0; /* as GDAL: a value it cannot read means every core */
    if (errno == ERANGE || check_threads(ctx, "GDAL_NUM_THREADS", s, n) != GK_OK) {
        if (!gk_errno(ctx))
            check_threads(ctx, "GDAL_NUM_THREADS", s, LLONG_MAX);
        return -1;
    }
    return (int)n;
}

int gk_grid_options_apply_threads(gk_context *ctx, const gk_grid_options *o)
{
    int threads = threads_wanted(ctx, o);
    if (threads < 0)
        return gk_errno(ctx);
    gk_context_set_threads(ctx, threads);
    return GK_OK;
}

void gk_grid_options_free(gk_grid_options *o)
{
    if (!o)
        return;
    CSLDestroy(o->layers);
    CSLDestroy(o->open_options);
    CSLDestroy(o->creation_options);
    CPLFree(o->where);
    CPLFree(o->sql);
    CPLFree(o->clipsrc);
    CPLFree(o->clipsrcsql);
    CPLFree(o->clipsrclayer);
    CPLFree(o->clipsrcwhere);
    CPLFree(o->zfield);
    CPLFree(o->a_srs);
    CPLFree(o->type);
    CPLFree(o->format);
    CPLFree(o->algorithm);
    gk_algorithm_free(o->alg);
    CPLFree(o->device);
    CPLFree(o->parts);
    CPLFree(o->src);
    CPLFree(o->dst);
    free(o);
}

#define NEED(k)                                                                                    \
    do {                                                                                           \
        if (i + (k) >= argc) {                                                                     \
            gk_error(ctx, GK_ERR_ARG, "%s needs %d argument%s (try --help)", a, (k),               \
                     (k) > 1 ? "s" : "");                                                          \
            goto fail;                                                                             \
        }                                                                                          \
    } while (0)

#define ONCE(field)                                                                                \
    do {                                                                                           \
        if (field) {                                                                               \
            gk_error(ctx, GK_ERR_ARG, "%s given twice", a);                                        \
            goto fail;                                                                             \
        }                                                                                          \
    } while (0)

/* The field of an option that takes one word: kept once (string_option) or
 * every time given (list_option); NULL for other arguments. */
static char **string_option(gk_grid_options *o, const char *a)
{
    if (!strcmp(a, "-of") || !strcmp(a, "-f"))
        return &o->format;
    if (!strcmp(a, "-ot"))
        return &o->type;
    if (!strcmp(a, "-zfield"))
        return &o->zfield;
    if (!strcmp(a, "-a_srs"))
        return &o->a_srs;
    if (!strcmp(a, "-clipsrcsql"))
        return &o->clipsrcsql;
    if (!strcmp(a, "-clipsrclayer"))
        return &o->clipsrclayer;
    if (!strcmp(a, "-clipsrcwhere"))
        return &o->clipsrcwhere;
    if (!strcmp(a, "-where"))
        return &o->where;
    if (!strcmp(a, "-sql"))
        return &o->sql;
    if (!strcmp(a, "-a"))
        return &o->algorithm;
    return NULL;
}

static char ***list_option(gk_grid_options *o, const char *a)
{
    if (!strcmp(a, "-co"))
        return &o->creation_options;
    if (!strcmp(a, "-oo"))
        return &o->open_options;
    if (!strcmp(a, "-l"))
        return &o->layers;
    return NULL;
}

gk_grid_options *gk_grid_options_new(gk_context *ctx, int argc, char **argv)
{
    gk_grid_options *o = calloc(1, sizeof *o);
    if (!o) {
        gk_error(ctx, GK_ERR_NOMEM, "out of memory");
        return NULL;
    }
    o->z_multiply = 1.0;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        char **str = string_option(o, a), ***list = list_option(o, a);
        if (str) {
            NEED(1);
            ONCE(*str);
            *str = CPLStrdup(argv[++i]);
        } else if (list) {
            NEED(1);
            *list = CSLAddString(*list, argv[++i]);
        } else if (!strcmp(a, "-z_increase")) {
            NEED(1);
            if (parse_double(ctx, a, argv[++i], &o->z_increase))
                goto fail;
        } else if (!strcmp(a, "-z_multiply")) {
            NEED(1);
            if (parse_double(ctx, a, argv[++i], &o->z_multiply))
                goto fail;
        } else if (!strcmp(a, "-spat")) {
            NEED(4);
            for (int k = 0; k < 4; k++)
                if (parse_double(ctx, a, argv[i + 1 + k], &o->spat[k]))
                    goto fail;
            i += 4;
            if (o->spat[0] >= o->spat[2] || o->spat[1] >= o->spat[3]) {
                gk_error(ctx, GK_ERR_ARG,
                         "-spat: xmin ymin xmax ymax must have xmin < xmax and "
                         "ymin < ymax");
                goto fail;
            }
            o->have_spat = 1;
        } else if (!strcmp(a, "-clipsrc")) {
            NEED(1);
            ONCE(o->clipsrc);
            /* Four numbers = a rectangle; anything else is one argument. */
            double v[4];
            int nums = i + 4 < argc;
            gk_context *quiet = gk_context_new();
            for (int k = 0; nums && k < 4; k++)
                nums = parse_double(quiet, a, argv[i + 1 + k], &v[k]) == GK_OK;
            gk_context_free(quiet);
            if (nums) {
                o->clipsrc = CPLStrdup(
                    CPLSPrintf("%s %s %s %s", argv[i + 1], argv[i + 2], argv[i + 3], argv[i + 4]));
                i += 4;
            } else {
                o->clipsrc = CPLStrdup(argv[++i]);
            }
        } else if (!strcmp(a, "-txe") || !strcmp(a, "-tye")) {
            NEED(2);
            double *e = a[2] == 'x' ? o->txe : o->tye;
            if (parse_double(ctx, a, argv[i + 1], &e[0]) ||
                parse_double(ctx, a, argv[i + 2], &e[1]))
                goto fail;
            i += 2;
            if (e[0] == e[1]) {
                gk_error(ctx, GK_ERR_ARG, "%s %s %s: the two edges must differ", a, argv[i - 1],
                         argv[i]);
                goto fail;
            }
            if (a[2] == 'x')
                o->have_txe = 1;
            else
                o->have_tye = 1;
        } else if (!strcmp(a, "-outsize")) {
            NEED(2);
            if (parse_int(ctx, a, argv[i + 1], &o->nx) || parse_int(ctx, a, argv[i + 2], &o->ny))
                goto fail;
            i += 2;
            o->have_outsize = 1;
        } else if (!strcmp(a, "-tr")) {
            NEED(2);
            if (parse_double(ctx, a, argv[i + 1], &o->tr[0]) ||
                parse_double(ctx, a, argv[i + 2], &o->tr[1]))
                goto fail;
            i += 2;
            if (!(o->tr[0] > 0 && o->tr[1] > 0)) {
                gk_error(ctx, GK_ERR_ARG, "-tr: both resolutions must be > 0");
                goto fail;
            }
            o->have_tr = 1;
        } else if (!strcmp(a, "-q") || !strcmp(a, "-quiet") || !strcmp(a, "--quiet")) {
            o->quiet = 1;
        } else if (!strcmp(a, "--timings")) {
            o->timings = 1;
        } else if (!strcmp(a, "--parts")) {
            NEED(1);
            ONCE(o->parts);
            o->parts = CPLStrdup(argv[++i]);
        } else if (!strcmp(a, "--threads")) {
            NEED(1);
            if (parse_threads(ctx, a, argv[++i], &o->threads))
                goto fail;
        } else if (!strcmp(a, "--device")) {
            NEED(1);
            ONCE(o->device);
            o->device = CPLStrdup(argv[++i]);
            /* syntax only here; whether the GPU works is checked when gridding */
            if (strcmp(o->device, "auto") && strcmp(o->device, "cpu") &&
                strcmp(o->device, "cuda") && strncmp(o->device, "cuda:", 5)) {
                gk_error(ctx, GK_ERR_ARG, "--device: '%s' is not auto, cpu, cuda or cuda:N",
                         o->device);
                goto fail;
            }
        } else if (!strcmp(a, "--precision")) {
            NEED(1);
            i++;
            if (!strcmp(argv[i], "single"))
                o->precision = GK_PRECISION_SINGLE;
            else if (!strcmp(argv[i], "double"))
                o->precision = GK_PRECISION_DOUBLE;
            else {
                gk_error(ctx, GK_ERR_ARG, "--precision: '%s' is not single or double", argv[i]);
                goto fail;
            }
        } else if (a[0] == '-' && a[1] != '\0') {
            gk_error(ctx, GK_ERR_ARG, "Unknown option name '%s' (try --help)", a);
            goto fail;
        } else if (!o->src) {
            o->src = CPLStrdup(a);
        } else if (!o->dst) {
            o->dst = CPLStrdup(a);
        } else {
            gk_error(ctx, GK_ERR_ARG, "Too many command options '%s'", a);
            goto fail;
        }
    }
    if (o->have_outsize && o->have_tr) {
        gk_error(ctx, GK_ERR_ARG, "-outsize and -tr options cannot be used at the same time");
        goto fail;
    }
    if (!o->src) {
        gk_error(ctx, GK_ERR_ARG, "no source datasource given (try --help)");
        goto fail;
    }
    if (o->parts && o->dst && !EQUAL(CPLGetExtension(o->dst), "vrt")) {
        gk_error(ctx, GK_ERR_ARG,
                 "--parts %s: the destination %s must be a .vrt, the mosaic of the parts", o->parts,
                 o->dst);
        goto fail;
    }
    if (o->parts && o->format && !EQUAL(o->format, "VRT")) {
        gk_error(ctx, GK_ERR_ARG, "--parts writes GeoTIFF parts and a VRT: -of %s cannot apply",
                 o->format);
        goto fail;
    }
    /* The algorithm string parsed now, once: a typo fails before any reading. */
    if (!(o->alg = gk_algorithm_parse(ctx, o->algorithm)))
        goto fail;
    /* gdal_grid needs the extent with -tr; heatmap, as QGIS, takes the points' */
    if (o->have_tr && !(o->have_txe && o->have_tye) &&
        ((o->have_txe || o->have_tye) || !isfinite(gk_algorithm_pixel_margin(o->alg)))) {
        gk_error(ctx, GK_ERR_ARG,
                 "-tr needs the extent too: give -txe and -tye (heatmap alone takes QGIS's: "
                 "the points' extent widened by the radius)");
        goto fail;
    }
    return o;
fail:
    gk_grid_options_free(o);
    return NULL;
}

int gk_grid_options_set_algorithm(gk_context *ctx, gk_grid_options *o, char *spec)
{
    gk_algorithm *alg = gk_algorithm_parse(ctx, spec);
    if (!alg) {
        CPLFree(spec);
        return gk_errno(ctx);
    }
    CPLFree(o->algorithm);
    gk_algorithm_free(o->alg);
    o->algorithm = spec;
    o->alg = alg;
    return GK_OK;
}

void gk_grid_options_set_progress(gk_grid_options *o, gk_progress_fn fn, void *user)
{
    o->progress = fn;
    o->progress_user = user;
}

const char *gk_grid_options_source(const gk_grid_options *o) { return o->src; }
const char *gk_grid_options_destination(const gk_grid_options *o) { return o->dst; }
int gk_grid_options_quiet(const gk_grid_options *o) { return o->quiet; }

int gk_grid_option_values(const char *a, char **argv, int i, int argc)
{
    static const char *const one[] = {"-l",          "-where",        "-sql",
                                      "-clipsrcsql", "-clipsrclayer", "-clipsrcwhere",
                                      "-zfield",     "-z_increase",   "-z_multiply",
                                      "-oo",         "-a_srs",        "--threads",
                                      "--precision", "-ot",           "-co",
                                      "-a",          "--device",      "--parts"};
    if (!strcmp(a, "-spat"))
        return 4;
    if (!strcmp(a, "-txe") || !strcmp(a, "-tye") || !strcmp(a, "-outsize") || !strcmp(a, "-tr") ||
        !strcmp(a, "--config"))
        return 2;
    if (!strcmp(a, "-clipsrc")) {
        char *end;
        if (i + 1 < argc) {
            strtod(argv[i + 1], &end);
            if (*argv[i + 1] && *end == '\0')
                return 4;
        }
        return 1;
    }
    for (size_t k = 0; k < sizeof one / sizeof one[0]; k++)
        if (!strcmp(a, one[k]))
            return 1;
    return 0;
}
