/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where the test programs find what the build put next to them; apart from
 * helpers.h for the report tests, whose cprof headers reuse its names.
 */
#ifndef CP_HELPERS_PATH_H
#define CP_HELPERS_PATH_H

#include <stddef.h>

/* build/tests/REL, next to the running test program, checked executable (target.c). */
int cp_build_path(const char *rel, char *path, size_t size);

#endif /* CP_HELPERS_PATH_H */
