/* SPDX-License-Identifier: MIT */
/*
 * ridges_options.c - `gridkit ridges`'s command line: its own options
 * (-a, -of, -lco, -nln, --3d) taken out of argv, the rest (the source
 * options, SRC, DST, --threads, --device, -q) parsed by gridkit grid's own
 * parser, so that they behave exactly as for grid.
 */
#include "lib/ridges_options.h"

#include <cpl_conv.h>
#include <cpl_string.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char usage_text[8192];
static pthread_once_t usage_once = PTHREAD_ONCE_INIT;

static void build_usage(void)
{
    snprintf(usage_text, sizeof usage_text,
             "Usage: gridkit ridges SRC DST -a METHOD[:key=value]* [-of FORMAT]\n"
             "    [-lco NAME=VALUE]* [-nln NAME] [--3d]\n"
             "    [-l layer] [-where expr] [-sql statement] [-spat xmin ymin xmax ymax]\n"
             "    [-clipsrc ...] [-clipsrcsql sql] [-clipsrclayer layer] [-clipsrcwhere expr]\n"
             "    [-zfield field] [-z_increase v] [-z_multiply v] [-oo NAME=VALUE]*\n"
             "    [-a_srs srs] [--threads N] [--device auto|cpu|cuda|cuda:N] [-q]\n"
             "\n"
             "The curves that the points of SRC are spread around, as lines in DST\n"
             "(docs/ridges.md). The source options are gridkit grid's.\n"
             "\n"
             "  -a METHOD:key=value...  the method and its keys (below); required\n"
             "  -of FORMAT        an OGR vector driver (default: from DST's extension,\n"
             "                    GPKG when none matches)\n"
             "  -lco NAME=VALUE   a layer creation option of the driver (repeatable)\n"
             "  -nln NAME         the layer's name (default ridges)\n"
             "  --3d              the points' z (-zfield, else the geometry's) is the\n"
             "                    third coordinate: distances in 3-D, LineStringZ out\n"
             "\n"
             "Each line has the fields length, n_support (points assigned to it), closed,\n"
             "mean_density (density; null for curve), width (mean distance of its points)\n"
             "and method (the method with every value it used). The CRS is the source's\n"
             "(-a_srs overrides).\n"
             "\n%s",
             gk_ridges_methods_help());
    size_t n = strlen(usage_text);
    if (n > 0 && usage_text[n - 1] != '\n' && n + 1 < sizeof usage_text)
        strcpy(usage_text + n, "\n");
}

const char *gk_ridges_usage(void)
{
    pthread_once(&usage_once, build_usage);
    return usage_text;
}

void gk_ridges_options_free(gk_ridges_options *o)
{
    if (!o)
        return;
    gk_grid_options_free(o->src);
    CPLFree(o->method);
    CPLFree(o->format);
    CSLDestroy(o->layer_options);
    CPLFree(o->layer_name);
    free(o);
}

/* gridkit grid's options that mean nothing for lines. */
static int grid_only(const char *a)
{
    static const char *const opt[] = {"-ot",      "-co", "-txe",        "-tye",
                                      "-outsize", "-tr", "--precision", "--timings"};
    for (size_t k = 0; k < sizeof opt / sizeof opt[0]; k++)
        if (!strcmp(a, opt[k]))
            return 1;
    return 0;
}

/* One of our own options at argv[*i]: taken (1), an error (-1) or not ours (0). */
static int own_option(gk_context *ctx, gk_ridges_options *o, int argc, char **argv, int *i)
{
    const char *a = argv[*i];
    if (!strcmp(a, "--3d")) {
        o->three_d = 1;
        return 1;
    }
    char **one = !strcmp(a, "-a")                        ? &o->method
                 : !strcmp(a, "-of") || !strcmp(a, "-f") ? &o->format
                 : !strcmp(a, "-nln")                    ? &o->layer_name
                                                         : NULL;
    int lco = !strcmp(a, "-lco");
    if (!one && !lco)
        return 0;
    if (*i + 1 >= argc) {
        gk_error(ctx, GK_ERR_ARG, "%s needs a value (try --help)", a);
        return -1;
    }
    const char *v = argv[++*i];
    if (lco) {
        if (!strchr(v, '=')) {
            gk_error(ctx, GK_ERR_ARG, "-lco %s: expected NAME=VALUE", v);
            return -1;
        }
        o->layer_options = CSLAddString(o->layer_options, v);
        return 1;
    }
    if (*one) {
        gk_error(ctx, GK_ERR_ARG, "%s given twice", a);
        return -1;
    }
    *one = CPLStrdup(v);
    return 1;
}

/* Splits argv into ours (parsed into o) and the rest (source options). */
static int split_args(gk_context *ctx, gk_ridges_options *o, int argc, char **argv, char **rest,
                      int *nrest)
{
    int nr = 0;
    for (int i = 0; i < argc; i++) {
        int own = own_option(ctx, o, argc, argv, &i);
        if (own < 0)
            return gk_errno(ctx);
        if (own)
            continue;
        const char *a = argv[i];
        if (grid_only(a))
            return gk_error(ctx, GK_ERR_ARG,
                            "%s is an option of gridkit grid, not of ridges "
                            "(try --help)",
                            a);
        int nv = gk_grid_option_values(a, argv, i, argc);
        if (i + nv >= argc)
            return gk_error(ctx, GK_ERR_ARG, "%s needs %d value%s (try --help)", a, nv,
                            nv > 1 ? "s" : "");
        for (int k = 0; k <= nv; k++)
            rest[nr++] = argv[i + k];
        i += nv;
    }
    *nrest = nr;
    return GK_OK;
}

gk_ridges_options *gk_ridges_options_new(gk_context *ctx, int argc, char **argv)
{
    gk_ridges_options *o = calloc(1, sizeof *o);
    char **rest = calloc((size_t)argc + 1, sizeof *rest);
    int nrest = 0;
    if (!o || !rest) {
        gk_error(ctx, GK_ERR_NOMEM, "out of memory");
        goto fail;
    }
    if (split_args(ctx, o, argc, argv, rest, &nrest))
        goto fail;
    if (!(o->src = gk_grid_options_new(ctx, nrest, rest)))
        goto fail;
    if (!o->method) {
        gk_error(ctx, GK_ERR_ARG,
                 "-a METHOD:key=value... is required: -a curve:r1=R or -a "
                 "density[:bandwidth=H] (try --help)");
        goto fail;
    }
    /* a typo in -a fails before any reading */
    gk_ridges_method *m = gk_ridges_parse(ctx, o->method, o->three_d ? 3 : 2);
    if (!m)
        goto fail;
    gk_ridges_method_free(m);
    free(rest);
    return o;
fail:
    free(rest);
    gk_ridges_options_free(o);
    return NULL;
}

void gk_ridges_options_set_progress(gk_ridges_options *o, gk_progress_fn fn, void *user)
{
    o->progress = fn;
    o->progress_user = user;
}

int gk_ridges_options_quiet(const gk_ridges_options *o) { return o->src->quiet; }
const char *gk_ridges_options_source(const gk_ridges_options *o) { return o->src->src; }
const char *gk_ridges_options_destination(const gk_ridges_options *o) { return o->src->dst; }
const char *gk_ridges_options_layer_name(const gk_ridges_options *o)
{
    return o->layer_name ? o->layer_name : "ridges";
}
