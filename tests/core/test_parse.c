/* SPDX-License-Identifier: MIT */
/* test_parse.c - the -a string parser, from the cases in tests/core/specs/:
 * each string of round_trip.txt has a canonical string (what the CLI prints
 * and GRIDKIT_ALGORITHM stores) that parses again to itself, each of
 * bad.tsv is refused with a message naming the problem; and every key the
 * methods list is one their parsers take. Found by fuzz_algorithm_string:
 * the data metrics printed max_points, a key they reject, and kriging with
 * variogram=FILE printed an empty model=. A new case is a line in a file. */
#include "gk_check.h"
#include "gridkit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The list front ends read (gridkit grid --help, --algorithms, QGIS): every
 * name parses to itself, and every key a method lists is one its parser
 * takes. Keys listed as "key=a|b" are tried with a; plain keys with 1. */
static void check_listed_keys(gk_context *ctx)
{
    CHECK(gk_n_algorithms() >= 13);
    CHECK(gk_algorithm_name_at(-1) == NULL && gk_algorithm_name_at(gk_n_algorithms()) == NULL);
    for (int i = 0; i < gk_n_algorithms(); i++) {
        const char *name = gk_algorithm_name_at(i);
        gk_algorithm *a = gk_algorithm_parse(ctx, name);
        if (a) /* kriging alone wants a model: any error but "unknown algorithm" */
            CHECK(!strcmp(gk_algorithm_name(a), name));
        else
            CHECK(!strstr(gk_errmsg(ctx), "unknown algorithm"));
        gk_algorithm_free(a);
        CHECK(gk_algorithm_summary_at(i) && strlen(gk_algorithm_summary_at(i)) > 10);
        char keys[1024];
        size_t len = gk_algorithm_keys_at(i, keys, sizeof keys);
        CHECK(len > 0 && len == strlen(keys));
        /* the list is "key, key=a|b, ...": cut it at each ", " in place */
        for (char *k = keys, *next; *k; k = next) {
            char *sep = strstr(k, ", ");
            next = sep ? sep + 2 : k + strlen(k);
            if (sep)
                *sep = '\0';
            char spec[256], *eq = strchr(k, '=');
            if (eq) { /* key=a|b: the first choice, unless a placeholder */
                *eq = '\0';
                size_t n = strcspn(eq + 1, "|");
                if (!strcmp(k, "variogram") || !strcmp(k, "drift_raster") || !strcmp(k, "block") ||
                    !strncmp(eq + 1, "...", 3))
                    continue; /* a file name or a size: parse_kriging's own tests */
                snprintf(spec, sizeof spec, "%s:%s=%.*s", name, k, (int)n, eq + 1);
            } else {
                snprintf(spec, sizeof spec, "%s:%s=1", name, k);
            }
            gk_algorithm *b = gk_algorithm_parse(ctx, spec);
            if (!b && strstr(gk_errmsg(ctx), "no parameter")) {
                fprintf(stderr, "  '%s' is listed but not taken: %s\n", spec, gk_errmsg(ctx));
                CHECK(0);
            }
            gk_algorithm_free(b);
        }
    }
}

/* The lines of dir/name that are not comments or blank, with their
 * newline cut; NULL-terminated, malloc()ed (free each, then the array). */
static char **read_lines(const char *dir, const char *name)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "cannot read %s\n", path);
        return NULL;
    }
    size_t n = 0, cap = 64;
    char **v = malloc(cap * sizeof *v), line[1024];
    while (v && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\r\n")] = '\0';
        if (!line[0] || line[0] == '#')
            continue;
        if (n + 2 > cap) {
            char **w = realloc(v, (cap *= 2) * sizeof *v);
            if (!w)
                break;
            v = w;
        }
        size_t len = strlen(line) + 1;
        if (!(v[n] = malloc(len)))
            break;
        memcpy(v[n++], line, len);
    }
    fclose(f);
    if (v)
        v[n] = NULL;
    return v;
}

static void free_lines(char **v)
{
    for (size_t i = 0; v && v[i]; i++)
        free(v[i]);
    free(v);
}

/* Every string of round_trip.txt parses, and its canonical string parses
 * again to itself. */
static void check_round_trips(gk_context *ctx, char **specs)
{
    CHECK(specs && specs[0]);
    for (size_t i = 0; specs && specs[i]; i++) {
        gk_algorithm *a = gk_algorithm_parse(ctx, specs[i]);
        CHECKF(a != NULL, "'%s': %s", specs[i], gk_errmsg(ctx));
        if (!a)
            continue;
        gk_algorithm *b = gk_algorithm_parse(ctx, gk_algorithm_string(a));
        CHECKF(b && !strcmp(gk_algorithm_string(b), gk_algorithm_string(a)),
               "canonical '%s' of '%s' does not read back: %s", gk_algorithm_string(a), specs[i],
               b ? gk_algorithm_string(b) : gk_errmsg(ctx));
        gk_algorithm_free(b);
        gk_algorithm_free(a);
    }
}

/* Every string of bad.tsv is refused as a bad argument, and the message
 * names what is wrong (the word after the tab). */
static void check_refused(gk_context *ctx, char **cases)
{
    CHECK(cases && cases[0]);
    for (size_t i = 0; cases && cases[i]; i++) {
        char *tab = strchr(cases[i], '\t');
        CHECKF(tab != NULL, "bad.tsv line '%s' has no tab", cases[i]);
        if (!tab)
            continue;
        *tab = '\0';
        gk_algorithm *a = gk_algorithm_parse(ctx, cases[i]);
        CHECKF(!a && gk_errno(ctx) == GK_ERR_ARG && strstr(gk_errmsg(ctx), tab + 1),
               "'%s' should be refused naming '%s': %s", cases[i], tab + 1,
               a ? gk_algorithm_string(a) : gk_errmsg(ctx));
        gk_algorithm_free(a);
        gk_error_clear(ctx);
    }
}

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : "tests/core/specs";
    gk_context *ctx = gk_context_new();
    char **round = read_lines(dir, "round_trip.txt"), **bad = read_lines(dir, "bad.tsv");
    check_round_trips(ctx, round);
    check_refused(ctx, bad);
    free_lines(round);
    free_lines(bad);
    check_listed_keys(ctx);
    gk_context_free(ctx);
    printf("%d checks, %d failures\n", checks, failures);
    return failures ? 1 : 0;
}
