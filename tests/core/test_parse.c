/* test_parse.c - the -a string parser: every algorithm's canonical string
 * (what the CLI prints and GRIDKIT_ALGORITHM stores) parses again to itself.
 * Found by fuzz_algorithm_string: the data metrics printed max_points, a key
 * they reject, and kriging with variogram=FILE printed an empty model=. */
#include "gk_check.h"
#include "gridkit.h"

#include <string.h>

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
    gk_context_free(ctx);
    printf("%d checks, %d failures\n", checks, failures);
    return failures ? 1 : 0;
}
