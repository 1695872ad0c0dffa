// SPDX-License-Identifier: GPL-2.0
/*
 * /proc/causalprof: status, experiment and progress views, and control,
 * the text interface that drives a session as netlink requests do.
 */

#include "causal.h"
#include "events.h"
#include "proc.h"
#include "progress.h"
#include "request.h"
#include "session.h"
#include "stats.h"

#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/fs.h>
#include <linux/init.h>
#include <linux/kernel.h>
#include <linux/netlink.h>
#include <linux/pid.h>
#include <linux/pid_namespace.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/proc_fs.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/user_namespace.h>

#include <causalprof/tables.h>

/* Longest command accepted by one write to control. */
#define CONTROL_MAX_WRITE	4096

static struct proc_dir_entry *proc_dir;

/*
 * The files are world-readable. A reader whose opener has CAP_PERFMON or
 * CAP_SYS_ADMIN, who may sample any process anyway, sees everything; any
 * other sees states and counters, but not where a process's code lies,
 * which threads it has, nor which files are probed where. Pids are in the
 * reader's pid namespace, and those it does not see are left out (0 in
 * status, as pid_vnr() has it).
 */
static bool privileged(struct seq_file *m)
{
	return file_ns_capable(m->file, &init_user_ns, CAP_PERFMON) ||
	       file_ns_capable(m->file, &init_user_ns, CAP_SYS_ADMIN);
}

static int status_show(struct seq_file *m, void *v)
{
	struct cp_status st;
	int i, ret;

	ret = cp_session_status(&st);
	if (ret)
		return ret;

	seq_puts(m, "version: " CAUSALPROF_VERSION "\n");
	seq_printf(m, "state: %s\n", cp_state_name(st.state));
	seq_printf(m, "session_id: %llu\n", st.id);
	if (st.has_target)
		seq_printf(m, "target_pid: %u\n", st.target_pid);
	else
		seq_puts(m, "target_pid: -\n");
	if (st.state == CAUSALPROF_STATE_IDLE)
		seq_puts(m, "owner: -\n");
	else
		seq_printf(m, "owner: %s\n",
			   st.owner == CAUSALPROF_OWNER_NETLINK ? "netlink" : "proc");
	for_each_cp_stat(i)
		seq_printf(m, "%s: %llu\n", cp_stat_name(i), cp_stat_read(i));
	return 0;
}

/*
 * /proc/causalprof/experiment: the experiment's summary at position 0,
 * built under the session lock (taken interruptibly), then one line per
 * thread of the task table, for privileged readers only, read without the
 * lock: however large the table, no reader holds up control, and each
 * read() walks only as far as its buffer fills.
 */
#define EXP_SUMMARY	((void *)1)

static void *experiment_seek(struct seq_file *m, loff_t *pos)
{
	loff_t i;
	void *slot;

	if (!*pos)
		return EXP_SUMMARY;
	if (!privileged(m) || fatal_signal_pending(current))
		return NULL;
	i = *pos - 1;
	slot = cp_causal_task_seek(&i);
	*pos = i + 1;
	return slot;
}

static void *experiment_start(struct seq_file *m, loff_t *pos)
{
	return experiment_seek(m, pos);
}

static void *experiment_next(struct seq_file *m, void *v, loff_t *pos)
{
	++*pos;
	return experiment_seek(m, pos);
}

static void experiment_stop(struct seq_file *m, void *v)
{
}

static int experiment_show(struct seq_file *m, void *v)
{
	struct pid_namespace *ns = task_active_pid_ns(current);

	if (v == EXP_SUMMARY)
		return cp_session_experiment_show(m, privileged(m), ns);
	cp_causal_show_task(m, v, ns);
	return 0;
}

static const struct seq_operations experiment_seq_ops = {
	.start	= experiment_start,
	.next	= experiment_next,
	.stop	= experiment_stop,
	.show	= experiment_show,
};

static int progress_show(struct seq_file *m, void *v)
{
	cp_progress_show(m, privileged(m));
	return 0;
}

/* "start" without event=: cpu-clock, at this rate unless freq= or period= say otherwise. */

/* What the keys of one "start" command said. */
struct start_args {
	struct cp_config *cfg;
	bool events, rate, callchain, inherit;	/* the key was given */
	u32 freq;
	u64 period;
};

