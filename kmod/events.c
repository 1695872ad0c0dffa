// SPDX-License-Identifier: GPL-2.0
/*
 * What a session may sample: the events' validation, their names in the
 * text control file, and the perf_event_attr built from them.
 */

#include "events.h"
#include "shared.h"

#include <linux/cpumask.h>
#include <linux/cred.h>
#include <linux/ctype.h>
#include <linux/err.h>
#include <linux/kernel.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/netlink.h>
#include <linux/perf_event.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/stringify.h>

#include <causalprof/tables.h>

static unsigned int max_freq = CAUSALPROF_MAX_FREQ;
module_param(max_freq, uint, 0644);
MODULE_PARM_DESC(max_freq, "Highest sampling frequency in Hz; higher ones are lowered to it (default "
		 __stringify(CAUSALPROF_MAX_FREQ) ")");

/* The names cprof accepts, and the /proc control file with it. */
static const struct causalprof_named_event names[] = {
	CAUSALPROF_EVENTS(CAUSALPROF_NAMED_EVENT)
};

int cp_event_validate(const struct cp_event *ev, struct netlink_ext_ack *extack)
{
	const char *p;

	switch (ev->type) {
	case PERF_TYPE_HARDWARE:
	case PERF_TYPE_HW_CACHE:
	case PERF_TYPE_RAW:
		break;
	case PERF_TYPE_SOFTWARE:
		if (ev->config == PERF_COUNT_SW_CPU_CLOCK)
			break;
		NL_SET_ERR_MSG(extack, "the only software event is cpu-clock");
		return -EINVAL;
	default:
		NL_SET_ERR_MSG(extack, "event type must be hardware, software, hw-cache or raw");
		return -EINVAL;
	}
	if (!ev->period == !ev->freq) {
		NL_SET_ERR_MSG(extack, "an event needs exactly one of period and freq");
		return -EINVAL;
	}
	if (ev->period >> 63) {
		NL_SET_ERR_MSG(extack, "event period is 2^63 or more");
		return -EINVAL;
	}
	/*
	 * It is printed: in messages, the kernel log. ASCII only: isprint()
	 * takes 0xa0-0xff for Latin-1.
	 */
	for (p = ev->name; *p; p++) {
		if ((unsigned char)*p < 0x20 || (unsigned char)*p > 0x7e) {
			NL_SET_ERR_MSG(extack, "event name: printable ASCII characters only");
			return -EINVAL;
		}
	}
	return 0;
}

/*
 * Each event valid. The same event may be given twice (cprof refuses
 * that, the module need not): two cpu-clock events at different rates are
 * how several events are tested on machines without a PMU.
 */
int cp_events_validate(const struct cp_event *evs, unsigned int nr,
		       struct netlink_ext_ack *extack)
{
	unsigned int i;
	int ret;

	if (nr > CAUSALPROF_MAX_EVENTS) {
		NL_SET_ERR_MSG(extack, "too many events");
		return -EINVAL;
	}
	for (i = 0; i < nr; i++) {
		ret = cp_event_validate(&evs[i], extack);
		if (ret)
			return ret;
	}
	return 0;
}

/* rNNNN: 1 to 16 hex digits, the raw config as perf spells it. */
static int parse_raw(const char *hex, u64 *config)
{
	size_t len = strlen(hex), i;

	if (!len || len > 16)
		return -EINVAL;
	for (i = 0; i < len; i++)
		if (!isxdigit(hex[i]))
			return -EINVAL;
	return kstrtou64(hex, 16, config);
}

/* An event by name; sets type, config and name, not period nor freq. */
int cp_event_parse(const char *name, struct cp_event *ev)
{
	unsigned int i;

	if (strscpy(ev->name, name, sizeof(ev->name)) < 0)
		return -EINVAL;
	for (i = 0; i < ARRAY_SIZE(names); i++) {
		if (!strcmp(name, names[i].name)) {
			ev->type = names[i].type;
			ev->config = names[i].config;
			return 0;
		}
	}
	if (name[0] == 'r' && !parse_raw(name + 1, &ev->config)) {
		ev->type = PERF_TYPE_RAW;
		return 0;
	}
	return -EINVAL;
}

/* For messages: the user's spelling, else our own name for the event. */
static const char *event_name(const struct cp_event *ev)
{
	unsigned int i;

	if (ev->name[0])
		return ev->name;
	for (i = 0; i < ARRAY_SIZE(names); i++)
		if (names[i].type == ev->type && names[i].config == ev->config)
			return names[i].name;
	return "event";
}

static u32 clamped_freq(const struct cp_event *ev)
{
	return min(ev->freq, max(READ_ONCE(max_freq), 1U));
}

void cp_event_attr(const struct cp_event *ev, struct perf_event_attr *attr)
{
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = ev->type;
	attr->config = ev->config;
	if (ev->freq) {
		attr->freq = 1;
		attr->sample_freq = clamped_freq(ev);
	} else {
		attr->sample_period = ev->period;
	}
}

