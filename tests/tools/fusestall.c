// SPDX-License-Identifier: GPL-2.0
/*
 * A FUSE file system whose one file never answers a read: a hostile
 * user's way to make the kernel wait on a file for as long as it likes.
 *
 *	fusestall MOUNTPOINT
 *
 * MOUNTPOINT holds "prog", a regular file of 64 KiB, mode 0755. Lookups,
 * attributes and opens are answered; every read is taken from the device
 * and never answered, so a reader waits uninterruptibly until this program
 * dies (the kernel then aborts the connection: the read fails). Prints
 * "ready" once mounted; runs until killed (SIGTERM or SIGINT unmount).
 */
#define FUSE_USE_VERSION 34
#include <errno.h>
#include <fuse_lowlevel.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#define PROG_INO	2
#define PROG_SIZE	65536

static void attr_of(fuse_ino_t ino, struct stat *st)
{
	memset(st, 0, sizeof(*st));
	st->st_ino = ino;
	if (ino == FUSE_ROOT_ID) {
		st->st_mode = S_IFDIR | 0755;
		st->st_nlink = 2;
	} else {
		st->st_mode = S_IFREG | 0755;
		st->st_nlink = 1;
		st->st_size = PROG_SIZE;
	}
}

static void stall_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	struct fuse_entry_param e = { .ino = PROG_INO, .attr_timeout = 3600,
				      .entry_timeout = 3600 };

	if (parent != FUSE_ROOT_ID || strcmp(name, "prog")) {
		fuse_reply_err(req, ENOENT);
		return;
	}
	attr_of(PROG_INO, &e.attr);
	fuse_reply_entry(req, &e);
}

static void stall_getattr(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct stat st;

	if (ino != FUSE_ROOT_ID && ino != PROG_INO) {
		fuse_reply_err(req, ENOENT);
		return;
	}
	attr_of(ino, &st);
	fuse_reply_attr(req, &st, 3600);
}

static void stall_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	if (ino != PROG_INO) {
		fuse_reply_err(req, EISDIR);
		return;
	}
	/* Every read goes to us, none is served from the page cache. */
	fi->direct_io = 1;
	fuse_reply_open(req, fi);
}

/* Taken from the device, never answered. */
static void stall_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		       struct fuse_file_info *fi)
{
	fprintf(stderr, "fusestall: read of %zu bytes at %lld, not answered\n", size,
		(long long)off);
}

static const struct fuse_lowlevel_ops ops = {
	.lookup = stall_lookup,
	.getattr = stall_getattr,
	.open = stall_open,
	.read = stall_read,
};

int main(int argc, char **argv)
{
	char *args[] = { argv[0], NULL };
	struct fuse_args fargs = FUSE_ARGS_INIT(1, args);
	struct fuse_session *se;
	int ret = 1;

	if (argc != 2) {
		fprintf(stderr, "usage: fusestall MOUNTPOINT\n");
		return 2;
	}
	se = fuse_session_new(&fargs, &ops, sizeof(ops), NULL);
	if (!se)
		return 1;
	if (fuse_set_signal_handlers(se))
		goto out_destroy;
	if (fuse_session_mount(se, argv[1]))
		goto out_signals;
	printf("ready\n");
	fflush(stdout);
	ret = fuse_session_loop(se) ? 1 : 0;
	fuse_session_unmount(se);
out_signals:
	fuse_remove_signal_handlers(se);
out_destroy:
	fuse_session_destroy(se);
	return ret;
}