/*
 * Keys of "start". A parser gets the text after '=', or NULL when the key
 * came without one, and rejects repeats itself.
 */
struct start_key {
	const char *name;
	int (*parse)(struct start_args *args, char *val);
};

static int parse_pid(struct start_args *args, char *val)
{
	u32 pid;

	if (!val || args->cfg->target_pid || kstrtou32(val, 10, &pid) || !pid)
		return -EINVAL;
	args->cfg->target_pid = pid;
	return 0;
}

static int parse_system_wide(struct start_args *args, char *val)
{
	if (val || (args->cfg->flags & CAUSALPROF_F_SYSTEM_WIDE))
		return -EINVAL;
	args->cfg->flags |= CAUSALPROF_F_SYSTEM_WIDE;
	return 0;
}

/* NAME[,NAME...], spelled as cprof -e spells them. */
static int parse_event(struct start_args *args, char *val)
{
	struct cp_config *cfg = args->cfg;
	char *name;

	if (!val || args->events)
		return -EINVAL;
	args->events = true;
	while ((name = strsep(&val, ","))) {
		if (cfg->nr_events == CAUSALPROF_MAX_EVENTS ||
		    cp_event_parse(name, &cfg->events[cfg->nr_events]))
			return -EINVAL;
		cfg->nr_events++;
	}
	return 0;
}

static int parse_freq(struct start_args *args, char *val)
{
	if (!val || args->rate || kstrtou32(val, 10, &args->freq) || !args->freq)
		return -EINVAL;
	args->rate = true;
	return 0;
}

static int parse_period(struct start_args *args, char *val)
{
	if (!val || args->rate || kstrtou64(val, 10, &args->period) || !args->period)
		return -EINVAL;
	args->rate = true;
	return 0;
}

/* Exactly "0" or "1". */
static int parse_bool(char *val, bool *given, bool *on)
{
	if (!val || *given || (strcmp(val, "0") && strcmp(val, "1")))
		return -EINVAL;
	*given = true;
	*on = val[0] == '1';
	return 0;
}

static int parse_callchain(struct start_args *args, char *val)
{
	bool on;

	if (parse_bool(val, &args->callchain, &on))
		return -EINVAL;
	if (!on)
		args->cfg->flags &= ~(CAUSALPROF_F_USER_STACK | CAUSALPROF_F_KERNEL_STACK);
	return 0;
}

static int parse_inherit(struct start_args *args, char *val)
{
	bool on;

	if (parse_bool(val, &args->inherit, &on))
		return -EINVAL;
	if (!on)
		args->cfg->flags |= CAUSALPROF_F_NO_INHERIT;
	return 0;
}

static const struct start_key start_keys[] = {
	{ "pid",		parse_pid },
	{ "system-wide",	parse_system_wide },
	{ "event",		parse_event },
	{ "freq",		parse_freq },
	{ "period",		parse_period },
	{ "callchain",		parse_callchain },
	{ "inherit",		parse_inherit },
};

/* The defaults for what the keys left out, and the rate for every event. */
static void start_defaults(struct start_args *args)
{
	struct cp_config *cfg = args->cfg;
	unsigned int i;

	if (!args->events) {
		cp_event_parse("cpu-clock", &cfg->events[0]);
		cfg->nr_events = 1;
	}
	if (!args->rate)
		args->freq = CAUSALPROF_DEFAULT_FREQ;
	for (i = 0; i < cfg->nr_events; i++) {
		cfg->events[i].freq = args->freq;
		cfg->events[i].period = args->period;
	}
}

static char *next_token(char **args)
{
	char *tok;

	do
		tok = strsep(args, " \t\n");
	while (tok && !*tok);
	return tok;
}

static int parse_start_key(struct start_args *args, char *tok,
			   struct netlink_ext_ack *extack)
{
	char *val = strchr(tok, '=');
	unsigned int i;

	if (val)
		*val++ = '\0';
	for (i = 0; i < ARRAY_SIZE(start_keys); i++) {
		if (strcmp(tok, start_keys[i].name))
			continue;
		if (start_keys[i].parse(args, val)) {
			NL_SET_ERR_MSG(extack, "start: a bad or repeated key");
			return -EINVAL;
		}
		return 0;
	}
	NL_SET_ERR_MSG(extack, "start: an unknown key");
	return -EINVAL;
}

