/* SPDX-License-Identifier: MIT */
/*
 * module_path.c - where gridkit's optional modules (the CUDA module, the MPI
 * module) are found, so that a build tree works as it is and an installed
 * tree keeps working when it is moved: places are taken relative to the
 * object that holds this code (the program, the GDAL plugin or the library),
 * and only last the folder the build was configured to install into.
 */
#define _GNU_SOURCE /* dladdr */
#include "gridkit.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* From CMake (CMakeLists.txt): the modules' folder relative to the folder of
 * the program (bin/), of the GDAL plugin (its plugin folder) and of the
 * library (lib/), and as an absolute path. */
#ifndef GK_MODULEDIR_FROM_BIN
#define GK_MODULEDIR_FROM_BIN "../lib/gridkit"
#endif
#ifndef GK_MODULEDIR_FROM_PLUGIN
#define GK_MODULEDIR_FROM_PLUGIN "../gridkit"
#endif
#ifndef GK_MODULEDIR_FROM_LIB
#define GK_MODULEDIR_FROM_LIB "gridkit"
#endif

/* A regular file that can be read. */
static int usable(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, R_OK) == 0;
}

/* Tries dir/rel/name; appends it to the list of places looked at. */
static int try_at(const char *dir, const char *rel, const char *name, char *path, size_t cap,
                  char *seen, size_t seen_cap)
{
    char p[4096];
    int n = rel && *rel ? snprintf(p, sizeof p, "%s/%s/%s", dir, rel, name)
                        : snprintf(p, sizeof p, "%s/%s", dir, name);
    if (n <= 0 || (size_t)n >= sizeof p)
        return 0;
    if (usable(p)) {
        if ((size_t)n >= cap)
            return 0;
        memcpy(path, p, (size_t)n + 1);
        return 1;
    }
    size_t used = strlen(seen), len = (size_t)n + (used ? 2 : 0);
    if (used + len < seen_cap) { /* a list cut short names fewer places, never half of one */
        if (used)
            memcpy(seen + used, ", ", 2);
        memcpy(seen + used + (used ? 2 : 0), p, (size_t)n + 1);
    }
    return 0;
}

/* The folder of file (in place: the last '/' ends it); 0 when it has none. */
static int folder_of(char *file)
{
    char *slash = strrchr(file, '/');
    if (!slash)
        return 0;
    *slash = '\0';
    return 1;
}

/* Every relative place, from one folder. A build tree keeps the modules
 * beside the program, and the plugin in gdalplugins/ below them; its test
 * programs (in tests/) find none, and so run where they are told to. */
static int try_from(const char *dir, const char *name, char *path, size_t cap, char *seen,
                    size_t seen_cap)
{
    const char *base = strrchr(dir, '/');
    const int plugins = base && !strcmp(base + 1, "gdalplugins");
    const char *rel[] = {"", GK_MODULEDIR_FROM_BIN, GK_MODULEDIR_FROM_PLUGIN,
                         GK_MODULEDIR_FROM_LIB, plugins ? ".." : NULL};
    for (size_t i = 0; i < sizeof rel / sizeof *rel; i++)
        if (rel[i] && try_at(dir, rel[i], name, path, cap, seen, seen_cap))
            return 1;
    return 0;
}

int gk_module_locate(const char *name, char *path, size_t cap)
{
    char seen[2048] = "", here[4096] = "", exe[4096];
    if (!name || !*name || !path || cap == 0)
        return -1;
    /* 1. from the object holding this code */
    Dl_info info;
    if (dladdr((void *)gk_module_locate, &info) && info.dli_fname && info.dli_fname[0] == '/' &&
        strlen(info.dli_fname) < sizeof here) {
        strcpy(here, info.dli_fname);
        if (folder_of(here) && try_from(here, name, path, cap, seen, sizeof seen))
            return 0;
    }
    /* 2. from the program (where dladdr names no absolute path) */
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (len > 0) {
        exe[len] = '\0';
        if (folder_of(exe) && strcmp(exe, here) &&
            try_from(exe, name, path, cap, seen, sizeof seen))
            return 0;
    }
    /* 3. where the build was to be installed */
#ifdef GK_INSTALL_MODULEDIR
    if (try_at(GK_INSTALL_MODULEDIR, "", name, path, cap, seen, sizeof seen))
        return 0;
#endif
    snprintf(path, cap, "%s", seen);
    return -1;
}
