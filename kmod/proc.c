// SPDX-License-Identifier: GPL-2.0

#include "proc.h"
#include "session.h"
#include "stats.h"
#include "version.h"

#include <linux/capability.h>
#include <linux/fs.h>
#include <linux/init.h>
#include <linux/kernel.h>
#include <linux/netlink.h>
#include <linux/proc_fs.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/user_namespace.h>

/* Longest command accepted by one write to control. */
#define CONTROL_MAX_WRITE	4096

static struct proc_dir_entry *proc_dir;

static int status_show(struct seq_file *m, void *v)
{
	struct cp_status st;
	int i;

	causalprof_session_status(&st);

	seq_puts(m, "version: " CAUSALPROF_VERSION "\n");
	seq_printf(m, "state: %s\n", causalprof_state_name(st.state));
	seq_printf(m, "session_id: %llu\n", st.id);
	if (st.has_target)
		seq_printf(m, "target_pid: %u\n", st.target_pid);
	else
		seq_puts(m, "target_pid: -\n");
	if (st.has_owner)
		seq_printf(m, "owner_portid: %u\n", st.owner_portid);
	else
		seq_puts(m, "owner_portid: -\n");
	for_each_causalprof_stat(i)
		seq_printf(m, "%s: %llu\n", causalprof_stat_name(i), causalprof_stat_read(i));
	return 0;
}

static int status_open(struct inode *inode, struct file *file)
{
	return single_open(file, status_show, NULL);
}

static const struct proc_ops status_ops = {
	.proc_open	= status_open,
	.proc_read	= seq_read,
	.proc_lseek	= seq_lseek,
	.proc_release	= single_release,
};

/*
 * Keys of "start". A parser gets the text after '=', or NULL when the key
 * came without one, and rejects repeats itself.
 */
struct start_key {
	const char *name;
	int (*parse)(struct cp_config *cfg, const char *val);
};

static int parse_pid(struct cp_config *cfg, const char *val)
{
	u32 pid;

	if (!val || cfg->target_pid || kstrtou32(val, 10, &pid) || !pid)
		return -EINVAL;
	cfg->target_pid = pid;
	return 0;
}

static int parse_system_wide(struct cp_config *cfg, const char *val)
{
	if (val || (cfg->flags & CAUSALPROF_F_SYSTEM_WIDE))
		return -EINVAL;
	cfg->flags |= CAUSALPROF_F_SYSTEM_WIDE;
	return 0;
}

static const struct start_key start_keys[] = {
	{ "pid",		parse_pid },
	{ "system-wide",	parse_system_wide },
};

static char *next_token(char **args)
{
	char *tok;

	do
		tok = strsep(args, " \t\n");
	while (tok && !*tok);
	return tok;
}

static int parse_start_key(struct cp_config *cfg, char *tok)
{
	char *val = strchr(tok, '=');
	unsigned int i;

	if (val)
		*val++ = '\0';
	for (i = 0; i < ARRAY_SIZE(start_keys); i++) {
		if (strcmp(tok, start_keys[i].name))
			continue;
		if (start_keys[i].parse(cfg, val)) {
			pr_debug("control: bad or repeated %s\n", tok);
			return -EINVAL;
		}
		return 0;
	}
	pr_debug("control: unknown key '%.32s'\n", tok);
	return -EINVAL;
}

static int control_start(struct file *file, char *args)
{
	struct netlink_ext_ack extack = {};
	struct cp_config *cfg;
	char *tok;
	u64 id;
	int ret;

	cfg = kzalloc(sizeof(*cfg), GFP_KERNEL);
	if (!cfg)
		return -ENOMEM;

	while ((tok = next_token(&args))) {
		ret = parse_start_key(cfg, tok);
		if (ret)
			goto out;
	}
	ret = causalprof_session_start(cfg, &extack, &id);
	if (ret)
		pr_debug("control: start: %s (%d)\n", extack._msg ?: "failed", ret);
	else
		pr_debug("control: started session %llu\n", id);
out:
	kfree(cfg);
	return ret;
}

static int control_stop(struct file *file, char *args)
{
	struct netlink_ext_ack extack = {};
	bool admin;
	int ret;

	if (next_token(&args)) {
		pr_debug("control: stop takes no arguments\n");
		return -EINVAL;
	}
	/* Like the check at open, judge the opener, not the writer. */
	admin = file_ns_capable(file, &init_user_ns, CAP_SYS_ADMIN);
	ret = causalprof_session_stop(NULL, admin, &extack);
	if (ret)
		pr_debug("control: stop: %s (%d)\n", extack._msg ?: "failed", ret);
	return ret;
}

static const struct {
	const char *name;
	int (*run)(struct file *file, char *args);
} control_cmds[] = {
	{ "start",	control_start },
	{ "stop",	control_stop },
};

static int control_run(struct file *file, char *buf)
{
	char *verb = next_token(&buf);
	unsigned int i;

	if (!verb) {
		pr_debug("control: empty command\n");
		return -EINVAL;
	}
	for (i = 0; i < ARRAY_SIZE(control_cmds); i++)
		if (!strcmp(verb, control_cmds[i].name))
			return control_cmds[i].run(file, buf);
	pr_debug("control: unknown command '%.32s'\n", verb);
	return -EINVAL;
}

static ssize_t control_write(struct file *file, const char __user *ubuf, size_t len,
			     loff_t *ppos)
{
	char *buf;
	int ret;

	if (!len || len > CONTROL_MAX_WRITE) {
		pr_debug("control: write of %zu bytes rejected\n", len);
		return -EINVAL;
	}
	buf = memdup_user_nul(ubuf, len);
	if (IS_ERR(buf))
		return PTR_ERR(buf);

	if (strlen(buf) != len) {
		pr_debug("control: NUL byte in command\n");
		ret = -EINVAL;
	} else {
		ret = control_run(file, buf);
	}
	kfree(buf);
	if (ret)
		return ret;
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
	.proc_lseek	= no_llseek,
};

int __init causalprof_proc_init(void)
{
	proc_dir = proc_mkdir("causalprof", NULL);
	if (!proc_dir)
		return -ENOMEM;
	if (!proc_create("status", 0444, proc_dir, &status_ops) ||
	    !proc_create("control", 0666, proc_dir, &control_ops)) {
		proc_remove(proc_dir);
		return -ENOMEM;
	}
	return 0;
}

/* Waits for readers and writers still inside the files. */
void causalprof_proc_uninit(void)
{
	proc_remove(proc_dir);
}