/*
 * The text, parsed into the struct cp_config a netlink START fills, which
 * cp_session_start() checks the same for both.
 */
static int control_start(struct file *file, char *args, struct netlink_ext_ack *extack)
{
	struct start_args sa = {};
	struct cp_config *cfg;
	char *tok;
	u64 id;
	int ret;

	cfg = kzalloc(sizeof(*cfg), GFP_KERNEL);
	if (!cfg)
		return -ENOMEM;
	cfg->flags = CAUSALPROF_F_USER_STACK | CAUSALPROF_F_KERNEL_STACK;
	sa.cfg = cfg;

	while ((tok = next_token(&args))) {
		ret = parse_start_key(&sa, tok, extack);
		if (ret)
			goto out;
	}
	start_defaults(&sa);
	ret = cp_session_start(cfg, extack, &id);
	if (!ret) {
		cp_session_started(id);
		pr_debug("control: started session %llu\n", id);
	}
out:
	kfree(cfg);
	return ret;
}

static int control_stop(struct file *file, char *args, struct netlink_ext_ack *extack)
{
	bool admin;

	if (next_token(&args)) {
		NL_SET_ERR_MSG(extack, "stop takes no arguments");
		return -EINVAL;
	}
	/* Like the check at open, judge the opener, not the writer. */
	admin = file_ns_capable(file, &init_user_ns, CAP_SYS_ADMIN);
	return cp_session_stop(NULL, admin, extack);
}

/*
 * PID:START-END, PID in the writer's pid namespace, addresses C-style,
 * checked as a netlink CAUSALPROF_EXP_A_RANGE is.
 */
static int parse_range(char *val, struct cp_range *r, struct netlink_ext_ack *extack)
{
	static const struct cp_range_attrs no_attrs;
	char *pid = strsep(&val, ":"), *start = strsep(&val, "-");
	u64 first, end;
	u32 nr;

	if (!val || kstrtou32(pid, 10, &nr) || kstrtou64(start, 0, &first) ||
	    kstrtou64(val, 0, &end)) {
		NL_SET_ERR_MSG(extack, "experiment: a range is PID:START-END");
		return -EINVAL;
	}
	return cp_request_range(nr, first, end, r, &no_attrs, extack);
}

static int parse_ranges(char *val, struct cp_range *ranges, unsigned int *nr,
			struct netlink_ext_ack *extack)
{
	char *one;
	int ret;

	while ((one = strsep(&val, ","))) {
		ret = cp_request_nr_ranges(*nr, NULL, extack);
		if (!ret)
			ret = parse_range(one, &ranges[*nr], extack);
		if (ret)
			return ret;
		(*nr)++;
	}
	return 0;
}

/*
 * "start speedup=PERMILLE range=PID:START-END[,...]" or "stop", checked
 * as a netlink EXPERIMENT_START is.
 */
static int control_experiment(struct file *file, char *args, struct netlink_ext_ack *extack)
{
	struct cp_range *ranges;
	char *verb = next_token(&args), *tok, *val;
	unsigned int nr = 0;
	bool speedup_set = false;
	u32 speedup = 0;
	int ret;

	if (verb && !strcmp(verb, "stop")) {
		if (next_token(&args)) {
			NL_SET_ERR_MSG(extack, "experiment stop takes no arguments");
			return -EINVAL;
		}
		return cp_session_experiment_stop(NULL, extack);
	}
	if (!verb || strcmp(verb, "start")) {
		NL_SET_ERR_MSG(extack, "experiment: start or stop");
		return -EINVAL;
	}

	ranges = kcalloc(CP_MAX_RANGES, sizeof(*ranges), GFP_KERNEL);
	if (!ranges)
		return -ENOMEM;
	while ((tok = next_token(&args))) {
		val = strchr(tok, '=');
		if (val)
			*val++ = '\0';
		if (val && !strcmp(tok, "speedup") && !speedup_set) {
			ret = kstrtou32(val, 10, &speedup) ? -EINVAL : 0;
			if (ret) {
				NL_SET_ERR_MSG(extack, "experiment: speedup is a number");
				goto out;
			}
			ret = cp_request_speedup(speedup, NULL, extack);
			if (ret)
				goto out;
			speedup_set = true;
		} else if (val && !strcmp(tok, "range")) {
			ret = parse_ranges(val, ranges, &nr, extack);
			if (ret)
				goto out;
		} else {
			NL_SET_ERR_MSG(extack, "experiment: an unknown or repeated key");
			ret = -EINVAL;
			goto out;
		}
	}
	ret = -EINVAL;
	if (!speedup_set)
		NL_SET_ERR_MSG(extack, "CAUSALPROF_EXP_A_SPEEDUP is missing");
	else if (!nr)
		NL_SET_ERR_MSG(extack, "no CAUSALPROF_EXP_A_RANGE: nothing selected");
	else
		ret = cp_session_experiment_start(NULL, speedup, ranges, nr, extack);
out:
	kfree(ranges);
	return ret;
}

