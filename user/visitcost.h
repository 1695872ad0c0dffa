/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a visit of a uprobe progress point costs its thread (visitcost.c).
 */
#ifndef CPROF_VISITCOST_H
#define CPROF_VISITCOST_H

#include <stdbool.h>
#include <stdint.h>

struct cp_visit_cost {
	uint32_t emulated_ns;	/* a site whose instruction the kernel emulates */
	uint32_t stepped_ns;	/* one it steps out of line */
	bool measured;
};

/* Measures both on this machine: 0, or a negative errno (then both 0). */
int cp_visit_cost_measure(struct cp_visit_cost *c);
/*
 * Whether x86's uprobes emulate the instruction at @p (@n bytes readable):
 * nop, call and jmp rel, jcc, push of a register. Anything else is stepped
 * out of line, a second trap.
 */
bool cp_visit_emulated(const unsigned char *p, size_t n);
/* The cost of a visit of the probe at offset in path (0 if not measured). */
uint32_t cp_visit_cost_of(const struct cp_visit_cost *c, const char *path, uint64_t offset);

#endif /* CPROF_VISITCOST_H */
