/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * causalprof: sampling and causal profiling from a kernel module.
 *
 * This header is the protocol between causalprof.ko and its clients.
 *
 * Generic netlink family "causalprof" (CAUSALPROF_GENL_NAME), version
 * CAUSALPROF_GENL_VERSION, in the initial network namespace only (not
 * netnsok: a socket of another network namespace does not find it). There
 * are no dump requests (NLM_F_DUMP: -EOPNOTSUPP); nlmsg_flags other than
 * NLM_F_REQUEST, NLM_F_ACK and NLM_F_ECHO are -EINVAL. Every attribute is
 * validated strictly by a policy: an unknown attribute, an attribute to a
 * command that takes none, a nest without NLA_F_NESTED, an attribute of the
 * wrong length, or a string without its NUL or longer than allowed fails
 * with -EINVAL. Every error, the policy's or the command's, carries an
 * extended ACK message (NETLINK_EXT_ACK) and, where one attribute is at
 * fault, its offset (NLMSGERR_ATTR_OFFS) or, when it is missing, its type
 * (NLMSGERR_ATTR_MISS_TYPE). Commands marked (control) need CAP_PERFMON or
 * CAP_SYS_ADMIN in the initial user namespace, of both the socket's opener
 * and the sender, checked once after the policy and before the command:
 * -EPERM otherwise ("controlling a session needs CAP_PERFMON or
 * CAP_SYS_ADMIN").
 *
 * CAUSALPROF_CMD_GET_STATUS
 *   Request: no attributes. Anyone may ask.
 *   Reply (same command):
 *     CAUSALPROF_A_VERSION: NLA_NUL_STRING, module version ("0.1.0")
 *     CAUSALPROF_A_STATE: NLA_U32, enum causalprof_state
 *     CAUSALPROF_A_SESSION_ID: NLA_U64, id of the current or last session
 *                              (0: none yet)
 *     CAUSALPROF_A_OWNER: NLA_U32, enum causalprof_owner: what started the
 *                         running session (only while a session runs;
 *                         never the owner's port id)
 *     CAUSALPROF_A_TARGET_PID: NLA_U32, target process (only while a
 *                              session runs; absent when system-wide)
 *     CAUSALPROF_A_FLAGS: NLA_U32, CAUSALPROF_F_* of the running session
 *                         (only while a session runs)
 *     CAUSALPROF_A_STATS: NLA_NESTED
 *       CAUSALPROF_STAT_*: NLA_U64 each, module-wide counters since load
 *
 * CAUSALPROF_CMD_SESSION_START (control)
 *   Starts the one session the module runs at a time; the requesting socket
 *   becomes its owner and receives the session's CAUSALPROF_CMD_RECORDS,
 *   from right after the reply on. When the owner's socket closes, the
 *   session stops. Fails with -EBUSY while another session runs, -ESRCH if
 *   the target does not exist, -ENODEV while the module unloads, and with
 *   the kernel's error (-ENOENT without a PMU, ...) when an event cannot be
 *   sampled; the extack message then names the event as the user spelled
 *   it: "cycles: no hardware PMU (ENOENT); try -e cpu-clock".
 *     CAUSALPROF_A_TARGET_PID: NLA_U32, not 0, required unless
 *                              CAUSALPROF_F_SYSTEM_WIDE, forbidden with it
 *     CAUSALPROF_A_FLAGS: NLA_U32, CAUSALPROF_F_*; unknown bits are -EINVAL
 *       SYSTEM_WIDE: every task but the idle tasks, instead of a target
 *       NO_INHERIT: do not follow the processes the target forks (its
 *                   threads are always sampled)
 *       USER_STACK: samples carry the user stack (frame pointers), not
 *                   only the user IP of samples taken in user mode
 *       KERNEL_STACK: samples taken in the kernel carry the kernel stack,
 *                   not only the interrupted IP
 *       AGGREGATE: samples are counted in the kernel by (thread, event,
 *                  stack) and streamed as STACK and COUNT records at every
 *                  drain instead of one SAMPLE record each (see
 *                  struct causalprof_count); without it, SAMPLE records
 *                  (and off-CPU waits: OFF_CPU_COUNT, or OFF_CPU records)
 *       OFF_CPU: every time a target thread leaves its CPU of its own
 *                accord (it blocks or sleeps), its stacks then and how
 *                long it stayed off, streamed when it runs again (see
 *                struct causalprof_off_cpu); with or without events
 *     CAUSALPROF_A_AGG_ENTRIES: NLA_U32, with CAUSALPROF_F_AGGREGATE only:
 *                  entries of each CPU's count table, 16 to 65536
 *                  (rounded up to a power of two; default 1024); its stack
 *                  set holds 8 times as many stacks. Out of range, or
 *                  without the flag: -EINVAL
 *     CAUSALPROF_A_DRAIN_MS: NLA_U32, optional, 1 to 60000: the session's
 *                  rings drain every N ms instead of every drain_ms (the
 *                  module parameter); whatever the period, a ring half
 *                  full drains at once, and CAUSALPROF_CMD_FLUSH drains
 *                  them when the owner asks. Out of range: -EINVAL
 *     CAUSALPROF_A_GO_LABELS: NLA_NESTED, optional, not with SYSTEM_WIDE:
 *                  the target is a Go program (linux/amd64) and its
 *                  samples carry the pprof labels of the goroutine that
 *                  ran (struct causalprof_go_labels). Only the target
 *                  process's own threads (its thread group id), not the
 *                  processes it forks; read at each sample from the
 *                  thread's memory with bounded copies that never fault
 *                  pages in (a read that fails is counted in
 *                  CAUSALPROF_STAT_GO_LABELS_FAULT, a set cut at the bounds
 *                  in CAUSALPROF_STAT_GO_LABELS_CUT). The layout comes
 *                  from the client, which reads it from the program's
 *                  DWARF or knows it for the program's Go version:
 *       CAUSALPROF_GO_A_FORMAT: NLA_U32, required, enum
 *                  causalprof_go_format: how the labels are kept
 *       CAUSALPROF_GO_A_TLS_G: NLA_S32, required, where the thread's
 *                  current g is: at this offset from the thread's FS base
 *                  (-8 in a Go program linked by Go's own linker), -4096
 *                  to -8, a multiple of 8
 *       CAUSALPROF_GO_A_G_M: NLA_U32, required, offset of runtime.g's m
 *       CAUSALPROF_GO_A_M_CURG: NLA_U32, required, offset of runtime.m's
 *                  curg (the user goroutine the thread runs, if any)
 *       CAUSALPROF_GO_A_G_LABELS: NLA_U32, required, offset of runtime.g's
 *                  labels
 *                  Each offset below 4096 and a multiple of 8; else, or
 *                  a field missing: -EINVAL naming it.
 *     CAUSALPROF_A_EVENTS: NLA_NESTED, up to CAUSALPROF_MAX_EVENTS of
 *       CAUSALPROF_EVENTS_A_EVENT: NLA_NESTED
 *         CAUSALPROF_EV_A_TYPE: NLA_U32, perf_event_attr.type: HARDWARE,
 *                               HW_CACHE, RAW, or SOFTWARE with config
 *                               PERF_COUNT_SW_CPU_CLOCK
 *         CAUSALPROF_EV_A_CONFIG: NLA_U64, perf_event_attr.config
 *         CAUSALPROF_EV_A_PERIOD: NLA_U64, sample every N events, or
 *         CAUSALPROF_EV_A_FREQ: NLA_U32, target samples per second per CPU
 *                               (above the module's max_freq: lowered)
 *         CAUSALPROF_EV_A_NAME: NLA_NUL_STRING, the user's spelling, for
 *                               error messages (printable ASCII, else
 *                               -EINVAL)
 *       The index of an event in this list is the event number carried by
 *       its samples. Without CAUSALPROF_A_EVENTS the session samples
 *       nothing and streams only MMAP, COMM, FORK and EXIT records.
 *   Reply: CAUSALPROF_A_SESSION_ID.
 *
 * CAUSALPROF_CMD_SESSION_STOP (control)
 *   Stops the running session. Only its owner, or a caller with
 *   CAP_SYS_ADMIN, may stop it (-EPERM otherwise); -ENOENT without one.
 *   The session's last records follow the ack; the last
 *   CAUSALPROF_CMD_RECORDS message of the session carries a
 *   CAUSALPROF_REC_END record. Wait for END rather than for the ack alone:
 *   netlink drops any message, acks included, that finds the receive queue
 *   full. (Records leave room in it for one ack, 4 KiB: a request's ack
 *   finds room unless something else fills the queue.)
 *
 * CAUSALPROF_CMD_RECORDS (kernel -> session owner, unicast)
 *     CAUSALPROF_A_SESSION_ID: NLA_U64
 *     CAUSALPROF_A_RECORDS: NLA_BINARY, a batch of stream records: each
 *       starts with struct causalprof_record_hdr and is padded to 8 bytes.
 *       Its payload starts at an offset from the message's start that is a
 *       multiple of 8 (a CAUSALPROF_A_PAD precedes it when needed), so a
 *       reader that receives into an 8-aligned buffer can use the records
 *       in place.
 *   A message is at most 32 KiB. Records keep their order per CPU; across
 *   CPUs, and between samples and the other records, order by time_ns
 *   (COUNT records excepted: they leave at the drain after their samples;
 *   and OFF_CPU and OFF_CPU_COUNT records, written when their waits end).
 *   A MMAP, COMM, FORK or EXIT record never arrives after a sample (or the
 *   start of a wait) taken after it. When the owner's receive queue is full, records wait in the
 *   module and samples that find no room are counted in LOST records: a
 *   client should use a large SO_RCVBUF(FORCE) and NETLINK_NO_ENOBUFS.
 *
 * Experiments and progress points are controlled through the surface that
 * started the session: a session with an owner only by its owner's socket
 * (another socket gets -EPERM, CAP_SYS_ADMIN or not), one started through
 * /proc only through /proc (netlink gets -EPERM), and by the user who
 * started it (its euid) or CAP_SYS_ADMIN. Without a session: -ENOENT.
 * Starting an experiment (which delays the session's targets) and adding
 * a progress point (breakpoints in their memory) change the targets: as
 * for perf's events that change their target, they need the right to
 * ptrace-attach the session's target (same uid, dumpable and no
 * permitted capability the caller lacks, or CAP_SYS_PTRACE; never a
 * kernel thread, or a process whose leader alone has exited), else
 * -EPERM; -ESRCH once the process has exited or while all of it exits.
 * A system-wide session's targets are every task: CAP_SYS_ADMIN
 * or CAP_SYS_PTRACE. The extack message of an -EPERM says which rule
 * applied ("only the session's owner may do this", "the session is
 * controlled through /proc", "no right to ptrace-attach the session's
 * target"). The policies are strict: an
 * attribute a command does not list, or a nest without NLA_F_NESTED, at
 * any nesting level, is -EINVAL with the kernel's message ("Unknown
 * attribute type", "Unsupported attribute"); a bad value is -EINVAL with a
 * message naming the attribute ("CAUSALPROF_EXP_A_SPEEDUP is above 1000 per
 * mille", "CAUSALPROF_RANGE_A_END is not above CAUSALPROF_RANGE_A_START",
 * "more than 16 CAUSALPROF_EXP_A_RANGE (CAUSALPROF_MAX_RANGES)", ...).
 *
 * CAUSALPROF_CMD_FLUSH (control, owner only)
 *   Drains the session's rings now: the records of the samples and events
 *   taken before the request (the count tables' so far, in an aggregated
 *   session) are queued on the owner's socket before the request's ack, so
 *   that an owner that cuts the stream at a point in time (cprof record
 *   --every) needs no periodic drain to find them. -ENOBUFS when the
 *   owner's receive queue could not take them all (the rest follows with
 *   the later drains); -ENOENT without a session, -EPERM from any socket
 *   but the owner's (a session started through /proc has none).
 *
 * CAUSALPROF_CMD_EXPERIMENT_START (control, owner only)
 *     CAUSALPROF_A_EXPERIMENT: NLA_NESTED, required
 *       CAUSALPROF_EXP_A_SPEEDUP: NLA_U32, required, virtual speedup in per
 *                                 mille (0..1000)
 *       CAUSALPROF_EXP_A_RANGE: NLA_NESTED, 1 to CAUSALPROF_MAX_RANGES of
 *                               them, the selected code
 *         CAUSALPROF_RANGE_A_PID: NLA_U32, required, the process whose
 *                                 addresses these are, in the caller's
 *                                 pid namespace, turned into its thread
 *                                 group id (-ESRCH if there is none,
 *                                 or all of it exits or has exited;
 *                                 -EPERM without the right to
 *                                 ptrace-attach it)
 *         CAUSALPROF_RANGE_A_START: NLA_U64, required, first address
 *         CAUSALPROF_RANGE_A_END: NLA_U64, required, one past the last
 *                                 address (above START)
 *   -EBUSY while an experiment runs, or while the last experiment's
 *   record still waits in the module for an owner that does not read.
 * CAUSALPROF_CMD_EXPERIMENT_STOP (control, owner only)
 *   No attributes; -ENOENT when no experiment runs. The experiment's result
 *   is streamed as a CAUSALPROF_REC_EXPERIMENT record, after the ack. A
 *   session that stops (for whatever reason) stops its experiment first,
 *   and streams the record before its END.
 *
 * CAUSALPROF_CMD_PROGRESS_ADD (control, owner only)
 *     CAUSALPROF_A_PROGRESS: NLA_NESTED, required
 *       CAUSALPROF_PP_A_ID: NLA_U32, required, chosen by the owner
 *       CAUSALPROF_PP_A_KIND: NLA_U32, required, enum causalprof_pp_kind
 *       CAUSALPROF_PP_A_PATH: NLA_NUL_STRING, required, absolute path of
 *                             the file to probe (a regular ELF file; no
 *                             symbolic link in the path)
 *       CAUSALPROF_PP_A_OFFSET: NLA_U64, required, file offset of the probe,
 *                               inside an executable segment
 *       CAUSALPROF_PP_A_END_OFFSET: NLA_U64, latency points only (required
 *                                   there): the end probe
 *       CAUSALPROF_PP_A_SITES: NLA_NESTED, optional: more sites of the
 *                              (begin) probe, one uprobe each, any hit of
 *                              which is a hit of the probe (a function's
 *                              exits: cprof's FUNC%return), of
 *         CAUSALPROF_SITES_A_OFFSET: NLA_U64, one site each, checked as
 *                                    OFFSET is
 *                              With OFFSET, at most CAUSALPROF_MAX_SITES
 *                              sites; an empty nest, more sites, or an
 *                              offset twice: -EINVAL. A site uprobes
 *                              refuses fails the point (its other sites
 *                              removed first).
 *       CAUSALPROF_PP_A_END_SITES: NLA_NESTED, latency points only, with
 *                                  END_OFFSET: the same for the end probe;
 *                                  no offset may be a site of both probes
 *       CAUSALPROF_PP_A_VISIT_NS: NLA_U32, optional, at most
 *                                 CAUSALPROF_MAX_VISIT_NS: what a hit of
 *                                 the (begin) probe costs the thread that
 *                                 makes it (its trap); during experiments
 *                                 the module counts that time as a pause
 *                                 the thread took (Documentation/causal.rst,
 *                                 "Progress points cost time too"); 0 or
 *                                 absent: nothing counted
 *       CAUSALPROF_PP_A_END_VISIT_NS: NLA_U32, latency points only, the same
 *                                     for the end probe
 *       CAUSALPROF_PP_A_STACK_CHECKS: NLA_U64, optional: bit i set when the
 *                                     begin probe's site i (CAUSALPROF_PP_A_OFFSET
 *                                     the first, then those of _SITES) is
 *                                     the jbe of a Go function's stack
 *                                     check, as a Go hook's with
 *                                     CAUSALPROF_GOHOOK_F_STACK_CHECK: a hit
 *                                     that takes the branch (the stack grows,
 *                                     the function starts again) is no visit.
 *                                     A bit beyond the sites: -EINVAL
 *       CAUSALPROF_PP_A_END_STACK_CHECKS: NLA_U64, latency points only, the
 *                                         same for the end probe's sites
 *   -EEXIST for an id in use, -ENOSPC beyond 16 points, -ENOENT for a
 *   missing file, -EACCES for a file the caller may not read. Points
 *   belong to the session: they go when it stops. A point stops counting
 *   a process that changed credentials since and that the caller may no
 *   longer ptrace-attach: see CAUSALPROF_REC_DENIED.
 * CAUSALPROF_CMD_PROGRESS_DEL (control, owner only)
 *     CAUSALPROF_A_PROGRESS: NLA_NESTED, required, with only
 *       CAUSALPROF_PP_A_ID: NLA_U32, required
 *   -ENOENT for an unknown id.
 *
 * CAUSALPROF_CMD_GO_HOOKS (control, owner only)
 *   Follows the goroutines of a Go program (Go 1.17 or later, amd64: the
 *   register ABI) as causal inheritance follows kernel wake-ups
 *   (Documentation/go.rst): uprobes on the runtime's own functions, placed,
 *   checked and judged as a progress point's are (a target's memory only,
 *   by the caller's right to ptrace-attach it), tell the module when a
 *   goroutine stops running, is made runnable, is created and starts
 *   running; during experiments the goroutine carries the delay its
 *   thread owed to the thread that runs it next. The hooks belong to the
 *   session (one set, of one file): they go when it stops.
 *     CAUSALPROF_A_GO_HOOKS: NLA_NESTED, required
 *       CAUSALPROF_GOHOOKS_A_PATH: NLA_NUL_STRING, required, absolute path of
 *                             the Go executable (as for a progress point)
 *       CAUSALPROF_GOHOOKS_A_HOOK: NLA_NESTED, 1 to CAUSALPROF_MAX_GO_HOOKS of
 *                             them, one uprobe each
 *         CAUSALPROF_GOHOOK_A_KIND: NLA_U32, required, enum
 *                                   causalprof_go_hook (above its last:
 *                                   -ERANGE, the policy's "integer out
 *                                   of range")
 *         CAUSALPROF_GOHOOK_A_OFFSET: NLA_U64, required, file offset of an
 *                                     instruction where RAX (or RBX, below)
 *                                     holds the goroutine (its g) the kind says,
 *                                     inside an executable segment
 *         CAUSALPROF_GOHOOK_A_VISIT_NS: NLA_U32, optional, at most
 *                                       CAUSALPROF_MAX_VISIT_NS: what the
 *                                       hook's trap costs the thread that
 *                                       takes it, counted as a pause during
 *                                       experiments, as a progress point's
 *                                       visit is (CAUSALPROF_PP_A_VISIT_NS);
 *                                       0 or absent: not counted
 *         CAUSALPROF_GOHOOK_A_FLAGS: NLA_U32, optional,
 *                                    CAUSALPROF_GOHOOK_F_*; unknown bits
 *                                    are -EINVAL. With
 *                                    CAUSALPROF_GOHOOK_F_STACK_CHECK the
 *                                    offset is the jbe of the function's
 *                                    stack check (cmp 16(R14); jbe
 *                                    morestack), which the kernel emulates
 *                                    (no out-of-line step): a hit that
 *                                    takes the branch (CF or ZF set: the
 *                                    stack grows and the function starts
 *                                    again) is not an event. With
 *                                    CAUSALPROF_GOHOOK_F_ARG2 the goroutine
 *                                    is in RBX (the register ABI's second
 *                                    argument: a call of runqput(pp, g))
 *     Every kind but CAUSALPROF_GO_MONITOR at least once, no offset
 *     twice: else -EINVAL ("no CAUSALPROF_GO_READY hook", ...). -EEXIST
 *     when the session has its Go hooks already; -ENOENT, -EACCES,
 *     -EINVAL for the file as for a progress point. The module keeps the
 *     state of up to its go_slots goroutines (module parameter, default
 *     65536; the debugfs counter go/table_full counts the events of those
 *     that found no room).
 *
 * Text control: /proc/causalprof/control accepts one command per write,
 * e.g. "start pid=123 event=cpu-clock freq=1000" or "stop", with the same
 * checks; see Documentation/causalprof.rst. Its sessions have no owner:
 * their records are counted and dropped.
 */

#ifndef _UAPI_LINUX_CAUSALPROF_H
#define _UAPI_LINUX_CAUSALPROF_H

#include <linux/types.h>

#define CAUSALPROF_GENL_NAME		"causalprof"
#define CAUSALPROF_GENL_VERSION		1

#define CAUSALPROF_MAX_EVENTS		8
#define CAUSALPROF_MAX_STACK		127
#define CAUSALPROF_MAX_RANGES		16	/* per experiment */
#define CAUSALPROF_MAX_SITES		64	/* per probe of a progress point */
#define CAUSALPROF_MAX_GO_HOOKS		32	/* per session (CAUSALPROF_CMD_GO_HOOKS) */

enum causalprof_cmd {
	CAUSALPROF_CMD_UNSPEC,
	CAUSALPROF_CMD_GET_STATUS,
	CAUSALPROF_CMD_SESSION_START,
	CAUSALPROF_CMD_SESSION_STOP,
	CAUSALPROF_CMD_RECORDS,
	CAUSALPROF_CMD_EXPERIMENT_START,
	CAUSALPROF_CMD_EXPERIMENT_STOP,
	CAUSALPROF_CMD_PROGRESS_ADD,
	CAUSALPROF_CMD_PROGRESS_DEL,
	CAUSALPROF_CMD_GO_HOOKS,
	CAUSALPROF_CMD_FLUSH,
	__CAUSALPROF_CMD_MAX
};
#define CAUSALPROF_CMD_MAX (__CAUSALPROF_CMD_MAX - 1)

enum causalprof_state {
	CAUSALPROF_STATE_IDLE,
	CAUSALPROF_STATE_RECORDING,
	CAUSALPROF_STATE_STOPPING,
};

/*
 * Who owns the running session. The owner's netlink port id is not told:
 * once the owner's socket closes, anyone may bind that port id.
 */
enum causalprof_owner {
	CAUSALPROF_OWNER_NONE,
	CAUSALPROF_OWNER_NETLINK,	/* the socket that sent SESSION_START */
	CAUSALPROF_OWNER_PROC,		/* started through /proc/causalprof/control */
};

enum causalprof_flag {
	CAUSALPROF_F_SYSTEM_WIDE	= 1U << 0,
	CAUSALPROF_F_NO_INHERIT		= 1U << 1,
	CAUSALPROF_F_USER_STACK		= 1U << 2,
	CAUSALPROF_F_KERNEL_STACK	= 1U << 3,
	CAUSALPROF_F_AGGREGATE		= 1U << 4,
	CAUSALPROF_F_OFF_CPU		= 1U << 5,
	__CAUSALPROF_F_ALL		= (1U << 6) - 1
};

enum causalprof_attr {
	CAUSALPROF_A_UNSPEC,
	CAUSALPROF_A_PAD,
	CAUSALPROF_A_VERSION,
	CAUSALPROF_A_STATE,
	CAUSALPROF_A_SESSION_ID,
	CAUSALPROF_A_OWNER_PORTID,	/* no longer sent: see CAUSALPROF_A_OWNER */
	CAUSALPROF_A_TARGET_PID,
	CAUSALPROF_A_FLAGS,
	CAUSALPROF_A_EVENTS,
	CAUSALPROF_A_STATS,
	CAUSALPROF_A_RECORDS,
	CAUSALPROF_A_EXPERIMENT,
	CAUSALPROF_A_PROGRESS,
	CAUSALPROF_A_OWNER,
	CAUSALPROF_A_AGG_ENTRIES,
	CAUSALPROF_A_GO_LABELS,
	CAUSALPROF_A_GO_HOOKS,
	CAUSALPROF_A_DRAIN_MS,
	__CAUSALPROF_A_LAST
};
#define CAUSALPROF_A_MAX (__CAUSALPROF_A_LAST - 1)

/* Inside CAUSALPROF_A_EVENTS */
enum causalprof_events_attr {
	CAUSALPROF_EVENTS_A_UNSPEC,
	CAUSALPROF_EVENTS_A_EVENT,
	__CAUSALPROF_EVENTS_A_LAST
};
#define CAUSALPROF_EVENTS_A_MAX (__CAUSALPROF_EVENTS_A_LAST - 1)
/* Its first spelling, without its nest's prefix. */
#define CAUSALPROF_A_EVENT CAUSALPROF_EVENTS_A_EVENT

/* Inside CAUSALPROF_EVENTS_A_EVENT */
enum causalprof_event_attr {
	CAUSALPROF_EV_A_UNSPEC,
	CAUSALPROF_EV_A_PAD,
	CAUSALPROF_EV_A_TYPE,
	CAUSALPROF_EV_A_CONFIG,
	CAUSALPROF_EV_A_PERIOD,
	CAUSALPROF_EV_A_FREQ,
	CAUSALPROF_EV_A_NAME,
	__CAUSALPROF_EV_A_LAST
};
#define CAUSALPROF_EV_A_MAX (__CAUSALPROF_EV_A_LAST - 1)

/* Inside CAUSALPROF_A_STATS: module-wide counters since load, NLA_U64 */
enum causalprof_stat {
	CAUSALPROF_STAT_UNSPEC,
	CAUSALPROF_STAT_PAD,
	CAUSALPROF_STAT_SESSIONS,	/* sessions started */
	CAUSALPROF_STAT_SAMPLES,	/* samples stored in a ring */
	CAUSALPROF_STAT_LOST,		/* samples dropped (ring full, send failed) */
	CAUSALPROF_STAT_OVERFLOWS,	/* overflow handler calls */
	CAUSALPROF_STAT_RECORDS_SENT,	/* records delivered to owners */
	CAUSALPROF_STAT_SIDEBAND_LOST,	/* mmap/comm/fork/exit records dropped */
	CAUSALPROF_STAT_TARGET_OVERFLOW, /* processes not followed: table full */
	CAUSALPROF_STAT_RECORDS_DROPPED, /* records never delivered: no owner,
					  * owner gone, not reading at stop,
					  * or the discard_samples knob
					  */
	CAUSALPROF_STAT_AGG_FALLBACK,	/* aggregated sessions' samples sent as
					  * SAMPLE records: count table full
					  */
	CAUSALPROF_STAT_GO_LABELS,	/* samples that carry Go labels */
	CAUSALPROF_STAT_GO_LABELS_CUT,	/* of those, labels cut at the bounds */
	CAUSALPROF_STAT_GO_LABELS_FAULT, /* samples whose labels could not be
					  * read: a fault, or a layout that
					  * makes no sense
					  */
	CAUSALPROF_STAT_OFF_CPU,	/* off-CPU waits recorded */
	CAUSALPROF_STAT_OFF_CPU_LOST,	/* waits not recorded, whatever the
					  * reason: the three below, and a
					  * ring full when they ended
					  */
	CAUSALPROF_STAT_OFF_CPU_CAPPED,	/* of those, over max_off_cpu_rate */
	CAUSALPROF_STAT_OFF_CPU_UNTRACKED, /* of those, no room in the thread
					  * table (off_cpu_threads)
					  */
	__CAUSALPROF_STAT_LAST
};
#define CAUSALPROF_STAT_MAX (__CAUSALPROF_STAT_LAST - 1)

/* Inside CAUSALPROF_A_GO_LABELS */
enum causalprof_go_attr {
	CAUSALPROF_GO_A_UNSPEC,
	CAUSALPROF_GO_A_FORMAT,
	CAUSALPROF_GO_A_TLS_G,
	CAUSALPROF_GO_A_G_M,
	CAUSALPROF_GO_A_M_CURG,
	CAUSALPROF_GO_A_G_LABELS,
	__CAUSALPROF_GO_A_LAST
};
#define CAUSALPROF_GO_A_MAX (__CAUSALPROF_GO_A_LAST - 1)

/*
 * How a Go runtime keeps a goroutine's labels (g.labels):
 * MAP: a pointer to a map[string]string (runtime/pprof's labelMap of Go
 * 1.9 to 1.23), a runtime.hmap with buckets of 8 string keys and 8 string
 * values. Go 1.24 keeps a sorted slice and its maps are Swiss tables:
 * not read.
 */
enum causalprof_go_format {
	CAUSALPROF_GO_FORMAT_UNSPEC,
	CAUSALPROF_GO_FORMAT_MAP,
	__CAUSALPROF_GO_FORMAT_LAST
};

/* Inside CAUSALPROF_A_EXPERIMENT */
enum causalprof_exp_attr {
	CAUSALPROF_EXP_A_UNSPEC,
	CAUSALPROF_EXP_A_SPEEDUP,
	CAUSALPROF_EXP_A_RANGE,
	__CAUSALPROF_EXP_A_LAST
};
#define CAUSALPROF_EXP_A_MAX (__CAUSALPROF_EXP_A_LAST - 1)

/* Inside CAUSALPROF_EXP_A_RANGE */
enum causalprof_range_attr {
	CAUSALPROF_RANGE_A_UNSPEC,
	CAUSALPROF_RANGE_A_PAD,
	CAUSALPROF_RANGE_A_PID,
	CAUSALPROF_RANGE_A_START,
	CAUSALPROF_RANGE_A_END,
	__CAUSALPROF_RANGE_A_LAST
};
#define CAUSALPROF_RANGE_A_MAX (__CAUSALPROF_RANGE_A_LAST - 1)

enum causalprof_pp_kind {
	CAUSALPROF_PP_THROUGHPUT,
	CAUSALPROF_PP_LATENCY,
};

/* Inside CAUSALPROF_A_PROGRESS */
enum causalprof_pp_attr {
	CAUSALPROF_PP_A_UNSPEC,
	CAUSALPROF_PP_A_PAD,
	CAUSALPROF_PP_A_ID,
	CAUSALPROF_PP_A_KIND,
	CAUSALPROF_PP_A_PATH,
	CAUSALPROF_PP_A_OFFSET,
	CAUSALPROF_PP_A_END_OFFSET,
	CAUSALPROF_PP_A_VISIT_NS,
	CAUSALPROF_PP_A_END_VISIT_NS,
	CAUSALPROF_PP_A_SITES,
	CAUSALPROF_PP_A_END_SITES,
	CAUSALPROF_PP_A_STACK_CHECKS,
	CAUSALPROF_PP_A_END_STACK_CHECKS,
	__CAUSALPROF_PP_A_LAST
};
#define CAUSALPROF_PP_A_MAX (__CAUSALPROF_PP_A_LAST - 1)

/* Inside CAUSALPROF_PP_A_SITES and CAUSALPROF_PP_A_END_SITES */
enum causalprof_sites_attr {
	CAUSALPROF_SITES_A_UNSPEC,
	CAUSALPROF_SITES_A_PAD,
	CAUSALPROF_SITES_A_OFFSET,
	__CAUSALPROF_SITES_A_LAST
};
#define CAUSALPROF_SITES_A_MAX (__CAUSALPROF_SITES_A_LAST - 1)

/* Inside CAUSALPROF_A_GO_HOOKS */
enum causalprof_gohooks_attr {
	CAUSALPROF_GOHOOKS_A_UNSPEC,
	CAUSALPROF_GOHOOKS_A_PAD,
	CAUSALPROF_GOHOOKS_A_PATH,
	CAUSALPROF_GOHOOKS_A_HOOK,
	__CAUSALPROF_GOHOOKS_A_LAST
};
#define CAUSALPROF_GOHOOKS_A_MAX (__CAUSALPROF_GOHOOKS_A_LAST - 1)

/* Inside CAUSALPROF_GOHOOKS_A_HOOK */
enum causalprof_gohook_attr {
	CAUSALPROF_GOHOOK_A_UNSPEC,
	CAUSALPROF_GOHOOK_A_PAD,
	CAUSALPROF_GOHOOK_A_KIND,
	CAUSALPROF_GOHOOK_A_OFFSET,
	CAUSALPROF_GOHOOK_A_VISIT_NS,
	CAUSALPROF_GOHOOK_A_FLAGS,
	__CAUSALPROF_GOHOOK_A_LAST
};
#define CAUSALPROF_GOHOOK_A_MAX (__CAUSALPROF_GOHOOK_A_LAST - 1)

/* CAUSALPROF_GOHOOK_A_FLAGS */
enum {
	CAUSALPROF_GOHOOK_F_STACK_CHECK	= 1U << 0,	/* at the stack check's jbe */
	CAUSALPROF_GOHOOK_F_ARG2	= 1U << 1,	/* the goroutine in RBX, not RAX */
	__CAUSALPROF_GOHOOK_F_ALL	= (1U << 2) - 1
};

/*
 * What a Go hook's uprobe marks; at each, RAX holds the goroutine (cprof
 * probes the functions named at their stack check's jbe, or at their
 * entry when they have none, where the register ABI's first argument is
 * still in RAX; and for SPAWN newproc's call of runqput(pp, g), g in RBX,
 * or newproc1's exits, where its result is in RAX).
 */
enum causalprof_go_hook {
	CAUSALPROF_GO_READY,	/* made runnable by current (runtime.ready) */
	CAUSALPROF_GO_EXECUTE,	/* current starts running it (runtime.execute) */
	CAUSALPROF_GO_PARK,	/* current stops running it, to wait (runtime.park_m) */
	CAUSALPROF_GO_YIELD,	/* current stops running it, runnable (runtime.goschedImpl,
				 * goyield_m, exitsyscall0)
				 */
	CAUSALPROF_GO_SPAWN,	/* created by current (runtime.newproc1) */
	CAUSALPROF_GO_MONITOR,	/* current is the runtime's monitor thread, which
				 * runs no goroutine (runtime.sysmon, at its
				 * start; the goroutine is not read): it pays
				 * no delay and passes none on. Optional
				 */
	__CAUSALPROF_GO_HOOK_MAX
};
#define CAUSALPROF_GO_HOOK_MAX (__CAUSALPROF_GO_HOOK_MAX - 1)

/* The most a visit of a probe may be said to cost (CAUSALPROF_PP_A_VISIT_NS), ns */
#define CAUSALPROF_MAX_VISIT_NS	10000000

/*
 * Stream records. The same records, unchanged, make up the body of a
 * recording file (Documentation/recording-format.rst), so a reader that
 * understands one understands the other. Every record starts with this
 * header; size counts the header and is a multiple of 8. Readers skip
 * record types they do not know.
 */
struct causalprof_record_hdr {
	__u16	type;		/* enum causalprof_record_type */
	__u16	flags;
	__u32	size;
};

enum causalprof_record_type {
	CAUSALPROF_REC_SAMPLE = 1,
	CAUSALPROF_REC_MMAP,
	CAUSALPROF_REC_COMM,
	CAUSALPROF_REC_FORK,
	CAUSALPROF_REC_EXIT,
	CAUSALPROF_REC_LOST,
	CAUSALPROF_REC_END,
	CAUSALPROF_REC_EXPERIMENT,
	CAUSALPROF_REC_STACK,
	CAUSALPROF_REC_COUNT,
	CAUSALPROF_REC_DENIED,
	CAUSALPROF_REC_OFF_CPU,
	CAUSALPROF_REC_OFF_CPU_COUNT,
	__CAUSALPROF_REC_MAX
};

/*
 * A sample: the thread that ran, when, which event, and its weight (the
 * number of events, or nanoseconds for cpu-clock, that this sample stands
 * for). ips[] holds nr_kernel kernel addresses, innermost first, then
 * nr_user user addresses, innermost first. ips[0] (or ips[nr_kernel] when
 * the sample hit user mode) is the interrupted IP; later entries are
 * return addresses.
 */
struct causalprof_sample {
	struct causalprof_record_hdr hdr;
	__u64	time_ns;	/* CLOCK_MONOTONIC */
	__u64	period;		/* weight */
	__u32	pid;		/* thread group id */
	__u32	tid;
	__u16	cpu;
	__u8	event;		/* index in the session's event list */
	__u8	sflags;		/* CAUSALPROF_SAMPLE_F_* */
	__u16	nr_kernel;
	__u16	nr_user;
	__u64	ips[];
};

#define CAUSALPROF_SAMPLE_F_USER	(1U << 0)	/* interrupted in user mode */
#define CAUSALPROF_SAMPLE_F_TRUNCATED	(1U << 1)	/* stack cut at the limit */
#define CAUSALPROF_SAMPLE_F_GO_LABELS	(1U << 2)	/* Go labels after ips[] */

/*
 * With CAUSALPROF_SAMPLE_F_GO_LABELS in sflags, a SAMPLE's ips[] (and a
 * STACK's: the labels are part of the stack's id) is followed by the pprof
 * labels of the goroutine the sample's thread ran (CAUSALPROF_A_GO_LABELS):
 * this header, then lens[2 * nr], the lengths of the first label's key and
 * value, of the second's, ..., then those len bytes of strings in that
 * order, with no NUL, then padding to 8. A goroutine without labels (or a
 * thread running none, or a sample whose labels could not be read) gives
 * no block and no flag. At most CAUSALPROF_GO_LABELS_MAX labels and
 * CAUSALPROF_GO_LABELS_BYTES bytes of strings: a set beyond that keeps the
 * labels that fit whole, in the order the map holds them (not sorted), and
 * has CAUSALPROF_GO_LABELS_F_CUT.
 */
#define CAUSALPROF_GO_LABELS_MAX	8
#define CAUSALPROF_GO_LABELS_BYTES	256
#define CAUSALPROF_GO_LABELS_F_CUT	(1U << 0)

struct causalprof_go_labels {
	__u8	nr;		/* labels */
	__u8	flags;		/* CAUSALPROF_GO_LABELS_F_* */
	__u16	len;		/* bytes of strings after lens[] */
	__u32	pad;
	__u16	lens[];		/* 2 * nr, then the strings */
};

/*
 * An executable mapping of a target process: its file's path, the name of
 * a special mapping ("[vdso]"), or CAUSALPROF_MMAP_ANON for anonymous code
 * (a JIT's; pgoff 0). Reported for the mappings a process has when the
 * session starts, and for every new one (mprotect() making memory
 * executable included). A FORK's new process starts with its parent's
 * mappings.
 */
#define CAUSALPROF_MMAP_ANON	"//anon"

struct causalprof_mmap {
	struct causalprof_record_hdr hdr;
	__u64	time_ns;
	__u32	pid;
	__u32	pad;
	__u64	start;
	__u64	len;
	__u64	pgoff;		/* file offset of start, in bytes */
	char	path[];		/* NUL-terminated, then padded */
};

/*
 * hdr.flags of a COMM record: the task exec()ed; the process's mappings
 * reported before this record are gone, those after it are the new image's.
 */
#define CAUSALPROF_COMM_F_EXEC		(1U << 0)

struct causalprof_comm {
	struct causalprof_record_hdr hdr;
	__u64	time_ns;
	__u32	pid;
	__u32	tid;
	char	comm[16];
};

/* FORK: a new thread or process; EXIT: a thread ended. */
struct causalprof_task {
	struct causalprof_record_hdr hdr;
	__u64	time_ns;
	__u32	pid;
	__u32	tid;
	__u32	ppid;		/* parent's pid (FORK only) */
	__u32	ptid;		/* parent's tid (FORK only) */
};

/*
 * Samples dropped on one CPU since the previous LOST record of that CPU.
 * With CAUSALPROF_LOST_F_SIDEBAND in hdr.flags, lost instead counts MMAP,
 * COMM, FORK, EXIT and EXPERIMENT records dropped (all CPUs) since the
 * previous such record, and cpu is CAUSALPROF_LOST_CPU_NONE. With
 * CAUSALPROF_LOST_F_OFF_CPU, lost counts the off-CPU waits that CPU did
 * not record since its previous such record, whatever the reason (see
 * struct causalprof_off_cpu).
 */
#define CAUSALPROF_LOST_F_SIDEBAND	(1U << 0)
#define CAUSALPROF_LOST_F_OFF_CPU	(1U << 1)
#define CAUSALPROF_LOST_CPU_NONE	0xffffffffU

struct causalprof_lost {
	struct causalprof_record_hdr hdr;
	__u64	time_ns;
	__u64	lost;
	__u32	cpu;
	__u32	pad;
};

/*
 * Last record of a session. samples counts the samples stored, whether
 * streamed as SAMPLE records or counted in COUNT records. fallback (only
 * in an END of hdr.size 40 or more: modules before aggregation sent 32
 * bytes) counts those of an aggregated session that went out as SAMPLE
 * records because their CPU's count table was full; always 0 without
 * CAUSALPROF_F_AGGREGATE. The off-CPU fields (an END of hdr.size 64 or
 * more) count the waits of a CAUSALPROF_F_OFF_CPU session: recorded
 * (OFF_CPU records, and the count of OFF_CPU_COUNT records), and not,
 * whatever the reason; all 0 without the flag.
 */
struct causalprof_end {
	struct causalprof_record_hdr hdr;
	__u64	time_ns;
	__u64	samples;	/* samples of this session */
	__u64	lost;		/* samples of this session dropped */
	__u64	fallback;	/* of samples, sent as SAMPLE: table full */
	__u64	off_cpu;	/* off-CPU waits recorded */
	__u64	off_cpu_lost;	/* waits not recorded */
	__u64	off_cpu_capped;	/* of those, over the module's max_off_cpu_rate */
};

/*
 * Aggregated sessions (CAUSALPROF_F_AGGREGATE). Each CPU counts its
 * samples in a table keyed by (tid, event, stack) and, at every drain,
 * streams one COUNT record per key: count samples of total weight weight
 * (the sum of their periods), the first taken at time_ns. The stack is
 * named by id, a 64-bit hash of its frames, nr_kernel, nr_user, sflags
 * and Go labels: the same stack has the same id on every CPU of a
 * session. A STACK record carries the frames of an id, laid out as a
 * SAMPLE's ips[] (and its Go labels after them, as a SAMPLE's); each
 * CPU sends the STACK of an id the first time one of its samples has
 * that stack (so the same STACK may come once per CPU),
 * in the same or an earlier message than the first COUNT that names it:
 * a reader keeps the STACKs it has seen for the whole session. A reader
 * that finds a COUNT whose id it has no STACK for has a damaged stream.
 * (Ids are not checked for collisions: two different stacks of the same
 * 64-bit hash would count as the first one seen.) A CPU remembers the ids
 * it has sent in a set of bounded size; a STACK it could not remember
 * comes with CAUSALPROF_STACK_F_AGAIN in hdr.flags: that CPU sends it
 * again before any COUNT of a later drain that names it, so a reader that
 * must bound its memory may forget it once the drain's COUNTs are read.
 *
 * A sample that finds its CPU's table full is streamed as a SAMPLE record,
 * and counted in END's fallback and in CAUSALPROF_STAT_AGG_FALLBACK. The
 * samples of a session are thus the sum of its COUNT records' count plus
 * its SAMPLE records, and END's samples is that sum. COUNT records are
 * not in time_ns order: they leave at the drain after their samples.
 */
#define CAUSALPROF_STACK_F_AGAIN	(1U << 0)	/* not remembered: sent again */

struct causalprof_stack {
	struct causalprof_record_hdr hdr;
	__u64	id;
	__u16	cpu;		/* the CPU that sent it */
	__u8	sflags;		/* CAUSALPROF_SAMPLE_F_* of its samples */
	__u8	pad;
	__u16	nr_kernel;
	__u16	nr_user;
	__u64	ips[];		/* as in struct causalprof_sample */
};

struct causalprof_count {
	struct causalprof_record_hdr hdr;
	__u64	time_ns;	/* the first of these samples, CLOCK_MONOTONIC */
	__u64	stack;		/* id of a STACK */
	__u64	count;		/* samples */
	__u64	weight;		/* sum of their periods */
	__u32	pid;
	__u32	tid;
	__u16	cpu;
	__u8	event;
	__u8	pad;
	__u32	pad2;
};

/*
 * The result of one experiment, streamed to the session owner when the
 * experiment stops (by EXPERIMENT_STOP; because the session stops: then
 * hdr.flags has CAUSALPROF_EXP_F_SESSION_END; or by itself after the
 * module's max_experiment_s: CAUSALPROF_EXP_F_TIMEOUT), before the
 * session's END.
 * After the fixed part come nr_ranges struct causalprof_exp_range, then
 * nr_points struct causalprof_exp_point (the progress points registered
 * when the experiment stopped), then, when hdr.flags has
 * CAUSALPROF_EXP_F_SPANS, nr_points struct causalprof_exp_span, one per
 * point in the same order. Every delta covers the experiment only: a
 * point added while it ran counts from its registration. The counters are
 * final (no payment of the experiment is made after it). The effective
 * duration is wall_ns - inserted_ns. The record travels with the MMAP,
 * COMM, FORK and EXIT records, in room kept for it: it is never lost, however
 * many of those the targets make (an experiment starts only once the last
 * one's record has left that room).
 */
#define CAUSALPROF_EXP_F_SESSION_END	(1U << 0)
#define CAUSALPROF_EXP_F_TIMEOUT	(1U << 1)	/* ran max_experiment_s: stopped */
#define CAUSALPROF_EXP_F_SPANS		(1U << 2)	/* spans follow the points */
#define CAUSALPROF_EXP_F_ACCT		(1U << 3)	/* struct causalprof_exp_acct next */
#define CAUSALPROF_EXP_F_VISITS		(1U << 4)	/* struct causalprof_exp_visits last */

struct causalprof_exp_range {
	__u32	pid;		/* thread group id, initial pid namespace */
	__u32	pad;
	__u64	start;
	__u64	end;		/* exclusive */
};

struct causalprof_exp_point {
	__u32	id;		/* CAUSALPROF_PP_A_ID */
	__u32	kind;		/* enum causalprof_pp_kind */
	__u64	count;		/* throughput: hits; latency: begins */
	__u64	ends;		/* latency: ends (0 for throughput) */
	__u64	area_ns;	/* latency: integral of the in-flight count over
				 * the experiment, ns (0 for throughput)
				 */
	__u64	inflight;	/* latency: in flight when it started */
};

/*
 * A throughput point's hits within the experiment, timed: from its first
 * hit to its last, both included, hits hits, and inserted_ns of delay was
 * inserted between them (the global delay's growth). Where a window of a
 * few hits ends matters: (last_ns - first_ns - inserted_ns) / (hits - 1)
 * is the point's period without the +-1 hit of counting hits in the
 * experiment's window. All 0 for latency points and without a hit.
 */
struct causalprof_exp_span {
	__u64	first_ns;	/* CLOCK_MONOTONIC */
	__u64	last_ns;
	__u64	inserted_ns;
	__u64	hits;
};

/*
 * How the experiment's delay was paid, for checking its accounting
 * (cprof report --causal -v). A payment asks to sleep what its thread
 * owes (at most max_pause_us) and sleeps slept ns: paid_ns is the sum of
 * slept, asked_ns the sum of asked, overshoot_ns the sum of slept - asked
 * where positive (its largest max_overshoot_ns), short_ns of asked -
 * slept where positive (a stop or a signal ended the sleep): paid_ns ==
 * asked_ns + overshoot_ns - short_ns. An overshoot is delay paid ahead:
 * the thread owes that much less later (Documentation/causal.rst). Waits:
 * credited_ns is the delay inserted while threads were blocked that
 * counted as paid, inherited_ns the debt woken threads took on from their
 * wakers beyond their own. owed_ns is what the threads not asleep still
 * owed when it stopped (never paid), owing the threads that owed it.
 * Hits: selected_ns is the time the samples that hit stand for (the
 * selected code's running time, as sampled: inserted_ns is about speedup
 * times that when the code never runs on two CPUs at once), absorbed_ns
 * the part of speedup * selected_ns that raised no global delay because
 * its thread was behind (it cancelled a debt of the thread's own). wake_queued and
 * sample_queued count the payments queued on a wake-up and on a sample.
 */
struct causalprof_exp_acct {
	__u64	asked_ns;
	__u64	overshoot_ns;
	__u64	max_overshoot_ns;
	__u64	short_ns;
	__u64	credited_ns;
	__u64	inherited_ns;
	__u64	owed_ns;
	__u64	owing;
	__u64	wake_queued;
	__u64	sample_queued;
	__u64	selected_ns;
	__u64	absorbed_ns;
};

/*
 * Progress points' visits during the experiment that were counted as
 * pauses (CAUSALPROF_PP_A_VISIT_NS): visits hits of probes with a visit
 * cost, in target threads, and visit_ns their costs summed. A visit by a
 * thread that owed nothing raised the global delay by its cost (the
 * others owe it too, and inserted_ns counts it); one by a thread that owed
 * paid that much of its debt.
 */
struct causalprof_exp_visits {
	__u64	visits;
	__u64	visit_ns;
};

struct causalprof_experiment {
	struct causalprof_record_hdr hdr;
	__u64	time_ns;	/* when it stopped (CLOCK_MONOTONIC) */
	__u64	start_ns;	/* when it started */
	__u64	wall_ns;	/* time_ns - start_ns */
	__u64	inserted_ns;	/* global delay at the end (0 at the start) */
	__u64	hits;		/* samples that hit the selected code */
	__u64	payments;	/* sleeps paid */
	__u64	paid_ns;	/* total time slept in payments */
	__u64	capped;		/* payments cut at max_pause_us */
	__u64	inherited;	/* wake-ups that raised a local delay */
	__u64	table_full;	/* threads not delayed: task table full */
	__u32	id;		/* experiment number within the module */
	__u32	speedup;	/* per mille */
	__u32	tasks_paid;	/* threads that paid at least once */
	__u16	nr_ranges;
	__u16	nr_points;
	/* struct causalprof_exp_range ranges[nr_ranges]; */
	/* struct causalprof_exp_point points[nr_points]; */
	/* struct causalprof_exp_span spans[nr_points]; with CAUSALPROF_EXP_F_SPANS */
	/* struct causalprof_exp_acct acct; with CAUSALPROF_EXP_F_ACCT */
};

/*
 * Off-CPU time (CAUSALPROF_F_OFF_CPU). Each time a thread of a target
 * leaves its CPU of its own accord (the scheduler switches it out without
 * preempting it, its state not TASK_RUNNING: it blocks or sleeps; not its
 * last switch, as it exits), the module takes its stacks, as a sample's
 * (ips[] as in struct causalprof_sample, nr_kernel then nr_user; sflags
 * CAUSALPROF_SAMPLE_F_TRUNCATED at most, never _USER nor _GO_LABELS), and
 * when it runs again, records how long it was off: wait_ns from leaving
 * to its wake-up (sched_waking: when its waker woke it), delay_ns from
 * the wake-up to the switch that runs it again (the run queue's delay).
 * Every address is a return address: the kernel part starts in
 * __schedule() and goes out to the system call's entry; the user part
 * starts at the instruction after the system call (or the faulting one)
 * and follows the frame pointers, as a sample taken in the kernel. With
 * CAUSALPROF_OFF_CPU_F_NO_WAKE in hdr.flags, no wake-up was seen (a
 * wake-up that raced with the switch-out, a signal that kept the thread
 * runnable): wait_ns is all the time off, delay_ns 0. Without
 * CAUSALPROF_F_KERNEL_STACK there are no kernel addresses; without
 * CAUSALPROF_F_USER_STACK the user part is the user address alone.
 *
 * reason is what the kernel knows of the wait when the thread leaves
 * (enum causalprof_off_cpu_reason): I/O when the thread waits in
 * io_schedule() (in_iowait: block I/O, a page fault that reads a file,
 * fsync); else FUTEX or SLEEP by the system call it is in (a 64-bit
 * task's futex(), futex_waitv(), futex_wait(); nanosleep(),
 * clock_nanosleep()); else OTHER (a pipe, a socket, poll, a lock in the
 * kernel, a stopped or traced thread, a kernel thread).
 *
 * Raw sessions get one OFF_CPU record per wait, written by the CPU that
 * runs the thread again, when it does: time_ns is when it left, so they
 * are not in time_ns order with that CPU's samples. Aggregated sessions
 * (CAUSALPROF_F_AGGREGATE) count the waits in the same tables as samples,
 * by (tid, stack, reason), and send one OFF_CPU_COUNT per key at every
 * drain, naming a STACK as COUNT does (the ids of samples and waits are
 * the same for the same frames); a wait that finds its CPU's table full
 * is sent as an OFF_CPU record. A wait whose thread did not run again
 * before the session stopped is not recorded, nor counted.
 *
 * The waits a CPU does not record are counted in LOST records with
 * CAUSALPROF_LOST_F_OFF_CPU and in END: over the module's
 * max_off_cpu_rate (waits recorded per second per CPU), no room in the
 * module's table of threads (off_cpu_threads), or a ring that was full
 * when the wait ended.
 */
enum causalprof_off_cpu_reason {
	CAUSALPROF_OFF_CPU_OTHER,
	CAUSALPROF_OFF_CPU_IO,
	CAUSALPROF_OFF_CPU_FUTEX,
	CAUSALPROF_OFF_CPU_SLEEP,
	__CAUSALPROF_OFF_CPU_REASONS
};

#define CAUSALPROF_OFF_CPU_F_NO_WAKE	(1U << 0)

struct causalprof_off_cpu {
	struct causalprof_record_hdr hdr;
	__u64	time_ns;	/* when it left its CPU (CLOCK_MONOTONIC) */
	__u64	wait_ns;	/* from then to its wake-up */
	__u64	delay_ns;	/* from its wake-up to running again */
	__u32	pid;		/* thread group id */
	__u32	tid;
	__u16	cpu;		/* the CPU that ran it again */
	__u8	reason;		/* enum causalprof_off_cpu_reason */
	__u8	sflags;		/* CAUSALPROF_SAMPLE_F_TRUNCATED */
	__u16	nr_kernel;
	__u16	nr_user;
	__u64	ips[];
};

/* count waits of thread tid with stack stack and reason reason */
struct causalprof_off_cpu_count {
	struct causalprof_record_hdr hdr;
	__u64	time_ns;	/* when the first of them began */
	__u64	stack;		/* id of a STACK */
	__u64	count;		/* waits */
	__u64	wait_ns;	/* their waits, summed */
	__u64	delay_ns;	/* their run-queue delays, summed */
	__u32	pid;
	__u32	tid;
	__u16	cpu;		/* the CPU that counted them (where they ended) */
	__u8	reason;
	__u8	pad;
	__u32	pad2;
};

/*
 * A target process the session may no longer change: it changed its
 * credentials (exec of a setuid or setcap file, set*id()) since the
 * change was allowed, and whoever made it may no longer ptrace-attach it
 * (Documentation/security.rst). With CAUSALPROF_DENIED_F_POINT, progress
 * point point stops counting the process's passes (its count stays what it
 * was) and its breakpoint leaves the process's memory, or never enters
 * the image it execs; sent once for each point and process, from the
 * thread tid that mapped the probed file or hit the breakpoint. With
 * CAUSALPROF_DENIED_F_DELAYS (point 0), thread tid is not delayed any more
 * in the running experiment; sent once for each thread and experiment.
 * With CAUSALPROF_DENIED_F_GO (point 0), the session's Go hooks stop
 * following the process's goroutines and leave its memory as a point's
 * breakpoints do; sent as a point's is.
 */
#define CAUSALPROF_DENIED_F_POINT	(1U << 0)
#define CAUSALPROF_DENIED_F_DELAYS	(1U << 1)
#define CAUSALPROF_DENIED_F_GO		(1U << 2)

struct causalprof_denied {
	struct causalprof_record_hdr hdr;
	__u64	time_ns;
	__u32	pid;		/* thread group id */
	__u32	tid;
	__u32	point;		/* CAUSALPROF_PP_A_ID, with CAUSALPROF_DENIED_F_POINT */
	__u32	pad;
};

#endif /* _UAPI_LINUX_CAUSALPROF_H */
