/* SPDX-License-Identifier: MIT */
/*
 * core/big_alloc.h - malloc for the large arrays a job's set-up fills once on
 * every core (big_alloc.c).
 */
#ifndef GK_BIG_ALLOC_H
#define GK_BIG_ALLOC_H

#include <stddef.h>

/* As malloc (free() releases it); from 2 MiB up, in 2 MiB pages where the
 * kernel gives them. */
void *gk_big_alloc(size_t size);

#endif
