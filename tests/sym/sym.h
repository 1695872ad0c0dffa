/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SYM_H
#define SYM_H

/*
 * symtarget and its library: code built with -O2 -g whose addresses the
 * symbolizer tests name. A probe gets the line it is called from and the
 * line its caller was called from (both in inlined code), and the return
 * address of that call.
 */

typedef void (*sym_probe_fn)(int line, int call_line);

void lib_outer(sym_probe_fn probe);
unsigned long lib_spin(unsigned long n);

#endif
