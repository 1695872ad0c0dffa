// SPDX-License-Identifier: GPL-2.0
/*
 * cprof's side of Coz compatibility: creates the counter region of
 * user/cozshm.h, the environment that shares it, and reads its counts.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "cozcount.h"

#ifndef CP_COZ_LIBDIR
#define CP_COZ_LIBDIR	"/usr/local/lib/cprof"
#endif

/* @dir/libcprof-coz.so, made absolute, if it is there. */
static int lib_in(const char *dir, char *path, size_t size)
{
	char name[PATH_MAX];

	if ((size_t)snprintf(name, sizeof(name), "%s/%s", dir, CP_COZ_LIB) >= sizeof(name))
		return -ENAMETOOLONG;
	if (!realpath(name, path))
		return -errno;
	if (strlen(path) >= size)
		return -ENAMETOOLONG;
	return access(path, R_OK) ? -errno : 0;
}

int cp_coz_find_lib(char *path, size_t size)
{
	char exe[PATH_MAX], up[PATH_MAX], found[PATH_MAX], *dir;
	ssize_t n;
	int ret = -ENOENT;

	/*
	 * Next to cprof (the build tree), then in ../lib/cprof from it (where
	 * make install puts it, whatever PREFIX), then in the LIBDIR cprof
	 * was built with.
	 */
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		dir = dirname(exe);
		ret = lib_in(dir, found, sizeof(found));
		if (ret && (size_t)snprintf(up, sizeof(up), "%s/../lib/cprof", dir) < sizeof(up))
			ret = lib_in(up, found, sizeof(found));
	}
	if (ret)
		ret = lib_in(CP_COZ_LIBDIR, found, sizeof(found));
	if (ret)
		return ret;
	if (strlen(found) >= size)
		return -ENAMETOOLONG;
	strcpy(path, found);
	return 0;
}

/* A new file for the region: /dev/shm, else $TMPDIR or /tmp. */
static int create_file(struct cp_coz *c)
{
	const char *dirs[] = { "/dev/shm", getenv("TMPDIR"), "/tmp" };
	unsigned int i;
	int fd = -ENOENT;

	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		if (!dirs[i] || !*dirs[i])
			continue;
		if ((size_t)snprintf(c->path, sizeof(c->path), "%s/cprof-coz-XXXXXX",
				     dirs[i]) >= sizeof(c->path))
			continue;
		fd = mkostemp(c->path, O_CLOEXEC);
		if (fd >= 0)
			break;
		fd = -errno;
	}
	if (fd >= 0 && fchmod(fd, 0600)) {
		fd = -errno;
		unlink(c->path);
	}
	return fd;
}

/* "LD_PRELOAD=@lib" ahead of what this process has, and the region's variable. */
static int make_env(struct cp_coz *c, const char *lib, char *err, size_t len)
{
	const char *old = getenv("LD_PRELOAD");

	/* ld.so splits $LD_PRELOAD at spaces and colons. */
	if (strpbrk(lib, " :")) {
		snprintf(err, len, "cannot preload %s: its path has a space or a colon", lib);
		return -EINVAL;
	}
	if (old && *old ?
	    asprintf(&c->env[0], "LD_PRELOAD=%s %s", lib, old) < 0 :
	    asprintf(&c->env[0], "LD_PRELOAD=%s", lib) < 0)
		c->env[0] = NULL;
	if (asprintf(&c->env[1], "%s=%s", CP_COZ_ENV, c->path) < 0)
		c->env[1] = NULL;
	c->env[2] = NULL;
	if (!c->env[0] || !c->env[1]) {
		snprintf(err, len, "out of memory");
		return -ENOMEM;
	}
	return 0;
}

int cp_coz_open(struct cp_coz *c, const char *lib, uint32_t capacity, char *err, size_t len)
{
	char found[PATH_MAX];
	int fd, ret;
	void *p;

	memset(c, 0, sizeof(*c));
	if (!capacity)
		capacity = CP_COZ_SLOTS;
	if (!lib) {
		ret = cp_coz_find_lib(found, sizeof(found));
		if (ret) {
			snprintf(err, len, "cannot find %s next to cprof, in ../lib/cprof from it or in %s: %s",
				 CP_COZ_LIB, CP_COZ_LIBDIR, strerror(-ret));
			return ret;
		}
		lib = found;
	}
	if (lib[0] != '/') {
		snprintf(err, len, "cannot preload %s: not an absolute path", lib);
		return -EINVAL;
	}

	fd = create_file(c);
	if (fd < 0) {
		snprintf(err, len, "cannot create a counter region in /dev/shm or /tmp: %s",
			 strerror(-fd));
		return fd;
	}
	c->size = cp_coz_region_size(capacity);
	if (ftruncate(fd, c->size)) {
		ret = -errno;
		snprintf(err, len, "cannot size %s: %s", c->path, strerror(-ret));
		goto err_unlink;
	}
	p = mmap(NULL, c->size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		ret = -errno;
		snprintf(err, len, "cannot map %s: %s", c->path, strerror(-ret));
		goto err_unlink;
	}
	c->region = p;
	c->capacity = capacity;
	c->region->version = CP_COZ_VERSION;
	c->region->slot_size = sizeof(struct cp_coz_slot);
	c->region->capacity = capacity;
	/* Last: the header is valid from then on. */
	__atomic_store_n(&c->region->magic, CP_COZ_MAGIC, __ATOMIC_RELEASE);

	ret = make_env(c, lib, err, len);
	if (ret)
		goto err_unmap;
	close(fd);
	return 0;

err_unmap:
	munmap(c->region, c->size);
	free(c->env[0]);
	free(c->env[1]);
err_unlink:
	unlink(c->path);
	close(fd);
	memset(c, 0, sizeof(*c));
	return ret;
}

char *const *cp_coz_env(const struct cp_coz *c)
{
	return c->env;
}

int cp_coz_putenv(const struct cp_coz *c)
{
	unsigned int i;

	for (i = 0; c->env[i]; i++)
		if (putenv(c->env[i]))
			return -errno;
	return 0;
}

size_t cp_coz_snapshot(const struct cp_coz *c, struct cp_coz_count *out, size_t max)
{
	const struct cp_coz_slot *s;
	uint32_t i, n;
	size_t nr = 0;

	if (!c->region)
		return 0;
	/* The command can write anything here: trust no index it wrote. */
	n = __atomic_load_n(&c->region->nslots, __ATOMIC_ACQUIRE);
	if (n > c->capacity)
		n = c->capacity;
	for (i = 0; i < n && nr < max; i++) {
		s = &c->region->slots[i];
		if (!__atomic_load_n(&s->ready, __ATOMIC_ACQUIRE))
			continue;
		out[nr].slot = i;
		out[nr].type = s->type;
		out[nr].count = __atomic_load_n(&s->counter.count, __ATOMIC_RELAXED);
		memcpy(out[nr].name, s->name, sizeof(out[nr].name));
		out[nr].name[sizeof(out[nr].name) - 1] = '\0';
		nr++;
	}
	return nr;
}

uint32_t cp_coz_refused(const struct cp_coz *c)
{
	return c->region ? __atomic_load_n(&c->region->refused, __ATOMIC_RELAXED) : 0;
}

void cp_coz_close(struct cp_coz *c)
{
	if (!c->region)
		return;
	munmap(c->region, c->size);
	unlink(c->path);
	free(c->env[0]);
	free(c->env[1]);
	memset(c, 0, sizeof(*c));
}
