// SPDX-License-Identifier: GPL-2.0
/*
 * The session's perf counters, one per event and online CPU, owned by the
 * kernel and following CPU hotplug, and their overflow handler.
 *
 * The handler runs in NMI (hardware PMU events) or in the hrtimer's hard
 * interrupt (cpu-clock), in the context of whichever task the CPU was
 * running. It takes no lock, allocates nothing and never sleeps: it checks
 * that the task is a target, writes one record into its CPU's ring (or,
 * in an aggregated session, counts the sample in its CPU's table: see
 * agg.c), with a Go target's labels (golabels.c), and counts. An NMI
 * that lands while the same CPU's hrtimer handler, or the scheduler hook
 * that ends an off-CPU wait (offcpu.c), is busy finds the CPU's ring and
 * scratch space taken (cp_stream_cpu_get()) and counts its sample as
 * lost, so samples + lost == overflows on every CPU.
 */

#include "agg.h"
#include "causal.h"
#include "events.h"
#include "golabels.h"
#include "ring.h"
#include "sampler.h"
#include "shared.h"
#include "stack.h"
#include "stats.h"
#include "stream.h"
#include "targets.h"

#include <linux/cpuhotplug.h>
#include <linux/netlink.h>
#include <linux/overflow.h>
#include <linux/percpu.h>
#include <linux/perf_event.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/timekeeping.h>

struct scratch {
	unsigned long kstack[CP_KSTACK_SCRATCH];
	u64 ips[2 * CAUSALPROF_MAX_STACK];
	struct cp_go_scratch go;
};

struct cpu_events {
	struct perf_event *ev[CAUSALPROF_MAX_EVENTS];
};

/*
 * Set up before the first counter exists and left alone until the last is
 * released, so the handler reads it without further ado. ctx[i] is the
 * overflow handler context of event i: its address gives the index.
 */
static struct {
	u32 flags;
	unsigned int nr_events;
	struct perf_event_attr attr[CAUSALPROF_MAX_EVENTS];
	u8 ctx[CAUSALPROF_MAX_EVENTS];
	struct cpu_events __percpu *events;
	struct scratch __percpu *scratch;
	int hp_state;
	/* While cpuhp_setup_state() runs: a failure fails the start. */
	bool starting;
	int err;
	unsigned int err_event;
	/* The first cpu-clock or task-clock event: its periods are ns. */
	int timed;
} counters;

/* A SAMPLE record of the stack in the CPU's scratch into ring. */
static bool put_sample(struct cp_ring *ring, const struct cp_agg_sample *a, unsigned long *start,
		       unsigned long *next)
{
	struct causalprof_sample *rec;
	u32 size = struct_size(rec, ips, a->nk + a->nu) + a->labels_size;

	*start = ring->head;
	rec = cp_ring_reserve(ring, size, next);
	if (!rec)
		return false;
	rec->hdr.type = CAUSALPROF_REC_SAMPLE;
	rec->hdr.flags = 0;
	rec->hdr.size = size;
	rec->time_ns = a->time_ns;
	rec->period = a->period;
	rec->pid = a->pid;
	rec->tid = a->tid;
	rec->cpu = a->cpu;
	rec->event = a->event;
	rec->sflags = a->sflags;
	rec->nr_kernel = a->nk;
	rec->nr_user = a->nu;
	memcpy(rec->ips, a->ips, (a->nk + a->nu) * sizeof(u64));
	memcpy(&rec->ips[a->nk + a->nu], a->labels, a->labels_size);
	cp_ring_commit(ring, *next);
	return true;
}

/*
 * Counts the sample (aggregated sessions) or writes its SAMPLE record.
 * Leaves the stack in the CPU's scratch: *nk kernel IPs, then *nu user ones.
 */
static bool record_sample(struct cp_cpu_stats *st, unsigned int index, u64 period,
			  struct pt_regs *regs, u64 now, unsigned int *nkp, unsigned int *nup)
{
	struct scratch *s = this_cpu_ptr(counters.scratch);
	int cpu = smp_processor_id();
	struct cp_ring *ring = cp_stream_cpu_ring(cpu);
	unsigned int nk = 0, nu = 0, kmax, umax, labels;
	unsigned long start = 0, next = 0;
	struct cp_agg_sample a;
	bool truncated = false;

	kmax = counters.flags & CAUSALPROF_F_KERNEL_STACK ? CAUSALPROF_MAX_STACK : 1;
	umax = counters.flags & CAUSALPROF_F_USER_STACK ? CAUSALPROF_MAX_STACK : 1;
	if (!user_mode(regs))
		nk = cp_stack_kernel(regs, s->kstack, s->ips, kmax, &truncated);
	if (user_mode(regs) || (counters.flags & CAUSALPROF_F_USER_STACK))
		nu = cp_stack_user(regs, s->ips + nk, umax, &truncated);
	*nkp = nk;
	*nup = nu;
	labels = cp_golabels_read(&s->go);

