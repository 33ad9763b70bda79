/* SPDX-License-Identifier: MIT */
/* fuzz_ridges_string.c - libFuzzer target: the -a strings of `gridkit
 * ridges` (gk_ridges_parse: curve:..., density:...) and their canonical
 * strings. The first byte picks the points' dimension (bit 0: 2 or 3) and
 * whether the method then runs (bit 1) on a fixed small cloud (a noisy arc
 * of 16 points), one thread on the CPU: the run-time checks of the keys
 * (lengths against the points' extent, the bins, the walkers' bounds) and
 * the method string with its estimated values, which must parse again to
 * itself. A rejection without a message aborts. Only keys whose work is
 * small on 16 points run (small_work): a mesh finer than 1 (up to 5e7
 * nodes, each a walker) and caps above 200 steps are valid, bounded and
 * slow, not findings. */
#include "fuzz_common.h"
#include "gridkit_ridges.h"
#include "ridges/ridges.h"

#include <math.h>

static gk_points *arc(gk_context *ctx, int dim)
{
    gk_points *p = gk_points_new(ctx);
    for (int i = 0; i < 16; i++) {
        double a = 0.18 * i, r = 10.0 + 0.3 * sin(7.3 * i);
        gk_points_add(p, r * cos(a), r * sin(a), dim == 3 ? 0.5 * a + 0.2 * cos(5.1 * i) : 0.0);
    }
    return p;
}

/* Whether m's run is quick on the arc (about 20 units wide). */
static int small_work(const gk_ridges_method *m)
{
    if (m->kind == GK_RIDGE_CURVE)
        return m->max_iter <= 200 && m->max_rounds <= 100;
    const double sp = m->spacing > 0 ? m->spacing : m->bandwidth > 0 ? m->bandwidth / 2 : 1.0;
    return m->max_iter_scms <= 200 && (!m->seeds_mesh || sp >= 1.0); /* <= ~800 nodes */
}

/* The method's string parses again, to itself. */
static void round_trip(gk_context *ctx, const gk_ridges_method *m, int dim, const char *s)
{
    const char *c = gk_ridges_method_string(m);
    gk_ridges_method *b = gk_ridges_parse(ctx, c, dim);
    if (!b || strcmp(c, gk_ridges_method_string(b))) {
        fprintf(stderr, "canonical '%s' of '%s' does not read back: %s\n", c, s,
                b ? gk_ridges_method_string(b) : gk_errmsg(ctx));
        abort();
    }
    gk_ridges_method_free(b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    const int dim = data[0] & 1 ? 3 : 2, run = data[0] & 2;
    char *s = fuzz_cstring(data + 1, size - 1);
    gk_context *ctx = gk_context_new();
    gk_context_set_threads(ctx, 1);
    if (gk_context_set_device(ctx, "cpu") != GK_OK)
        abort();
    gk_ridges_method *m = gk_ridges_parse(ctx, s, dim);
    if (!m) {
        if (!gk_errmsg(ctx) || !*gk_errmsg(ctx)) {
            fprintf(stderr, "'%s' rejected without a message\n", s);
            abort();
        }
    } else {
        round_trip(ctx, m, dim, s);
        if (run && small_work(m)) {
            gk_points *pts = arc(ctx, dim);
            gk_lines *l = gk_ridges(ctx, pts, m, dim, NULL, NULL);
            if (!l && (!gk_errmsg(ctx) || !*gk_errmsg(ctx))) {
                fprintf(stderr, "'%s' failed without a message\n", s);
                abort();
            }
            for (size_t i = 0; l && i < l->start[l->n_lines]; i++)
                if (!isfinite(l->x[i]) || !isfinite(l->y[i]) || (l->z && !isfinite(l->z[i]))) {
                    fprintf(stderr, "'%s': a vertex is not finite\n", s);
                    abort();
                }
            if (l)
                round_trip(ctx, m, dim, s); /* with the values the run used */
            gk_lines_free(l);
            gk_points_free(pts);
        }
        gk_ridges_method_free(m);
    }
    gk_context_free(ctx);
    free(s);
    return 0;
}
