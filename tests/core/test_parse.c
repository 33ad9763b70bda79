/* test_parse.c - the -a string parser: every algorithm's canonical string
 * (what the CLI prints and GRIDKIT_ALGORITHM stores) parses again to itself.
 * Found by fuzz_algorithm_string: the data metrics printed max_points, a key
 * they reject, and kriging with variogram=FILE printed an empty model=. */
#include "gk_check.h"
#include "gridkit.h"

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
                if (!strcmp(k, "variogram") || !strcmp(k, "drift_raster") ||
                    !strcmp(k, "block") || !strncmp(eq + 1, "...", 3))
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

int main(void)
{
    static const char *const specs[] = {
        "invdist:power=3:radius1=50:radius2=40:angle=10:max_points=9:min_points=2",
        "invdistnn:radius=150:max_points=12:max_points_per_quadrant=3",
        "average:radius=50:min_points_per_quadrant=1:nodata=-9999",
        "nearest:radius1=2:radius2=1:angle=30",
        "linear:radius=100:nodata=-1",
        "minimum:radius=10:min_points=2",
        "maximum:radius=10",
        "range:radius=10:max_points_per_quadrant=4",
        "count:radius=10",
        "average_distance:radius1=2:radius2=1:angle=90:max_points_per_quadrant=2",
        "average_distance_pts:radius=150:nodata=-9999",
        "aidw:k=7:smoothing=1:radius1=400:radius2=300:angle=10:max_points=70:min_points=20",
        "kriging:model=Sph:psill=0.59:range=897:nugget=0.05:max_points=20",
        /* the model comes from the file later: the string names the file */
        "kriging:variogram=vgm.json:max_points=20",
    };
    gk_context *ctx = gk_context_new();
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        gk_algorithm *a = gk_algorithm_parse(ctx, specs[i]);
        CHECK(a != NULL);
        if (!a) {
            fprintf(stderr, "  '%s': %s\n", specs[i], gk_errmsg(ctx));
            continue;
        }
        gk_algorithm *b = gk_algorithm_parse(ctx, gk_algorithm_string(a));
        CHECK(b != NULL);
        if (!b)
            fprintf(stderr, "  canonical '%s' of '%s' does not parse: %s\n",
                    gk_algorithm_string(a), specs[i], gk_errmsg(ctx));
        else
            CHECK(!strcmp(gk_algorithm_string(b), gk_algorithm_string(a)));
        gk_algorithm_free(b);
        gk_algorithm_free(a);
    }
    check_listed_keys(ctx);
    gk_context_free(ctx);
    printf("%d checks, %d failures\n", checks, failures);
    return failures ? 1 : 0;
}
