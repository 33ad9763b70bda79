/* SPDX-License-Identifier: MIT */
/*
 * cancel_cleanup.c - deleting temporaries on SIGINT/SIGTERM/SIGHUP (see
 * cancel_cleanup.h).
 */
#define _POSIX_C_SOURCE 200809L
#include "io/cancel_cleanup.h"
#include "io/stale_temps.h"

#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Names are never freed once watched: a handler running on another thread
 * may be reading one while the main thread forgets it. A run writes a few
 * outputs at most, each about a dozen names. */
#define GK_CANCEL_SLOTS 256

static char *volatile slots[GK_CANCEL_SLOTS];
static volatile sig_atomic_t held, pending;
static const int watched_signals[] = {SIGINT, SIGTERM, SIGHUP};

static void on_signal(int sig);

static void set_handler(int sig)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof watched_signals / sizeof *watched_signals; i++)
        sigaddset(&sa.sa_mask, watched_signals[i]);
    /* default action again on entry: the re-raise below terminates */
    sa.sa_flags = SA_RESETHAND | SA_NODEFER;
    sigaction(sig, &sa, NULL);
}

static void unlink_watched(void)
{
    for (int i = 0; i < GK_CANCEL_SLOTS; i++) {
        char *p = slots[i];
        if (p)
            unlink(p);
    }
}

static void on_signal(int sig)
{
    if (held) {
        pending = sig;
        set_handler(sig); /* SA_RESETHAND took it away: a second one also waits */
        return;
    }
    unlink_watched();
    raise(sig);
}

void gk_cancel_install(void)
{
    for (size_t i = 0; i < sizeof watched_signals / sizeof *watched_signals; i++) {
        struct sigaction old;
        if (sigaction(watched_signals[i], NULL, &old) == 0 && old.sa_handler != SIG_IGN)
            set_handler(watched_signals[i]);
    }
}

/* Every name ever watched stays reachable from this list (never freed, see
 * slots), so that a forgotten one is not a leak to LeakSanitizer. */
typedef struct watched_name {
    struct watched_name *next;
    char name[];
} watched_name;
static _Atomic(watched_name *) all_names;

static void watch_one(const char *name)
{
    size_t len = strlen(name) + 1;
    watched_name *w = malloc(sizeof *w + len);
    if (!w)
        return;
    memcpy(w->name, name, len);
    w->next = atomic_load(&all_names);
    while (!atomic_compare_exchange_weak(&all_names, &w->next, w))
        ;
    for (int i = 0; i < GK_CANCEL_SLOTS; i++)
        if (!slots[i]) {
            slots[i] = w->name;
            return;
        }
    /* full: the next run's stale-temporary sweep (stale_temps.h) */
}

/* The side-cars: suffixes after the whole name, and replacements of its
 * extension (a shapefile's parts, GML's schema, a CSV's types). The names
 * are temporaries' ("<stem>.gridkit-tmp-<pid>..."): nothing else matches. */
static const char *const after_name[] = {"", ".aux.xml", "-journal", "-wal", "-shm"};

static void for_each_name(const char *name, void (*fn)(const char *))
{
    size_t len = strlen(name);
    char *buf = malloc(len + 16);
    if (!buf)
        return;
    for (size_t i = 0; i < sizeof after_name / sizeof *after_name; i++) {
        snprintf(buf, len + 16, "%s%s", name, after_name[i]);
        fn(buf);
    }
    /* only a temporary's: another name's stem may be a user's file's */
    const char *dot = strrchr(name, '.'), *slash = strrchr(name, '/');
    if (dot && (!slash || dot > slash) && strstr(slash ? slash : name, ".gridkit-tmp-"))
        for (const char *const *s = gk_output_sidecar_exts; *s; s++) {
            snprintf(buf, len + 16, "%.*s.%s", (int)(dot - name), name, *s);
            if (strcmp(buf, name))
                fn(buf);
        }
    free(buf);
}

static void forget_one(const char *name)
{
    for (int i = 0; i < GK_CANCEL_SLOTS; i++) {
        char *p = slots[i];
        if (p && !strcmp(p, name))
            slots[i] = NULL; /* not freed: see slots */
    }
}

void gk_cancel_watch(const char *name)
{
    if (name)
        for_each_name(name, watch_one);
}

void gk_cancel_forget(const char *name)
{
    if (name)
        for_each_name(name, forget_one);
}

void gk_cancel_hold(void) { held = 1; }

void gk_cancel_release(void)
{
    held = 0;
    int sig = pending;
    if (sig) {
        unlink_watched();
        signal(sig, SIG_DFL);
        raise(sig);
    }
}
