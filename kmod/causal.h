/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The causal engine's interface: experiments' start and stop, their
 * hooks in the sampler and scheduler, and their views (see causal.c).
 */

#ifndef _CAUSALPROF_CAUSAL_H
#define _CAUSALPROF_CAUSAL_H

#include "access.h"

#include <linux/causalprof.h>
#include <linux/types.h>

struct dentry;
struct pid_namespace;
struct seq_file;
struct task_struct;

#define CP_MAX_RANGES	CAUSALPROF_MAX_RANGES
#define CP_MAX_POINTS	16	/* CP_MAX_PROGRESS */

/* The largest CAUSALPROF_REC_EXPERIMENT record. */
#define CP_EXP_RECORD_MAX	(sizeof(struct causalprof_experiment) + \
				 CP_MAX_RANGES * sizeof(struct causalprof_exp_range) + \
				 CP_MAX_POINTS * (sizeof(struct causalprof_exp_point) + \
						  sizeof(struct causalprof_exp_span)) + \
				 sizeof(struct causalprof_exp_acct) + \
				 sizeof(struct causalprof_exp_visits))

/*
 * Who started an experiment, as far as whom it may delay goes: threads
 * caller may ptrace-attach (its credentials, held by the session until
 * the experiment has stopped), or, with any, every thread.
 */
struct cp_starter {
	struct cp_caller caller;
	bool any;
};

/* Selected code: [start, end) in the address space of process tgid. */
struct cp_range {
	pid_t tgid;
	u64 start, end;
};

int cp_causal_start(u32 speedup, const struct cp_range *ranges, unsigned int nr,
		    const struct cp_starter *starter, u32 *id);
int cp_causal_stop(u16 flags, const struct causalprof_experiment **res);
void cp_causal_point_gone(u32 id);
bool cp_causal_running(void);
u32 cp_causal_live_id(void);
u32 cp_causal_clock(u64 *inserted_ns);
void cp_causal_init(void);
void cp_causal_uninit(void);

/*
 * From the overflow handler, for a target task: user IP and return
 * addresses; user: the sample interrupted user mode.
 */
void cp_causal_sample(u64 period, bool timed, bool user, const u64 *uips, unsigned int nu);
/* From the overflow handler, every tick of the timed event, any task. */
void cp_causal_tick(void);
/* From a progress point's handler: current, a target, paused visit_ns. */
void cp_causal_visit(u32 visit_ns);

/* From the scheduler hooks. */
void cp_causal_fork(struct task_struct *parent, struct task_struct *child);
void cp_causal_wake(struct task_struct *wakee, bool by_target);
void cp_causal_block(struct task_struct *t);
void cp_causal_exit(struct task_struct *t);

/*
 * A goroutine's causal state, carried from the thread that stops running
 * it to the one that runs it next (see causal.c, gohooks.c). Zeroed: none.
 */
#define CP_G_PARKED	1	/* waits: a ready credits the wait */
#define CP_G_RUNNABLE	2	/* in a run queue: owes what is inserted */
#define CP_G_RUNNING	3	/* taken on by the thread running it */

struct cp_gtoken {
	u32 exp;		/* the experiment it belongs to; 0: none */
	u32 state;		/* CP_G_* */
	s64 at;			/* the global delay when it was tagged, ns */
	s64 owes;		/* what it owed then */
	u64 ns;			/* when (ktime_get_mono_fast_ns()) */
};

/* From the Go hooks' handlers, in task context: current's goroutine g. */
void cp_causal_go_stop(struct cp_gtoken *g, bool parked);
void cp_causal_go_ready(struct cp_gtoken *g);
void cp_causal_go_spawn(struct cp_gtoken *g);
void cp_causal_go_run(struct cp_gtoken *g);

void cp_causal_show(struct seq_file *m, bool privileged, struct pid_namespace *ns);
void *cp_causal_task_seek(loff_t *i);
void cp_causal_show_task(struct seq_file *m, void *slot, struct pid_namespace *ns);
void cp_causal_debugfs(struct dentry *parent);

#endif /* _CAUSALPROF_CAUSAL_H */