/* What the keys of one "progress add" command said. */
struct progress_args {
	bool id_set, kind_set, offset_set, end_set, visit_set, end_visit_set;
	u32 id, kind, visit, end_visit;
	char *path;
	u64 offset, end;
};

static int parse_progress_key(struct progress_args *pa, char *tok)
{
	char *val = strchr(tok, '=');

	if (!val)
		return -EINVAL;
	*val++ = '\0';
	if (!strcmp(tok, "id") && !pa->id_set) {
		pa->id_set = true;
		return kstrtou32(val, 0, &pa->id);
	}
	if (!strcmp(tok, "kind") && !pa->kind_set) {
		pa->kind_set = true;
		if (!strcmp(val, "throughput"))
			pa->kind = CAUSALPROF_PP_THROUGHPUT;
		else if (!strcmp(val, "latency"))
			pa->kind = CAUSALPROF_PP_LATENCY;
		else
			return -EINVAL;
		return 0;
	}
	if (!strcmp(tok, "path") && !pa->path && *val) {
		pa->path = val;
		return 0;
	}
	if (!strcmp(tok, "offset") && !pa->offset_set) {
		pa->offset_set = true;
		return kstrtou64(val, 0, &pa->offset);
	}
	if (!strcmp(tok, "end") && !pa->end_set) {
		pa->end_set = true;
		return kstrtou64(val, 0, &pa->end);
	}
	if (!strcmp(tok, "visit_ns") && !pa->visit_set) {
		pa->visit_set = true;
		return kstrtou32(val, 0, &pa->visit) ?:
		       (pa->visit > CAUSALPROF_MAX_VISIT_NS ? -ERANGE : 0);
	}
	if (!strcmp(tok, "end_visit_ns") && !pa->end_visit_set) {
		pa->end_visit_set = true;
		return kstrtou32(val, 0, &pa->end_visit) ?:
		       (pa->end_visit > CAUSALPROF_MAX_VISIT_NS ? -ERANGE : 0);
	}
	return -EINVAL;
}

/*
 * One site per probe here (netlink's CAUSALPROF_PP_A_SITES has no text form):
 * "add id=N kind=throughput path=/FILE offset=OFF [visit_ns=NS]",
 * "add id=N kind=latency path=/FILE offset=OFF end=OFF [visit_ns=NS]
 * [end_visit_ns=NS]" or "del id=N",
 * checked as a netlink PROGRESS_ADD or PROGRESS_DEL is.
 */
static int control_progress(struct file *file, char *args, struct netlink_ext_ack *extack)
{
	static const struct cp_progress_attrs no_attrs;
	struct progress_args pa = {};
	struct cp_sites begin, end;
	char *verb = next_token(&args), *tok;
	int ret;

	if (!verb || (strcmp(verb, "add") && strcmp(verb, "del"))) {
		NL_SET_ERR_MSG(extack, "progress: add or del");
		return -EINVAL;
	}
	while ((tok = next_token(&args))) {
		if (parse_progress_key(&pa, tok)) {
			NL_SET_ERR_MSG(extack, "progress: an unknown, repeated or bad key");
			return -EINVAL;
		}
	}
	if (!pa.id_set) {
		NL_SET_ERR_MSG(extack, "CAUSALPROF_PP_A_ID is missing");
		return -EINVAL;
	}

	if (!strcmp(verb, "del")) {
		if (pa.kind_set || pa.path || pa.offset_set || pa.end_set || pa.visit_set ||
		    pa.end_visit_set) {
			NL_SET_ERR_MSG(extack, "progress del takes only id=");
			return -EINVAL;
		}
		return cp_session_progress_del(NULL, pa.id, extack);
	}
	if (!pa.kind_set || !pa.path || !pa.offset_set) {
		NL_SET_ERR_MSG(extack,
			       "a progress point needs CAUSALPROF_PP_A_ID, _KIND, _PATH and _OFFSET");
		return -EINVAL;
	}
	ret = cp_request_progress(pa.kind, pa.end_set, pa.end_visit_set, &no_attrs, extack);
	if (ret)
		return ret;
	begin = (struct cp_sites){ &pa.offset, 1 };
	end = (struct cp_sites){ &pa.end, pa.end_set };
	return cp_session_progress_add(NULL, pa.id, pa.kind, pa.path, &begin, &end,
				       pa.visit, pa.end_visit, extack);
}

