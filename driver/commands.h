/* commands.h - the gridkit sub-commands besides `grid`; each a thin shell over
 * the library, in a file of its own (cmd_<name>.c). argv excludes "gridkit
 * <name>"; GDAL is registered; the return value is the exit code. */
#ifndef GK_COMMANDS_H
#define GK_COMMANDS_H

int gk_cmd_variogram(int argc, char **argv);
int gk_cmd_cv(int argc, char **argv);

#endif