	a = (struct cp_agg_sample){
		.ips = s->ips,
		.nk = nk,
		.nu = nu,
		.labels = s->go.block,
		.labels_size = labels,
		.time_ns = now,
		.period = period,
		.pid = current->tgid,
		.tid = current->pid,
		.cpu = cpu,
		.event = index,
		.sflags = (user_mode(regs) ? CAUSALPROF_SAMPLE_F_USER : 0) |
			  (truncated ? CAUSALPROF_SAMPLE_F_TRUNCATED : 0) |
			  (labels ? CAUSALPROF_SAMPLE_F_GO_LABELS : 0),
	};
	if (counters.flags & CAUSALPROF_F_AGGREGATE) {
		switch (cp_agg_sample(ring, &a, &start, &next)) {
		case CP_AGG_COUNTED:
			if (next)
				break;
			return true;
		case CP_AGG_LOST:
			return false;
		case CP_AGG_FULL:
			if (!put_sample(ring, &a, &start, &next))
				return false;
			local64_inc(&st->fallback);
			break;
		}
	} else if (!put_sample(ring, &a, &start, &next)) {
		return false;
	}

	cp_stream_cpu_wrote(ring, start, next);
	return true;
}

static void cp_overflow(struct perf_event *event, struct perf_sample_data *data,
			struct pt_regs *regs)
{
	struct cp_cpu_stats *st = this_cpu_ptr(&cp_cpu_stats);
	const u8 *ctx = event->overflow_handler_context;
	u64 t0 = ktime_get_mono_fast_ns();
	unsigned int index = ctx - counters.ctx, nk = 0, nu = 0;

	if ((int)index == counters.timed)
		cp_causal_tick();
	if (!regs || !cp_target_match(current))
		goto out;
	local64_inc(&st->overflows);
	if (!cp_stream_cpu_get()) {
		local64_inc(&st->lost);
		goto out_put;
	}
	if (record_sample(st, index, data->period, regs, t0, &nk, &nu))
		local64_inc(&st->samples);
	else
		local64_inc(&st->lost);
	cp_causal_sample(data->period, (int)index == counters.timed, user_mode(regs),
			 this_cpu_ptr(counters.scratch)->ips + nk, nu);
out_put:
	cp_stream_cpu_put();
out:
	local64_add(ktime_get_mono_fast_ns() - t0, &st->handler_ns);
}

static void release_cpu(unsigned int cpu)
{
	struct cpu_events *ce = per_cpu_ptr(counters.events, cpu);
	unsigned int i;

	for (i = 0; i < counters.nr_events; i++) {
		if (ce->ev[i])
			perf_event_release_kernel(ce->ev[i]);
		ce->ev[i] = NULL;
	}
}

/* cpuhp: runs on cpu as it comes online, and on every online CPU at start. */
static int online_cpu(unsigned int cpu)
{
	struct cpu_events *ce = per_cpu_ptr(counters.events, cpu);
	struct perf_event *ev;
	unsigned int i;

	for (i = 0; i < counters.nr_events; i++) {
		ev = perf_event_create_kernel_counter(&counters.attr[i], cpu, NULL, cp_overflow,
						      &counters.ctx[i]);
		if (!IS_ERR(ev)) {
			ce->ev[i] = ev;
			continue;
		}
		if (counters.starting) {
			counters.err = PTR_ERR(ev);
			counters.err_event = i;
			release_cpu(cpu);
			return counters.err;
		}
		/* Failing here would fail the hotplug: do without. */
		pr_warn_ratelimited("cpu %u: event %u not sampled: %pe\n", cpu, i, ev);
	}
	return 0;
}

static int offline_cpu(unsigned int cpu)
{
	release_cpu(cpu);
	return 0;
}

int cp_sampler_start(const struct cp_config *cfg, struct netlink_ext_ack *extack)
{
	unsigned int i;
	int ret;

	counters.nr_events = cfg->nr_events;
	if (!counters.nr_events)
		return 0;
	counters.flags = cfg->flags;
	counters.timed = -1;
	for (i = 0; i < counters.nr_events; i++) {
		struct perf_event_attr *a = &counters.attr[i];

		cp_event_attr(&cfg->events[i], a);
		if (counters.timed < 0 && a->type == PERF_TYPE_SOFTWARE &&
		    (a->config == PERF_COUNT_SW_CPU_CLOCK || a->config == PERF_COUNT_SW_TASK_CLOCK))
			counters.timed = i;
	}

	counters.events = alloc_percpu(struct cpu_events);
	counters.scratch = alloc_percpu(struct scratch);
	if (!counters.events || !counters.scratch) {
		NL_SET_ERR_MSG(extack, "out of memory for the counters");
		ret = -ENOMEM;
		goto err_free;
	}

	counters.starting = true;
	counters.err = 0;
	ret = cpuhp_setup_state(CPUHP_AP_ONLINE_DYN, "causalprof:online", online_cpu,
				offline_cpu);
	counters.starting = false;
	if (ret < 0) {
		if (counters.err)
			cp_event_error(&cfg->events[counters.err_event], counters.err_event, ret,
				       extack);
		else
			NL_SET_ERR_MSG(extack, "cannot register for CPU hotplug");
		goto err_free;
	}
	counters.hp_state = ret;
	return 0;

err_free:
	free_percpu(counters.scratch);
	free_percpu(counters.events);
	counters.nr_events = 0;
	return ret;
}

/*
 * Releases every counter. A released counter's handler is not running and
 * never runs again: perf stops the event on its CPU (cancelling the
 * hrtimer, or taking it off the PMU with interrupts disabled) and waits.
 */
void cp_sampler_stop(void)
{
	if (!counters.nr_events)
		return;
	cpuhp_remove_state(counters.hp_state);
	free_percpu(counters.scratch);
	free_percpu(counters.events);
	counters.nr_events = 0;
}