static const struct {
	const char *name;
	int (*run)(struct file *file, char *args, struct netlink_ext_ack *extack);
} control_cmds[] = {
	{ "start",	control_start },
	{ "stop",	control_stop },
	{ "experiment",	control_experiment },
	{ "progress",	control_progress },
};

static int control_run(struct file *file, char *buf, struct netlink_ext_ack *extack)
{
	char *verb = next_token(&buf);
	unsigned int i;

	if (!verb) {
		NL_SET_ERR_MSG(extack, "empty command");
		return -EINVAL;
	}
	for (i = 0; i < ARRAY_SIZE(control_cmds); i++)
		if (!strcmp(verb, control_cmds[i].name))
			return control_cmds[i].run(file, buf, extack);
	NL_SET_ERR_MSG(extack, "unknown command");
	return -EINVAL;
}

/*
 * The reason a write failed, as a netlink caller finds it in its extack:
 * the checks are the same. The message is one of the module's own
 * strings, never the writer's text.
 */
static void control_error(const struct netlink_ext_ack *extack, int ret)
{
	pr_info_ratelimited("control: %s (%d)\n", extack->_msg ?: "failed", ret);
}

static ssize_t control_write(struct file *file, const char __user *ubuf, size_t len,
			     loff_t *ppos)
{
	struct netlink_ext_ack extack = {};
	const struct cred *old;
	char *buf;
	int ret;

	if (!len || len > CONTROL_MAX_WRITE) {
		NL_SET_ERR_MSG(&extack, "a command is 1 to 4096 bytes");
		ret = -EINVAL;
		goto out;
	}
	buf = memdup_user_nul(ubuf, len);
	if (IS_ERR(buf))
		return PTR_ERR(buf);

	if (strlen(buf) != len) {
		NL_SET_ERR_MSG(&extack, "a NUL byte in the command");
		ret = -EINVAL;
	} else {
		/*
		 * As the check at open, everything a command does is judged
		 * by the opener's credentials, not the writer's: who owns a
		 * session, who may change a process, which files a path finds.
		 */
		old = override_creds(file->f_cred);
		ret = control_run(file, buf, &extack);
		revert_creds(old);
	}
	kfree(buf);
out:
	if (ret) {
		control_error(&extack, ret);
		return ret;
	}
	return len;
}

/* control is 0666 on purpose: who may write is decided here, at open. */
static int control_open(struct inode *inode, struct file *file)
{
	if ((file->f_mode & FMODE_WRITE) && !perfmon_capable())
		return -EPERM;
	return nonseekable_open(inode, file);
}

static const struct proc_ops control_ops = {
	.proc_open	= control_open,
	.proc_write	= control_write,
};

int __init cp_proc_init(void)
{
	proc_dir = proc_mkdir("causalprof", NULL);
	if (!proc_dir)
		return -ENOMEM;
	if (!proc_create_single("status", 0444, proc_dir, status_show) ||
	    !proc_create("control", 0666, proc_dir, &control_ops) ||
	    !proc_create_seq("experiment", 0444, proc_dir, &experiment_seq_ops) ||
	    !proc_create_single("progress", 0444, proc_dir, progress_show)) {
		proc_remove(proc_dir);
		return -ENOMEM;
	}
	return 0;
}

/* Waits for readers and writers still inside the files. */
void cp_proc_uninit(void)
{
	proc_remove(proc_dir);
}