/*
 * An extack message must outlive the request's handler: netlink copies it
 * into the ack after the handler returns, by which time other requests may
 * have failed. 6.2 gave the extack a buffer for a formatted one
 * (NL_SET_ERR_MSG_FMT), of 80 bytes: too short for an event's name (up to
 * 63) and the reason. So a message, once made, never changes: each distinct
 * one is kept until the module goes, up to MSG_MAX of them (they differ by
 * the events' names the profilers use); past that, a request gets the
 * reason alone, a constant string.
 */
#define MSG_MAX		256
#define MSG_LEN		128
static DEFINE_MUTEX(msgs_lock);
static const char *msgs[MSG_MAX];
static unsigned int nr_msgs;

/* text's kept copy, or NULL when there is no room for one. */
static const char *intern(const char *text)
{
	const char *msg = NULL;
	unsigned int i;

	mutex_lock(&msgs_lock);
	for (i = 0; i < nr_msgs && !msg; i++)
		if (!strcmp(msgs[i], text))
			msg = msgs[i];
	if (!msg && nr_msgs < MSG_MAX) {
		msg = kstrdup(text, GFP_KERNEL);
		if (msg)
			msgs[nr_msgs++] = msg;
	}
	mutex_unlock(&msgs_lock);
	return msg;
}

/* At unload, once no request runs. */
void cp_events_uninit(void)
{
	while (nr_msgs)
		kfree(msgs[--nr_msgs]);
}

/*
 * A counter of attr on some online CPU, or the error creating one. Like
 * the session's own counters, which the CPU hotplug threads create, it is
 * created with the kernel's credentials: perf's checks for CPU-wide events
 * (perf_event_paranoid) are meant for perf_event_open(), and who may start
 * a session was decided before (a /proc writer may lack the opener's
 * capabilities).
 */
static struct perf_event *create_on_any_cpu(struct perf_event_attr *attr)
{
	struct perf_event *ev = ERR_PTR(-ENODEV);
	const struct cred *old;
	struct cred *cred;
	int cpu;

	cred = prepare_kernel_cred(&init_task);
	if (!cred)
		return ERR_PTR(-ENOMEM);
	old = override_creds(cred);
	/* -ENODEV: the CPU went offline meanwhile. */
	for_each_online_cpu(cpu) {
		ev = perf_event_create_kernel_counter(attr, cpu, NULL, NULL, NULL);
		if (PTR_ERR(ev) != -ENODEV)
			break;
	}
	revert_creds(old);
	put_cred(cred);
	return ev;
}

/* No PMU counts anything when not even a raw event can be counted. */
static bool have_pmu(void)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_RAW,
		.size = sizeof(attr),
		.disabled = 1,
	};
	struct perf_event *ev = create_on_any_cpu(&attr);

	if (IS_ERR(ev))
		return PTR_ERR(ev) != -ENOENT;
	perf_event_release_kernel(ev);
	return true;
}

/* Fails the start with "cycles: no hardware PMU (ENOENT); try -e cpu-clock". */
void cp_event_error(const struct cp_event *ev, unsigned int index, int err,
		    struct netlink_ext_ack *extack)
{
	char errname[32], text[MSG_LEN];
	const char *why, *hint = "";

	switch (err) {
	case -ENOENT:
		why = ev->type != PERF_TYPE_SOFTWARE && !have_pmu() ? "no hardware PMU" :
			"not supported by this CPU";
		break;
	case -EOPNOTSUPP:
		why = "the PMU cannot sample it";
		break;
	case -EINVAL:
		why = "invalid on this PMU";
		break;
	case -EBUSY:
	case -ENOSPC:
		why = "no free counter";
		break;
	case -EACCES:
	case -EPERM:
		why = "not permitted";
		break;
	default:
		why = "cannot be sampled";
		break;
	}
	if (ev->type != PERF_TYPE_SOFTWARE)
		hint = "; try -e cpu-clock";
	snprintf(errname, sizeof(errname), "%pe", ERR_PTR(err));
	snprintf(text, sizeof(text), "%s: %s (%s)%s", event_name(ev), why,
		 errname[0] == '-' ? errname + 1 : errname, hint);
	pr_debug("event %u: %s\n", index, text);
	if (extack)
		extack->_msg = intern(text) ?: why;
}

/*
 * Before the session changes anything, one disabled counter of every event
 * on one CPU: most reasons an event cannot be sampled (no PMU, an event it
 * does not know, one it cannot sample) show here, and the start fails
 * before anything was streamed.
 */
int cp_events_probe(const struct cp_config *cfg, struct netlink_ext_ack *extack)
{
	struct perf_event_attr attr;
	struct perf_event *ev;
	unsigned int i;

	for (i = 0; i < cfg->nr_events; i++) {
		cp_event_attr(&cfg->events[i], &attr);
		attr.disabled = 1;
		ev = create_on_any_cpu(&attr);
		if (IS_ERR(ev)) {
			cp_event_error(&cfg->events[i], i, PTR_ERR(ev), extack);
			return PTR_ERR(ev);
		}
		perf_event_release_kernel(ev);
	}
	for (i = 0; i < cfg->nr_events; i++)
		if (cfg->events[i].freq > clamped_freq(&cfg->events[i]))
			pr_info_ratelimited("%s: %u Hz is above max_freq, sampling at %u Hz\n",
					    event_name(&cfg->events[i]), cfg->events[i].freq,
					    clamped_freq(&cfg->events[i]));
	return 0;
}
