/* SPDX-License-Identifier: MIT */
/*
 * stale_temps.c - removing a killed run's temporaries (see stale_temps.h).
 */
#define _DEFAULT_SOURCE 1
#include "io/stale_temps.h"

#include <cpl_conv.h>
#include <cpl_string.h>
#include <cpl_vsi.h>
#include <ctype.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

const char *const gk_output_sidecar_exts[] = {"dbf", "shx", "prj",  "cpg", "qix", "sbn", "sbx",
                                              "xsd", "gfs", "csvt", "dat", "id",  "map", NULL};

/* Seconds since the epoch at which pid started, or -1 when unknown. */
static double process_start(long pid)
{
    static double boot = -1;
    if (boot < 0) {
        FILE *f = fopen("/proc/stat", "r");
        char line[256];
        while (f && fgets(line, sizeof line, f))
            if (!strncmp(line, "btime ", 6))
                boot = atof(line + 6);
        if (f)
            fclose(f);
        if (boot < 0)
            return -1;
    }
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    /* the name in parentheses may hold spaces and ')': fields follow the last ')' */
    char *p = strrchr(buf, ')');
    if (!p)
        return -1;
    /* field 3 (state) is first after ')'; p ends on the space before field 22,
     * the start time */
    for (int field = 3; field <= 22 && p; field++)
        p = strchr(p + 1, ' ');
    if (!p)
        return -1;
    return boot + strtod(p + 1, NULL) / (double)sysconf(_SC_CLK_TCK);
}

int gk_process_gone(long pid, time_t changed)
{
    if (pid <= 0)
        return 0;
    if (kill((pid_t)pid, 0) != 0 && errno == ESRCH)
        return 1;
    double start = process_start(pid);
    /* boot time has whole seconds: a second's margin keeps doubt on the
     * side of leaving the file */
    return start >= 0 && start > (double)changed + 1.0;
}

/* tail (after "<stem>.gridkit-tmp-<pid>") names a temporary of dst: the
 * file (dst's extension, then nothing or a side-car), its aside ("-old"),
 * or the intermediate GTiff ("-src.tif"). *aside set for the aside. */
static int ours(const char *tail, const char *ext, int *aside)
{
    *aside = 0;
    if (!strncmp(tail, "-old", 4)) {
        *aside = 1;
        tail += 4;
        return *ext ? tail[0] == '.' && !strcmp(tail + 1, ext) : !*tail;
    }
    if (!strncmp(tail, "-src.tif", 8))
        return tail[8] == '\0' || tail[8] == '.';
    if (*ext) {
        size_t el = strlen(ext);
        if (tail[0] == '.' && !strncmp(tail + 1, ext, el) &&
            (tail[1 + el] == '\0' || tail[1 + el] == '.' || tail[1 + el] == '-'))
            return 1;
        for (const char *const *s = gk_output_sidecar_exts; *s; s++)
            if (tail[0] == '.' && !strcmp(tail + 1, *s))
                return 1;
        return 0;
    }
    return !*tail || !strcmp(tail, ".aux.xml") || !strcmp(tail, "-journal") ||
           !strcmp(tail, "-wal") || !strcmp(tail, "-shm");
}

void gk_output_clear_stale(const char *dst)
{
    if (!dst || !strncmp(dst, "/vsi", 4))
        return;
    char *dir = CPLStrdup(CPLGetPath(dst));
    /* copies: CPL's path functions reuse a small ring of buffers */
    char *ext = CPLStrdup(CPLGetExtension(dst));
    const char *base = CPLGetFilename(dst); /* points into dst */
    size_t stem_len = strlen(base) - (*ext ? strlen(ext) + 1 : 0);
    char *prefix = CPLStrdup(CPLSPrintf("%.*s.gridkit-tmp-", (int)stem_len, base));
    size_t pl = strlen(prefix);
    char **entries = VSIReadDir(*dir ? dir : ".");
    long me = (long)getpid();
    for (char **e = entries; e && *e; e++) {
        if (strncmp(*e, prefix, pl) != 0 || !isdigit((unsigned char)(*e)[pl]))
            continue;
        char *end;
        long pid = strtol(*e + pl, &end, 10);
        int aside;
        if (pid == me || !ours(end, ext, &aside))
            continue;
        char *path = CPLStrdup(CPLFormFilename(*dir ? dir : NULL, *e, NULL));
        struct stat st, dst_st;
        if (lstat(path, &st) == 0 && S_ISREG(st.st_mode) && gk_process_gone(pid, st.st_ctime)) {
            /* a run killed between its two renames left the old output aside */
            if (aside && lstat(dst, &dst_st) != 0 && errno == ENOENT) {
                if (rename(path, dst) == 0)
                    fprintf(stderr, "gridkit: %s put back from %s, left by a killed run\n", dst,
                            path);
            } else {
                unlink(path);
            }
        }
        CPLFree(path);
    }
    CSLDestroy(entries);
    CPLFree(prefix);
    CPLFree(ext);
    CPLFree(dir);
}
