// SPDX-License-Identifier: GPL-2.0
/*
 * Module lifetime: repeated load/unload leaves nothing behind, and unloading
 * with a session running (owned by /proc or by a netlink socket) succeeds.
 * Every test leaves the module loaded.
 */
#include <stdio.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/vfs.h>

#include "kselftest_harness.h"
#include "helpers.h"

#define LOOPS		20
#define DEBUGFS_MAGIC	0x64626720

static bool debugfs_mounted(void)
{
	struct statfs sfs;

	return !statfs("/sys/kernel/debug", &sfs) && sfs.f_type == DEBUGFS_MAGIC;
}

static void assert_present(struct __test_metadata *_metadata, int loop)
{
	uint32_t version;
	uint16_t id;

	ASSERT_TRUE(cp_module_loaded()) TH_LOG("loop %d: no %s", loop, CP_SYSFS);
	ASSERT_EQ(0, access(CP_STATUS, R_OK)) TH_LOG("loop %d: no %s", loop, CP_STATUS);
	ASSERT_EQ(0, access(CP_CONTROL, F_OK)) TH_LOG("loop %d: no %s", loop, CP_CONTROL);
	ASSERT_EQ(0, cp_genl_lookup(CAUSALPROF_GENL_NAME, &id, &version))
		TH_LOG("loop %d: genl family not registered", loop);
	ASSERT_EQ(CAUSALPROF_GENL_VERSION, (int)version);
	if (debugfs_mounted()) {
		ASSERT_EQ(0, access(CP_DEBUGFS, F_OK)) TH_LOG("loop %d: no %s", loop, CP_DEBUGFS);
	}
}

static void assert_gone(struct __test_metadata *_metadata, int loop)
{
	uint32_t version;
	uint16_t id;

	ASSERT_FALSE(cp_module_loaded()) TH_LOG("loop %d: %s still there", loop, CP_SYSFS);
	ASSERT_ERRNO(ENOENT, access(CP_STATUS, F_OK)) TH_LOG("loop %d", loop);
	ASSERT_ERRNO(ENOENT, access(CP_PROC_DIR, F_OK)) TH_LOG("loop %d", loop);
	ASSERT_EQ(-ENOENT, cp_genl_lookup(CAUSALPROF_GENL_NAME, &id, &version))
		TH_LOG("loop %d: genl family still registered", loop);
	if (debugfs_mounted()) {
		ASSERT_ERRNO(ENOENT, access(CP_DEBUGFS, F_OK)) TH_LOG("loop %d", loop);
	}
}

/* A freshly loaded module: idle, and its counters start from zero. */
static void assert_fresh(struct __test_metadata *_metadata)
{
	uint64_t val;
	char state[32];

	ASSERT_EQ(0, cp_status_get("state", state, sizeof(state)));
	ASSERT_STREQ("idle", state);
	ASSERT_EQ(0, cp_status_u64("sessions", &val));
	ASSERT_EQ(0U, val);
	ASSERT_EQ(0, cp_status_u64("session_id", &val));
	ASSERT_EQ(0U, val);
}

FIXTURE(module) {
	const char *ko;
	pid_t child;
};

FIXTURE_SETUP(module)
{
	self->ko = cp_ko_path();
	ASSERT_NE(NULL, self->ko) TH_LOG("CAUSALPROF_KO is not set: run under tests/vm/run");
	ASSERT_EQ(0, cp_module_ensure_loaded());
	ASSERT_EQ(0, cp_session_reset());
	self->child = cp_spawn_sleeper();
	ASSERT_GT(self->child, 0);
}

FIXTURE_TEARDOWN(module)
{
	EXPECT_EQ(0, cp_module_ensure_loaded());
	cp_kill(self->child);
}

TEST_F_TIMEOUT(module, load_unload_loop, 600)
{
	int i;

	for (i = 0; i < LOOPS; i++) {
		ASSERT_EQ(0, cp_module_unload()) TH_LOG("loop %d: delete_module", i);
		assert_gone(_metadata, i);
		ASSERT_EQ(0, cp_module_load(self->ko)) TH_LOG("loop %d: finit_module", i);
		assert_present(_metadata, i);
		assert_fresh(_metadata);
	}
}

TEST_F_TIMEOUT(module, unload_while_recording, 120)
{
	char cmd[64], state[32];

	snprintf(cmd, sizeof(cmd), "start pid=%d", self->child);
	ASSERT_EQ(0, cp_control(cmd));
	ASSERT_EQ(0, cp_status_get("state", state, sizeof(state)));
	ASSERT_STREQ("recording", state);

	ASSERT_EQ(0, cp_module_unload());
	assert_gone(_metadata, 0);

	ASSERT_EQ(0, cp_module_load(self->ko));
	assert_present(_metadata, 0);
	assert_fresh(_metadata);
}

/*
 * The session's owner socket outlives the module: unloading must drop the
 * session and forget the socket, so closing it afterwards is harmless.
 */
TEST_F_TIMEOUT(module, unload_while_owned, 120)
{
	struct cp_nl_status st;
	struct cp_nl nl, nl2;
	uint64_t id;

	ASSERT_EQ(0, cp_nl_open(&nl));
	ASSERT_EQ(0, cp_nl_start(&nl, self->child, 0, &id)) TH_LOG("%s", nl.extack);

	ASSERT_EQ(0, cp_module_unload());
	assert_gone(_metadata, 0);
	cp_nl_close(&nl);

	ASSERT_EQ(0, cp_module_load(self->ko));
	assert_present(_metadata, 0);
	assert_fresh(_metadata);
	ASSERT_EQ(0, cp_nl_open(&nl2));
	ASSERT_EQ(0, cp_nl_get_status(&nl2, &st));
	EXPECT_EQ(CAUSALPROF_STATE_IDLE, (int)st.state);
	cp_nl_close(&nl2);
}

TEST_HARNESS_MAIN
