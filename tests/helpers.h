/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared helpers of the causalprof selftests: loading the module, reading
 * /proc/causalprof, talking generic netlink, target processes.
 *
 * Helpers return 0 (or a count) on success and -errno on failure, so a test
 * asserts the exact error: ASSERT_EQ(-EBUSY, cp_control("start pid=1")).
 * This file must not include kselftest_harness.h: the harness defines
 * globals and may only be included by the test itself.
 */
#ifndef CP_HELPERS_H
#define CP_HELPERS_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <linux/causalprof.h>

#define CP_MODULE	"causalprof"
#define CP_VERSION	"0.1.0"
#define CP_PROC_DIR	"/proc/causalprof"
#define CP_STATUS	CP_PROC_DIR "/status"
#define CP_CONTROL	CP_PROC_DIR "/control"
#define CP_DEBUGFS	"/sys/kernel/debug/causalprof"
#define CP_SYSFS	"/sys/module/" CP_MODULE

/* Bounded wait for asynchronous state changes; never an assertion by itself. */
#define CP_WAIT_MS	5000

/*
 * ASSERT_ERRNO(err, expr): expr is a libc-style call (returns -1 and sets
 * errno on failure) that must fail with errno == err. Like the helper in
 * tools/testing/selftests/proc/proc-pidns.c, built on the harness' __EXPECT.
 */
#define cp_errno_of(expr) ({ long __r = (long)(expr); __r == -1 ? (long)errno : 0L; })
#define ASSERT_ERRNO(err, expr) \
	__EXPECT((long)(err), #err, cp_errno_of(expr), #expr, ==, 1)
#define EXPECT_ERRNO(err, expr) \
	__EXPECT((long)(err), #err, cp_errno_of(expr), #expr, ==, 0)

/* The module: $CAUSALPROF_KO, loaded with finit_module(2) */
const char *cp_ko_path(void);
int cp_module_load(const char *ko);
int cp_module_unload(void);
bool cp_module_loaded(void);
int cp_module_ensure_loaded(void);

/* /proc/causalprof */
int cp_status_read(char *buf, size_t size);
int cp_status_get(const char *key, char *val, size_t size);
int cp_status_u64(const char *key, uint64_t *val);
int cp_control_write(const void *buf, size_t len);
int cp_control(const char *cmd);
int cp_wait_state(const char *state, int timeout_ms);
int cp_session_reset(void);
int cp_parse_u64(const char *s, uint64_t *val);

/* Target processes */
pid_t cp_spawn_sleeper(void);
void cp_kill(pid_t pid);
pid_t cp_dead_pid(void);

/* Generic netlink, raw sockets (no library between the test and the wire) */
struct cp_nl {
	int fd;
	uint32_t portid;
	uint16_t family;	/* id of "causalprof" */
	uint32_t family_version;
	uint32_t seq;
	char extack[256];	/* extack message of the last request, or "" */
};

struct cp_nl_status {
	uint32_t attrs;		/* bit (1 << CAUSALPROF_A_x) per attribute present */
	uint32_t stat_attrs;	/* bit (1 << CAUSALPROF_STAT_x) per counter present */
	char version[32];
	uint32_t state;
	uint64_t session_id;
	uint32_t owner_portid;
	uint32_t target_pid;
	uint32_t flags;
	uint64_t stats[CAUSALPROF_STAT_MAX + 1];
};

#define CP_HAS(st, a)		(!!((st)->attrs & (1U << (a))))
#define CP_HAS_STAT(st, s)	(!!((st)->stat_attrs & (1U << (s))))

int cp_genl_lookup(const char *name, uint16_t *id, uint32_t *version);
size_t cp_nla_put(void *buf, size_t off, uint16_t type, const void *data, size_t len);
int cp_nl_open(struct cp_nl *nl);
int cp_nl_request(struct cp_nl *nl, uint8_t cmd, const void *attrs, size_t len,
		  void *reply, size_t size);
void cp_nl_close(struct cp_nl *nl);
int cp_nl_get_status(struct cp_nl *nl, struct cp_nl_status *st);
int cp_nl_start(struct cp_nl *nl, uint32_t pid, uint32_t flags, uint64_t *id);
int cp_nl_stop(struct cp_nl *nl);
int cp_nl_wait_state(struct cp_nl *nl, uint32_t state, int timeout_ms);

#endif /* CP_HELPERS_H */
