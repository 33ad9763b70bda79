/* SPDX-License-Identifier: MIT */
/*
 * methods.c - the list of gridding methods' rows, made from methods.def (the
 * one place that names them all). A method is a row (core/method.h) defined
 * in its own file; docs/dev/adding-a-method.md walks through adding one.
 */
#include "core/method.h"

#define GK_METHOD(symbol, KIND) extern const gk_method gk_method_##symbol;
#include "methods.def"
#undef GK_METHOD

const gk_method *const gk_methods[] = {
#define GK_METHOD(symbol, KIND) &gk_method_##symbol,
#include "methods.def"
#undef GK_METHOD
};
const int gk_n_methods = (int)(sizeof gk_methods / sizeof gk_methods[0]);
