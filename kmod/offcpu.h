/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Off-CPU waits (CAUSALPROF_F_OFF_CPU): the scheduler hooks of hooks.c
 * call in here when a target thread blocks, is woken and runs again (see
 * offcpu.c).
 */

#ifndef _CAUSALPROF_OFFCPU_H
#define _CAUSALPROF_OFFCPU_H

#include <linux/types.h>

struct cp_config;
struct netlink_ext_ack;
struct task_struct;

int cp_offcpu_start(const struct cp_config *cfg, struct netlink_ext_ack *extack);
void cp_offcpu_stop(void);

/* The hooks' side: sched_switch, sched_waking, sched_process_exit */
void cp_offcpu_switch(struct task_struct *prev, unsigned int prev_state,
		      struct task_struct *next, unsigned long from, unsigned int skip);
void cp_offcpu_wake(struct task_struct *p);
void cp_offcpu_exit(struct task_struct *t);

#endif /* _CAUSALPROF_OFFCPU_H */
