/* cmd_variogram.c - `gridkit variogram` (placeholder until implemented). */
#include "commands.h"

#include <stdio.h>

int gk_cmd_variogram(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fputs("gridkit variogram: not implemented yet\n", stderr);
    return 1;
}
