// SPDX-License-Identifier: GPL-2.0
/*
 * The file a uprobe of the session goes on: a regular file, named without
 * a symbolic link (the file named, not where a link somebody may change
 * points), that the caller may read (what the checks say tells the
 * contents), at offsets inside a segment its ELF program headers mark
 * executable (elfcode.c). Opening and checking read the file, which may
 * take as long as its file system likes: done before the caller takes a
 * lock others wait for.
 *
 * And which address spaces get its breakpoints at registration: a
 * target's that the caller who placed the probe may ptrace-attach.
 */

#include "access.h"
#include "elfcode.h"
#include "probefile.h"
#include "targets.h"

#include <linux/fs.h>
#include <linux/limits.h>
#include <linux/mm_types.h>
#include <linux/namei.h>
#include <linux/netlink.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/string.h>

/*
 * name: absolute. Errors: -EINVAL (a relative path, a symbolic link in
 * it, not a regular file), -ENAMETOOLONG, what the lookup says (-ENOENT),
 * or what the permission check says (-EACCES); the message in extack.
 */
int cp_probefile_open(struct cp_probefile *f, const char *name, const struct cp_caller *c,
		      struct netlink_ext_ack *extack)
{
	int ret;

	f->inode = NULL;
	if (name[0] != '/') {
		NL_SET_ERR_MSG(extack, "the path must be absolute");
		return -EINVAL;
	}
	if (strnlen(name, PATH_MAX) == PATH_MAX) {
		NL_SET_ERR_MSG(extack, "path too long");
		return -ENAMETOOLONG;
	}
	ret = kern_path(name, LOOKUP_FOLLOW | LOOKUP_NO_SYMLINKS, &f->path);
	if (ret == -ELOOP) {
		NL_SET_ERR_MSG(extack, "a symbolic link in the path: give the file's real path");
		return -EINVAL;
	}
	if (ret) {
		NL_SET_ERR_MSG(extack, "cannot look the file up");
		return ret;
	}
	f->inode = d_real_inode(f->path.dentry);
	if (!S_ISREG(f->inode->i_mode)) {
		NL_SET_ERR_MSG(extack, "not a regular file");
		ret = -EINVAL;
		goto err_put;
	}
	ret = cp_caller_may_read(c, &f->path);
	if (ret) {
		NL_SET_ERR_MSG(extack, "no permission to read the file");
		goto err_put;
	}
	return 0;

err_put:
	cp_probefile_put(f);
	return ret;
}

void cp_probefile_put(struct cp_probefile *f)
{
	if (f->inode)
		path_put(&f->path);
	f->inode = NULL;
}

/*
 * Whether offset may be probed in the file: inside it, in an executable
 * segment. Reads the file.
 */
int cp_probefile_check(const struct cp_probefile *f, u64 offset, struct netlink_ext_ack *extack)
{
	int ret;

	if (offset >= i_size_read(f->inode)) {
		NL_SET_ERR_MSG(extack, "offset beyond the end of the file");
		return -EINVAL;
	}
	ret = cp_elf_code_at(&f->path, offset);
	if (ret == -ENOEXEC) {
		NL_SET_ERR_MSG(extack, "not an ELF file of this machine");
		return -EINVAL;
	}
	if (ret == -ERANGE) {
		NL_SET_ERR_MSG(extack, "the offset is not in an executable segment of the file");
		return -EINVAL;
	}
	if (ret) {
		NL_SET_ERR_MSG(extack, "cannot read the file's program headers");
		return ret;
	}
	return 0;
}

/*
 * Whether a target that c may change uses mm. Its processes are looked at
 * under RCU, the targets' threads until one with an address space (the
 * leader's is gone when it exited before its threads): at registration,
 * once per address space that maps the file.
 */
bool cp_probefile_mm_wanted(const struct cp_caller *c, struct mm_struct *mm)
{
	struct task_struct *p, *t;
	bool found = false;

	rcu_read_lock();
	for_each_process(p) {
		if (!cp_target_match(p))
			continue;
		for_each_thread(p, t) {
			struct mm_struct *tmm = READ_ONCE(t->mm);

			if (tmm) {
				found = tmm == mm && cp_caller_may_attach(c, t);
				break;
			}
		}
		if (found)
			break;
	}
	rcu_read_unlock();
	return found;
}

/*
 * Whether nothing but current's own threads uses its memory, so that a
 * breakpoint may leave it (UPROBE_HANDLER_REMOVE): mm_users only ever
 * exceeds the thread count by transient references or another process.
 */
bool cp_probefile_mm_own(void)
{
	return current->mm && atomic_read(&current->mm->mm_users) <= get_nr_threads(current);
}
