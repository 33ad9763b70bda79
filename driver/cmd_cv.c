/* cmd_cv.c - `gridkit cv` (placeholder until implemented). */
#include "commands.h"

#include <stdio.h>

int gk_cmd_cv(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fputs("gridkit cv: not implemented yet\n", stderr);
    return 1;
}
