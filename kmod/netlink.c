// SPDX-License-Identifier: GPL-2.0
/*
 * The generic netlink family: parses and checks each request, calls the
 * session layer, and carries a session's records to its owner's socket.
 */

#include "agg.h"
#include "causal.h"
#include "compat.h"
#include "events.h"
#include "gohooks.h"
#include "netlink.h"
#include "progress.h"
#include "request.h"
#include "session.h"
#include "stats.h"

#include <linux/capability.h>
#include <linux/init.h>
#include <linux/limits.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <net/genetlink.h>
#include <net/sock.h>

#include <causalprof/tables.h>

/*
 * Range checks are done by hand: the policy's would fail with -ERANGE, and
 * the protocol promises -EINVAL for every invalid request.
 */
static const struct nla_policy event_policy[CAUSALPROF_EV_A_MAX + 1] = {
	[CAUSALPROF_EV_A_TYPE]		= { .type = NLA_U32 },
	[CAUSALPROF_EV_A_CONFIG]	= { .type = NLA_U64 },
	[CAUSALPROF_EV_A_PERIOD]	= { .type = NLA_U64 },
	[CAUSALPROF_EV_A_FREQ]		= { .type = NLA_U32 },
	[CAUSALPROF_EV_A_NAME]		= { .type = NLA_NUL_STRING, .len = CP_EVENT_NAME_LEN - 1 },
};

static const struct nla_policy events_policy[CAUSALPROF_EVENTS_A_MAX + 1] = {
	[CAUSALPROF_EVENTS_A_EVENT]	= NLA_POLICY_NESTED(event_policy),
};

static const struct nla_policy go_policy[CAUSALPROF_GO_A_MAX + 1] = {
	[CAUSALPROF_GO_A_FORMAT]	= { .type = NLA_U32 },
	[CAUSALPROF_GO_A_TLS_G]		= { .type = NLA_S32 },
	[CAUSALPROF_GO_A_G_M]		= { .type = NLA_U32 },
	[CAUSALPROF_GO_A_M_CURG]	= { .type = NLA_U32 },
	[CAUSALPROF_GO_A_G_LABELS]	= { .type = NLA_U32 },
};

static const struct nla_policy start_policy[CAUSALPROF_A_MAX + 1] = {
	[CAUSALPROF_A_TARGET_PID]	= { .type = NLA_U32 },
	[CAUSALPROF_A_FLAGS]		= NLA_POLICY_MASK(NLA_U32, __CAUSALPROF_F_ALL),
	[CAUSALPROF_A_EVENTS]		= NLA_POLICY_NESTED(events_policy),
	[CAUSALPROF_A_AGG_ENTRIES]	= { .type = NLA_U32 },
	[CAUSALPROF_A_GO_LABELS]	= NLA_POLICY_NESTED(go_policy),
	[CAUSALPROF_A_DRAIN_MS]		= { .type = NLA_U32 },
};

static const struct nla_policy range_policy[CAUSALPROF_RANGE_A_MAX + 1] = {
	[CAUSALPROF_RANGE_A_PID]	= { .type = NLA_U32 },
	[CAUSALPROF_RANGE_A_START]	= { .type = NLA_U64 },
	[CAUSALPROF_RANGE_A_END]	= { .type = NLA_U64 },
};

static const struct nla_policy exp_policy[CAUSALPROF_EXP_A_MAX + 1] = {
	[CAUSALPROF_EXP_A_SPEEDUP]	= { .type = NLA_U32 },
	[CAUSALPROF_EXP_A_RANGE]	= NLA_POLICY_NESTED(range_policy),
};

static const struct nla_policy exp_start_policy[CAUSALPROF_A_MAX + 1] = {
	[CAUSALPROF_A_EXPERIMENT]	= NLA_POLICY_NESTED(exp_policy),
};

/* For commands that take no attribute: every one is rejected. */
static const struct nla_policy no_attr_policy[CAUSALPROF_A_MAX + 1] = {};

/* Not const: 6.1's struct nla_policy points to a non-const one. */
static struct netlink_range_validation visit_range = {
	.max = CAUSALPROF_MAX_VISIT_NS,
};

static const struct nla_policy sites_policy[CAUSALPROF_SITES_A_MAX + 1] = {
	[CAUSALPROF_SITES_A_OFFSET]	= { .type = NLA_U64 },
};

static const struct nla_policy pp_add_policy[CAUSALPROF_PP_A_MAX + 1] = {
	[CAUSALPROF_PP_A_ID]		= { .type = NLA_U32 },
	[CAUSALPROF_PP_A_KIND]		= { .type = NLA_U32 },
	[CAUSALPROF_PP_A_PATH]		= { .type = NLA_NUL_STRING, .len = PATH_MAX - 1 },
	[CAUSALPROF_PP_A_OFFSET]	= { .type = NLA_U64 },
	[CAUSALPROF_PP_A_END_OFFSET]	= { .type = NLA_U64 },
	[CAUSALPROF_PP_A_VISIT_NS]	= NLA_POLICY_FULL_RANGE(NLA_U32, &visit_range),
	[CAUSALPROF_PP_A_END_VISIT_NS]	= NLA_POLICY_FULL_RANGE(NLA_U32, &visit_range),
	[CAUSALPROF_PP_A_SITES]		= NLA_POLICY_NESTED(sites_policy),
	[CAUSALPROF_PP_A_END_SITES]	= NLA_POLICY_NESTED(sites_policy),
	[CAUSALPROF_PP_A_STACK_CHECKS]	= { .type = NLA_U64 },
	[CAUSALPROF_PP_A_END_STACK_CHECKS] = { .type = NLA_U64 },
};

static const struct nla_policy progress_add_policy[CAUSALPROF_A_MAX + 1] = {
	[CAUSALPROF_A_PROGRESS]		= NLA_POLICY_NESTED(pp_add_policy),
};

static const struct nla_policy pp_del_policy[CAUSALPROF_PP_A_MAX + 1] = {
	[CAUSALPROF_PP_A_ID]		= { .type = NLA_U32 },
};

static const struct nla_policy progress_del_policy[CAUSALPROF_A_MAX + 1] = {
	[CAUSALPROF_A_PROGRESS]		= NLA_POLICY_NESTED(pp_del_policy),
};

static const struct nla_policy gohook_policy[CAUSALPROF_GOHOOK_A_MAX + 1] = {
	[CAUSALPROF_GOHOOK_A_KIND]	= NLA_POLICY_MAX(NLA_U32, CAUSALPROF_GO_HOOK_MAX),
	[CAUSALPROF_GOHOOK_A_OFFSET]	= { .type = NLA_U64 },
	[CAUSALPROF_GOHOOK_A_VISIT_NS]	= NLA_POLICY_FULL_RANGE(NLA_U32, &visit_range),
	[CAUSALPROF_GOHOOK_A_FLAGS]	= NLA_POLICY_MASK(NLA_U32, __CAUSALPROF_GOHOOK_F_ALL),
};

static const struct nla_policy gohooks_policy[CAUSALPROF_GOHOOKS_A_MAX + 1] = {
	[CAUSALPROF_GOHOOKS_A_PATH]		= { .type = NLA_NUL_STRING, .len = PATH_MAX - 1 },
	[CAUSALPROF_GOHOOKS_A_HOOK]		= NLA_POLICY_NESTED(gohook_policy),
};

static const struct nla_policy go_hooks_policy[CAUSALPROF_A_MAX + 1] = {
	[CAUSALPROF_A_GO_HOOKS]	= NLA_POLICY_NESTED(gohooks_policy),
};

static struct genl_family genl_family;

/* genl_ops.internal_flags: the command controls a session. */
#define CP_NL_CONTROL		BIT(0)

/*
 * Every command that controls a session needs CAP_PERFMON or
 * CAP_SYS_ADMIN, of both the socket's opener and the sender, checked once
 * here, after the policy and before the command. Whether the caller may
 * change the session's targets depends on them, and the session layer
 * checks it per command (see may_change()).
 */
static int pre_doit(const struct cp_genl_pre_ops *ops, struct sk_buff *skb,
		    struct genl_info *info)
{
	if (!(ops->internal_flags & CP_NL_CONTROL))
		return 0;
	if (netlink_capable(skb, CAP_PERFMON) || netlink_capable(skb, CAP_SYS_ADMIN))
		return 0;
	GENL_SET_ERR_MSG(info, "controlling a session needs CAP_PERFMON or CAP_SYS_ADMIN");
	return -EPERM;
}

static int fill_status(struct sk_buff *msg, const struct cp_status *st)
{
	struct nlattr *stats;
	int i;

	if (nla_put_string(msg, CAUSALPROF_A_VERSION, CAUSALPROF_VERSION) ||
	    nla_put_u32(msg, CAUSALPROF_A_STATE, st->state) ||
	    nla_put_u64_64bit(msg, CAUSALPROF_A_SESSION_ID, st->id, CAUSALPROF_A_PAD))
		return -EMSGSIZE;
	if (st->state != CAUSALPROF_STATE_IDLE) {
		if (nla_put_u32(msg, CAUSALPROF_A_FLAGS, st->flags))
			return -EMSGSIZE;
		if (nla_put_u32(msg, CAUSALPROF_A_OWNER, st->owner))
			return -EMSGSIZE;
		if (st->has_target && nla_put_u32(msg, CAUSALPROF_A_TARGET_PID, st->target_pid))
			return -EMSGSIZE;
	}

	stats = nla_nest_start(msg, CAUSALPROF_A_STATS);
	if (!stats)
		return -EMSGSIZE;
	for_each_cp_stat(i)
		if (nla_put_u64_64bit(msg, i, cp_stat_read(i), CAUSALPROF_STAT_PAD))
			return -EMSGSIZE;
	nla_nest_end(msg, stats);
	return 0;
}

static int get_status(struct sk_buff *skb, struct genl_info *info)
{
	struct cp_status st;
	struct sk_buff *msg;
	void *hdr;
	int ret;

	ret = cp_session_status(&st);
	if (ret) {
		GENL_SET_ERR_MSG(info, "interrupted while waiting for the session");
		return ret;
	}

	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg) {
		GENL_SET_ERR_MSG(info, "out of memory for the status reply");
		return -ENOMEM;
	}
	hdr = genlmsg_put_reply(msg, info, &genl_family, 0, CAUSALPROF_CMD_GET_STATUS);
	if (!hdr) {
		ret = -EMSGSIZE;
		goto err_free_msg;
	}
	ret = fill_status(msg, &st);
	if (ret)
		goto err_free_msg;
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);

err_free_msg:
	GENL_SET_ERR_MSG(info, "status reply does not fit a message");
	nlmsg_free(msg);
	return ret;
}

static int parse_event(const struct nlattr *nest, struct cp_event *ev,
		       struct netlink_ext_ack *extack)
{
	struct nlattr *tb[CAUSALPROF_EV_A_MAX + 1], *attr;
	int ret;

	ret = nla_parse_nested(tb, CAUSALPROF_EV_A_MAX, nest, event_policy, extack);
	if (ret)
		return ret;
	if (NL_REQ_ATTR_CHECK(extack, nest, tb, CAUSALPROF_EV_A_TYPE)) {
		NL_SET_ERR_MSG(extack, "event without CAUSALPROF_EV_A_TYPE");
		return -EINVAL;
	}

	ev->type = nla_get_u32(tb[CAUSALPROF_EV_A_TYPE]);
	if (tb[CAUSALPROF_EV_A_CONFIG])
		ev->config = nla_get_u64(tb[CAUSALPROF_EV_A_CONFIG]);
	attr = tb[CAUSALPROF_EV_A_PERIOD];
	if (attr) {
		ev->period = nla_get_u64(attr);
		if (!ev->period) {
			NL_SET_ERR_MSG_ATTR(extack, attr, "event period is 0");
			return -EINVAL;
		}
	}
	attr = tb[CAUSALPROF_EV_A_FREQ];
	if (attr) {
		ev->freq = nla_get_u32(attr);
		if (!ev->freq) {
			NL_SET_ERR_MSG_ATTR(extack, attr, "event freq is 0");
			return -EINVAL;
		}
	}
	if (tb[CAUSALPROF_EV_A_NAME])
		nla_strscpy(ev->name, tb[CAUSALPROF_EV_A_NAME], sizeof(ev->name));

	ret = cp_event_validate(ev, extack);
	if (ret)
		NL_SET_BAD_ATTR(extack, nest);
	return ret;
}

static int parse_events(const struct nlattr *events, struct cp_config *cfg,
			struct netlink_ext_ack *extack)
{
	const struct nlattr *ev;
	int rem, ret;

	nla_for_each_nested(ev, events, rem) {
		if (cfg->nr_events == CAUSALPROF_MAX_EVENTS) {
			NL_SET_ERR_MSG_ATTR(extack, ev, "more than CAUSALPROF_MAX_EVENTS events");
			return -EINVAL;
		}
		ret = parse_event(ev, &cfg->events[cfg->nr_events], extack);
		if (ret)
			return ret;
		cfg->nr_events++;
	}
	return 0;
}

/*
 * A field offset of CAUSALPROF_A_GO_LABELS into *off: below 4096, a
 * multiple of 8. A macro: extack messages are string literals (6.1's
 * extack keeps a pointer to one, not a formatted copy).
 */
#define PARSE_GO_OFFSET(nest, tb, attr, off, extack) ({				\
	int __ret = -EINVAL;							\
										\
	if (NL_REQ_ATTR_CHECK(extack, nest, tb, attr)) {			\
		NL_SET_ERR_MSG(extack, "CAUSALPROF_A_GO_LABELS without " #attr);	\
	} else {								\
		*(off) = nla_get_u32(tb[attr]);					\
		if (*(off) < 4096 && !(*(off) % 8))				\
			__ret = 0;						\
		else								\
			NL_SET_ERR_MSG_ATTR(extack, tb[attr], #attr		\
					    " is not below 4096 and a multiple of 8");	\
	}									\
	__ret;									\
})

static int parse_go(const struct nlattr *nest, struct cp_config *cfg,
		    struct netlink_ext_ack *extack)
{
	struct nlattr *tb[CAUSALPROF_GO_A_MAX + 1];
	struct cp_go_layout *go = &cfg->go;
	int ret;

	if (cfg->flags & CAUSALPROF_F_SYSTEM_WIDE) {
		NL_SET_ERR_MSG_ATTR(extack, nest,
				    "CAUSALPROF_A_GO_LABELS needs a target, not CAUSALPROF_F_SYSTEM_WIDE");
		return -EINVAL;
	}
	if (!IS_ENABLED(CONFIG_X86_64)) {
		NL_SET_ERR_MSG_ATTR(extack, nest, "Go labels are read on x86-64 only");
		return -EINVAL;
	}
	ret = nla_parse_nested(tb, CAUSALPROF_GO_A_MAX, nest, go_policy, extack);
	if (ret)
		return ret;
	if (NL_REQ_ATTR_CHECK(extack, nest, tb, CAUSALPROF_GO_A_FORMAT)) {
		NL_SET_ERR_MSG(extack, "CAUSALPROF_A_GO_LABELS without CAUSALPROF_GO_A_FORMAT");
		return -EINVAL;
	}
	go->format = nla_get_u32(tb[CAUSALPROF_GO_A_FORMAT]);
	if (go->format != CAUSALPROF_GO_FORMAT_MAP) {
		NL_SET_ERR_MSG_ATTR(extack, tb[CAUSALPROF_GO_A_FORMAT],
				    "CAUSALPROF_GO_A_FORMAT is not a known format");
		return -EINVAL;
	}
	if (NL_REQ_ATTR_CHECK(extack, nest, tb, CAUSALPROF_GO_A_TLS_G)) {
		NL_SET_ERR_MSG(extack, "CAUSALPROF_A_GO_LABELS without CAUSALPROF_GO_A_TLS_G");
		return -EINVAL;
	}
	go->tls_g = nla_get_s32(tb[CAUSALPROF_GO_A_TLS_G]);
	if (go->tls_g < -4096 || go->tls_g > -8 || go->tls_g % 8) {
		NL_SET_ERR_MSG_ATTR(extack, tb[CAUSALPROF_GO_A_TLS_G],
				    "CAUSALPROF_GO_A_TLS_G is not within -4096 to -8 and a multiple of 8");
		return -EINVAL;
	}
	return PARSE_GO_OFFSET(nest, tb, CAUSALPROF_GO_A_G_M, &go->g_m, extack) ?:
	       PARSE_GO_OFFSET(nest, tb, CAUSALPROF_GO_A_M_CURG, &go->m_curg, extack) ?:
	       PARSE_GO_OFFSET(nest, tb, CAUSALPROF_GO_A_G_LABELS, &go->g_labels, extack);
}

static int parse_start(struct genl_info *info, struct cp_config *cfg)
{
	struct nlattr **attrs = info->attrs;

	if (attrs[CAUSALPROF_A_FLAGS])
		cfg->flags = nla_get_u32(attrs[CAUSALPROF_A_FLAGS]);
	if (cfg->flags & CAUSALPROF_F_SYSTEM_WIDE) {
		if (attrs[CAUSALPROF_A_TARGET_PID]) {
			NL_SET_ERR_MSG_ATTR(info->extack, attrs[CAUSALPROF_A_TARGET_PID],
					    "TARGET_PID and CAUSALPROF_F_SYSTEM_WIDE exclude each other");
			return -EINVAL;
		}
	} else {
		if (GENL_REQ_ATTR_CHECK(info, CAUSALPROF_A_TARGET_PID)) {
			GENL_SET_ERR_MSG(info, "TARGET_PID needed unless CAUSALPROF_F_SYSTEM_WIDE");
			return -EINVAL;
		}
		cfg->target_pid = nla_get_u32(attrs[CAUSALPROF_A_TARGET_PID]);
		if (!cfg->target_pid) {
			NL_SET_ERR_MSG_ATTR(info->extack, attrs[CAUSALPROF_A_TARGET_PID],
					    "TARGET_PID 0 is not a process");
			return -EINVAL;
		}
	}
	cfg->agg_entries = CP_AGG_ENTRIES_DEFAULT;
	if (attrs[CAUSALPROF_A_AGG_ENTRIES]) {
		const struct nlattr *a = attrs[CAUSALPROF_A_AGG_ENTRIES];

		if (!(cfg->flags & CAUSALPROF_F_AGGREGATE)) {
			NL_SET_ERR_MSG_ATTR(info->extack, a,
					    "CAUSALPROF_A_AGG_ENTRIES needs CAUSALPROF_F_AGGREGATE");
			return -EINVAL;
		}
		cfg->agg_entries = nla_get_u32(a);
		if (cfg->agg_entries < CP_AGG_ENTRIES_MIN ||
		    cfg->agg_entries > CP_AGG_ENTRIES_MAX) {
			NL_SET_ERR_MSG_ATTR(info->extack, a,
					    "CAUSALPROF_A_AGG_ENTRIES is not within 16 to 65536");
			return -EINVAL;
		}
	}
	if (attrs[CAUSALPROF_A_DRAIN_MS]) {
		cfg->drain_ms = nla_get_u32(attrs[CAUSALPROF_A_DRAIN_MS]);
		if (cfg->drain_ms < 1 || cfg->drain_ms > CP_DRAIN_MS_MAX) {
			NL_SET_ERR_MSG_ATTR(info->extack, attrs[CAUSALPROF_A_DRAIN_MS],
					    "CAUSALPROF_A_DRAIN_MS is not within 1 to 60000");
			return -EINVAL;
		}
	}
	if (attrs[CAUSALPROF_A_GO_LABELS]) {
		int ret = parse_go(attrs[CAUSALPROF_A_GO_LABELS], cfg, info->extack);

		if (ret)
			return ret;
	}
	if (attrs[CAUSALPROF_A_EVENTS])
		return parse_events(attrs[CAUSALPROF_A_EVENTS], cfg, info->extack);
	return 0;
}

/*
 * One CAUSALPROF_CMD_RECORDS message to a session's owner, queued on its
 * socket itself: not sent to its port id, which another socket may have
 * bound since the owner closed (see struct cp_owner). The caller holds a
 * reference on sk and has checked that it is not dead; one that dies
 * meanwhile frees the message with its queue. Never blocks: -EAGAIN when
 * the owner's receive queue is full, short of room for an ack. A message
 * the owner's socket filter refuses counts as delivered, as
 * netlink_unicast() has it. The stream calls it, as the owner's send (see
 * struct cp_owner).
 */
#define CP_ACK_ROOM	SZ_4K	/* an ack with its extack message, and its skb */

static int send_records(struct sock *sk, u64 id, const void *recs, size_t len)
{
	enum skb_drop_reason reason;
	struct sk_buff *msg;
	int ret, queued;
	void *hdr;

	msg = genlmsg_new(nla_total_size_64bit(sizeof(u64)) + nla_total_size(0) +
			  nla_total_size(len), GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = genlmsg_put(msg, 0, 0, &genl_family, 0, CAUSALPROF_CMD_RECORDS);
	if (!hdr || nla_put_u64_64bit(msg, CAUSALPROF_A_SESSION_ID, id, CAUSALPROF_A_PAD) ||
	    (!IS_ALIGNED(skb_tail_pointer(msg) - (u8 *)nlmsg_hdr(msg) + NLA_HDRLEN, 8) &&
	     nla_put(msg, CAUSALPROF_A_PAD, 0, NULL)) ||
	    nla_put(msg, CAUSALPROF_A_RECORDS, len, recs)) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	genlmsg_end(msg, hdr);
	/*
	 * Records leave room for the ack of the owner's next
	 * request: netlink drops an ack that finds the receive queue over
	 * its limit (netlink_attachskb()), and the request would wait for it
	 * forever. An empty queue takes a message whatever its size.
	 */
	queued = atomic_read(&sk->sk_rmem_alloc);
	if (queued && queued + msg->truesize + CP_ACK_ROOM > READ_ONCE(sk->sk_rcvbuf)) {
		nlmsg_free(msg);
		return -EAGAIN;
	}
	ret = sock_queue_rcv_skb_reason(sk, msg, &reason);
	if (!ret)
		return 0;
	kfree_skb(msg);
	return reason == SKB_DROP_REASON_SOCKET_FILTER ? 0 : -EAGAIN;
}

/* The requesting socket, as sessions name their owner. */
static struct cp_owner sender(struct sk_buff *skb, struct genl_info *info)
{
	return (struct cp_owner){
		.portid = info->snd_portid,
		.sk = NETLINK_CB(skb).sk,
		.send = send_records,
	};
}

static int reply_session_id(struct genl_info *info, u64 id)
{
	struct sk_buff *msg;
	void *hdr;

	msg = genlmsg_new(nla_total_size_64bit(sizeof(u64)), GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = genlmsg_put_reply(msg, info, &genl_family, 0, CAUSALPROF_CMD_SESSION_START);
	if (!hdr || nla_put_u64_64bit(msg, CAUSALPROF_A_SESSION_ID, id, CAUSALPROF_A_PAD)) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
}

static int start_session(struct sk_buff *skb, struct genl_info *info)
{
	struct cp_config *cfg;
	u64 id;
	int ret;

	cfg = kzalloc(sizeof(*cfg), GFP_KERNEL);
	if (!cfg) {
		GENL_SET_ERR_MSG(info, "out of memory for the session config");
		return -ENOMEM;
	}
	ret = parse_start(info, cfg);
	if (ret)
		goto out_free_cfg;
	cfg->owner = sender(skb, info);

	ret = cp_session_start(cfg, info->extack, &id);
	if (ret) {
		if (ret == -ESRCH)
			NL_SET_BAD_ATTR(info->extack, info->attrs[CAUSALPROF_A_TARGET_PID]);
		goto out_free_cfg;
	}
	ret = reply_session_id(info, id);
	if (ret) {
		/* The caller sees an error: do not leave its session behind. */
		cp_session_stop(&cfg->owner, false, NULL);
		GENL_SET_ERR_MSG(info, "could not send the reply; session stopped");
	} else {
		cp_session_started(id);
	}
out_free_cfg:
	kfree(cfg);
	return ret;
}

static int stop_session(struct sk_buff *skb, struct genl_info *info)
{
	const struct cp_owner who = sender(skb, info);

	return cp_session_stop(&who, netlink_capable(skb, CAP_SYS_ADMIN), info->extack);
}

/* A range's pid, in the caller's pid namespace, as a thread group id. */
static int parse_range(const struct nlattr *nest, struct cp_range *r,
		       struct netlink_ext_ack *extack)
{
	struct nlattr *tb[CAUSALPROF_RANGE_A_MAX + 1];
	struct cp_range_attrs at;
	int ret;

	ret = nla_parse_nested(tb, CAUSALPROF_RANGE_A_MAX, nest, range_policy, extack);
	if (ret)
		return ret;
	if (NL_REQ_ATTR_CHECK(extack, nest, tb, CAUSALPROF_RANGE_A_PID) ||
	    NL_REQ_ATTR_CHECK(extack, nest, tb, CAUSALPROF_RANGE_A_START) ||
	    NL_REQ_ATTR_CHECK(extack, nest, tb, CAUSALPROF_RANGE_A_END)) {
		NL_SET_ERR_MSG(extack, "a range needs CAUSALPROF_RANGE_A_PID, _START and _END");
		return -EINVAL;
	}
	at = (struct cp_range_attrs){
		.pid = tb[CAUSALPROF_RANGE_A_PID],
		.end = tb[CAUSALPROF_RANGE_A_END],
	};
	return cp_request_range(nla_get_u32(tb[CAUSALPROF_RANGE_A_PID]),
				nla_get_u64(tb[CAUSALPROF_RANGE_A_START]),
				nla_get_u64(tb[CAUSALPROF_RANGE_A_END]), r, &at, extack);
}

static int parse_experiment(struct genl_info *info, u32 *speedup, struct cp_range *ranges,
			    unsigned int *nr)
{
	struct nlattr *tb[CAUSALPROF_EXP_A_MAX + 1], *nest, *attr;
	struct netlink_ext_ack *extack = info->extack;
	int rem, ret;

	if (GENL_REQ_ATTR_CHECK(info, CAUSALPROF_A_EXPERIMENT)) {
		GENL_SET_ERR_MSG(info, "CAUSALPROF_A_EXPERIMENT is missing");
		return -EINVAL;
	}
	nest = info->attrs[CAUSALPROF_A_EXPERIMENT];
	ret = nla_parse_nested(tb, CAUSALPROF_EXP_A_MAX, nest, exp_policy, extack);
	if (ret)
		return ret;
	if (NL_REQ_ATTR_CHECK(extack, nest, tb, CAUSALPROF_EXP_A_SPEEDUP)) {
		NL_SET_ERR_MSG(extack, "CAUSALPROF_EXP_A_SPEEDUP is missing");
		return -EINVAL;
	}
	*speedup = nla_get_u32(tb[CAUSALPROF_EXP_A_SPEEDUP]);
	ret = cp_request_speedup(*speedup, tb[CAUSALPROF_EXP_A_SPEEDUP], extack);
	if (ret)
		return ret;

	*nr = 0;
	nla_for_each_nested(attr, nest, rem) {
		if (nla_type(attr) != CAUSALPROF_EXP_A_RANGE)
			continue;
		ret = cp_request_nr_ranges(*nr, attr, extack);
		if (!ret)
			ret = parse_range(attr, &ranges[*nr], extack);
		if (ret)
			return ret;
		(*nr)++;
	}
	if (!*nr) {
		NL_SET_ERR_MSG_ATTR(extack, nest, "no CAUSALPROF_EXP_A_RANGE: nothing selected");
		return -EINVAL;
	}
	return 0;
}

static int start_experiment(struct sk_buff *skb, struct genl_info *info)
{
	const struct cp_owner who = sender(skb, info);
	struct cp_range *ranges;
	unsigned int nr;
	u32 speedup;
	int ret;

	ranges = kcalloc(CP_MAX_RANGES, sizeof(*ranges), GFP_KERNEL);
	if (!ranges) {
		GENL_SET_ERR_MSG(info, "out of memory for the ranges");
		return -ENOMEM;
	}
	ret = parse_experiment(info, &speedup, ranges, &nr);
	if (!ret)
		ret = cp_session_experiment_start(&who, speedup, ranges, nr, info->extack);
	kfree(ranges);
	return ret;
}

static int flush(struct sk_buff *skb, struct genl_info *info)
{
	const struct cp_owner who = sender(skb, info);

	return cp_session_flush(&who, info->extack);
}

static int stop_experiment(struct sk_buff *skb, struct genl_info *info)
{
	const struct cp_owner who = sender(skb, info);

	return cp_session_experiment_stop(&who, info->extack);
}

/* CAUSALPROF_A_PROGRESS, parsed into tb. */
static int parse_progress(struct genl_info *info,
			  const struct nla_policy *policy, struct nlattr **tb)
{
	if (GENL_REQ_ATTR_CHECK(info, CAUSALPROF_A_PROGRESS)) {
		GENL_SET_ERR_MSG(info, "CAUSALPROF_A_PROGRESS is missing");
		return -EINVAL;
	}
	return nla_parse_nested(tb, CAUSALPROF_PP_A_MAX, info->attrs[CAUSALPROF_A_PROGRESS],
				policy, info->extack);
}

/*
 * A probe's sites: the offset first, then those of the nest more (NULL:
 * none), in *off, which the caller frees; which are Go stack checks, from
 * checks (NULL: none). No first: no sites (a throughput point's end).
 */
static int parse_sites(const struct nlattr *first, const struct nlattr *more,
		       const struct nlattr *checks, struct cp_sites *s, u64 **off,
		       struct netlink_ext_ack *extack)
{
	const struct nlattr *attr;
	unsigned int n = 1;
	int rem;

	*off = NULL;
	*s = (struct cp_sites){};
	if (!first) {
		if (checks) {
			NL_SET_ERR_MSG_ATTR(extack, checks, "stack checks of a probe that has no sites");
			return -EINVAL;
		}
		return 0;
	}
	if (more) {
		nla_for_each_nested(attr, more, rem)
			n++;
		if (n == 1) {
			NL_SET_ERR_MSG_ATTR(extack, more, "an empty nest of sites");
			return -EINVAL;
		}
		if (n > CAUSALPROF_MAX_SITES) {
			NL_SET_ERR_MSG_ATTR(extack, more,
					    "more than 64 sites for a probe (CAUSALPROF_MAX_SITES)");
			return -EINVAL;
		}
	}
	*off = kmalloc_array(n, sizeof(**off), GFP_KERNEL);
	if (!*off)
		return -ENOMEM;
	(*off)[0] = nla_get_u64(first);
	s->off = *off;
	s->nr = 1;
	if (more)
		nla_for_each_nested(attr, more, rem)
			(*off)[s->nr++] = nla_get_u64(attr);
	if (checks) {
		s->checks = nla_get_u64(checks);
		if (s->nr < 64 && s->checks >> s->nr) {
			NL_SET_ERR_MSG_ATTR(extack, checks, "a stack check beyond the probe's sites");
			kfree(*off);
			*off = NULL;
			return -EINVAL;
		}
	}
	return 0;
}

static int add_progress(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *tb[CAUSALPROF_PP_A_MAX + 1], *nest, *end, *visit, *end_visit, *end_sites;
	struct netlink_ext_ack *extack = info->extack;
	const struct cp_owner who = sender(skb, info);
	u64 *begin_off = NULL, *end_off = NULL;
	struct cp_sites begin, ends;
	struct cp_progress_attrs at;
	u32 kind;
	int ret;

	ret = parse_progress(info, pp_add_policy, tb);
	if (ret)
		return ret;
	nest = info->attrs[CAUSALPROF_A_PROGRESS];
	if (NL_REQ_ATTR_CHECK(extack, nest, tb, CAUSALPROF_PP_A_ID) ||
	    NL_REQ_ATTR_CHECK(extack, nest, tb, CAUSALPROF_PP_A_KIND) ||
	    NL_REQ_ATTR_CHECK(extack, nest, tb, CAUSALPROF_PP_A_PATH) ||
	    NL_REQ_ATTR_CHECK(extack, nest, tb, CAUSALPROF_PP_A_OFFSET)) {
		NL_SET_ERR_MSG(extack,
			       "a progress point needs CAUSALPROF_PP_A_ID, _KIND, _PATH and _OFFSET");
		return -EINVAL;
	}
	kind = nla_get_u32(tb[CAUSALPROF_PP_A_KIND]);
	end = tb[CAUSALPROF_PP_A_END_OFFSET];
	visit = tb[CAUSALPROF_PP_A_VISIT_NS];
	end_visit = tb[CAUSALPROF_PP_A_END_VISIT_NS];
	at = (struct cp_progress_attrs){
		.point = nest,
		.kind = tb[CAUSALPROF_PP_A_KIND],
		.end = end,
		.end_visit = end_visit,
	};
	ret = cp_request_progress(kind, end, end_visit, &at, extack);
	if (ret)
		return ret;
	end_sites = tb[CAUSALPROF_PP_A_END_SITES];
	if (end_sites && !end) {
		NL_SET_ERR_MSG_ATTR(extack, end_sites,
				    "CAUSALPROF_PP_A_END_SITES is for latency points, with CAUSALPROF_PP_A_END_OFFSET");
		return -EINVAL;
	}
	ret = parse_sites(tb[CAUSALPROF_PP_A_OFFSET], tb[CAUSALPROF_PP_A_SITES],
			  tb[CAUSALPROF_PP_A_STACK_CHECKS], &begin, &begin_off, extack);
	if (ret)
		return ret;
	ret = parse_sites(end, end_sites, tb[CAUSALPROF_PP_A_END_STACK_CHECKS], &ends, &end_off,
			  extack);
	if (ret)
		goto out_free;
	ret = cp_session_progress_add(&who, nla_get_u32(tb[CAUSALPROF_PP_A_ID]), kind,
				      nla_data(tb[CAUSALPROF_PP_A_PATH]), &begin, &ends,
				      visit ? nla_get_u32(visit) : 0,
				      end_visit ? nla_get_u32(end_visit) : 0, extack);
out_free:
	kfree(end_off);
	kfree(begin_off);
	return ret;
}

static int del_progress(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *tb[CAUSALPROF_PP_A_MAX + 1];
	struct netlink_ext_ack *extack = info->extack;
	const struct cp_owner who = sender(skb, info);
	int ret;

	ret = parse_progress(info, pp_del_policy, tb);
	if (ret)
		return ret;
	if (NL_REQ_ATTR_CHECK(extack, info->attrs[CAUSALPROF_A_PROGRESS], tb,
			      CAUSALPROF_PP_A_ID)) {
		NL_SET_ERR_MSG(extack, "CAUSALPROF_PP_A_ID is missing");
		return -EINVAL;
	}
	return cp_session_progress_del(&who, nla_get_u32(tb[CAUSALPROF_PP_A_ID]), extack);
}

/* CAUSALPROF_A_GO_HOOKS's hooks into sites (room for CAUSALPROF_MAX_GO_HOOKS): how many, or -errno. */
static int parse_go_hooks(const struct nlattr *go, struct cp_go_site *sites,
			  struct netlink_ext_ack *extack)
{
	struct nlattr *tb[CAUSALPROF_GOHOOK_A_MAX + 1];
	const struct nlattr *attr;
	int rem, n = 0, ret;

	nla_for_each_nested(attr, go, rem) {
		if (nla_type(attr) != CAUSALPROF_GOHOOKS_A_HOOK)
			continue;
		if (n == CAUSALPROF_MAX_GO_HOOKS) {
			NL_SET_ERR_MSG_ATTR(extack, attr,
					    "more than 32 CAUSALPROF_GOHOOKS_A_HOOK (CAUSALPROF_MAX_GO_HOOKS)");
			return -EINVAL;
		}
		ret = nla_parse_nested(tb, CAUSALPROF_GOHOOK_A_MAX, attr, gohook_policy, extack);
		if (ret)
			return ret;
		if (NL_REQ_ATTR_CHECK(extack, attr, tb, CAUSALPROF_GOHOOK_A_KIND) ||
		    NL_REQ_ATTR_CHECK(extack, attr, tb, CAUSALPROF_GOHOOK_A_OFFSET)) {
			NL_SET_ERR_MSG(extack,
				       "a Go hook needs CAUSALPROF_GOHOOK_A_KIND and _OFFSET");
			return -EINVAL;
		}
		sites[n].kind = nla_get_u32(tb[CAUSALPROF_GOHOOK_A_KIND]);
		sites[n].visit_ns = tb[CAUSALPROF_GOHOOK_A_VISIT_NS] ?
				   nla_get_u32(tb[CAUSALPROF_GOHOOK_A_VISIT_NS]) : 0;
		sites[n].flags = tb[CAUSALPROF_GOHOOK_A_FLAGS] ?
				 nla_get_u32(tb[CAUSALPROF_GOHOOK_A_FLAGS]) : 0;
		sites[n++].offset = nla_get_u64(tb[CAUSALPROF_GOHOOK_A_OFFSET]);
	}
	if (!n) {
		NL_SET_ERR_MSG_ATTR(extack, go, "no CAUSALPROF_GOHOOKS_A_HOOK");
		return -EINVAL;
	}
	return n;
}

static int go_hooks(struct sk_buff *skb, struct genl_info *info)
{
	struct cp_go_site sites[CAUSALPROF_MAX_GO_HOOKS];
	struct nlattr *tb[CAUSALPROF_GOHOOKS_A_MAX + 1];
	struct netlink_ext_ack *extack = info->extack;
	const struct cp_owner who = sender(skb, info);
	struct nlattr *go = info->attrs[CAUSALPROF_A_GO_HOOKS];
	int ret;

	if (GENL_REQ_ATTR_CHECK(info, CAUSALPROF_A_GO_HOOKS)) {
		GENL_SET_ERR_MSG(info, "CAUSALPROF_A_GO_HOOKS is missing");
		return -EINVAL;
	}
	ret = nla_parse_nested(tb, CAUSALPROF_GOHOOKS_A_MAX, go, gohooks_policy, extack);
	if (ret)
		return ret;
	if (NL_REQ_ATTR_CHECK(extack, go, tb, CAUSALPROF_GOHOOKS_A_PATH)) {
		NL_SET_ERR_MSG(extack, "CAUSALPROF_GOHOOKS_A_PATH is missing");
		return -EINVAL;
	}
	ret = parse_go_hooks(go, sites, extack);
	if (ret < 0)
		return ret;
	return cp_session_go_hooks(&who, nla_data(tb[CAUSALPROF_GOHOOKS_A_PATH]), sites, ret, extack);
}

/*
 * Every command names its policy, those without attributes too: strict
 * validation refuses every attribute of no_attr_policy as unsupported.
 * (Since 6.1 a command without a policy at or past resv_start_op, 0 here,
 * gets the kernel's reject-all policy too; the table does not rely on it.)
 */
static const struct genl_ops genl_ops[] = {
	{
		.cmd = CAUSALPROF_CMD_GET_STATUS,
		.doit = get_status,
		.policy = no_attr_policy,
		.maxattr = CAUSALPROF_A_MAX,
	}, {
		.cmd = CAUSALPROF_CMD_SESSION_START,
		.internal_flags = CP_NL_CONTROL,
		.doit = start_session,
		.policy = start_policy,
		.maxattr = CAUSALPROF_A_MAX,
	}, {
		.cmd = CAUSALPROF_CMD_SESSION_STOP,
		.internal_flags = CP_NL_CONTROL,
		.doit = stop_session,
		.policy = no_attr_policy,
		.maxattr = CAUSALPROF_A_MAX,
	}, {
		.cmd = CAUSALPROF_CMD_EXPERIMENT_START,
		.internal_flags = CP_NL_CONTROL,
		.doit = start_experiment,
		.policy = exp_start_policy,
		.maxattr = CAUSALPROF_A_MAX,
	}, {
		.cmd = CAUSALPROF_CMD_EXPERIMENT_STOP,
		.internal_flags = CP_NL_CONTROL,
		.doit = stop_experiment,
		.policy = no_attr_policy,
		.maxattr = CAUSALPROF_A_MAX,
	}, {
		.cmd = CAUSALPROF_CMD_PROGRESS_ADD,
		.internal_flags = CP_NL_CONTROL,
		.doit = add_progress,
		.policy = progress_add_policy,
		.maxattr = CAUSALPROF_A_MAX,
	}, {
		.cmd = CAUSALPROF_CMD_PROGRESS_DEL,
		.internal_flags = CP_NL_CONTROL,
		.doit = del_progress,
		.policy = progress_del_policy,
		.maxattr = CAUSALPROF_A_MAX,
	}, {
		.cmd = CAUSALPROF_CMD_GO_HOOKS,
		.internal_flags = CP_NL_CONTROL,
		.doit = go_hooks,
		.policy = go_hooks_policy,
		.maxattr = CAUSALPROF_A_MAX,
	}, {
		.cmd = CAUSALPROF_CMD_FLUSH,
		.internal_flags = CP_NL_CONTROL,
		.doit = flush,
		.policy = no_attr_policy,
		.maxattr = CAUSALPROF_A_MAX,
	},
};

static struct genl_family genl_family __ro_after_init = {
	.ops = genl_ops,
	.n_ops = ARRAY_SIZE(genl_ops),
	.name = CAUSALPROF_GENL_NAME,
	.version = CAUSALPROF_GENL_VERSION,
	.maxattr = CAUSALPROF_A_MAX,
	.module = THIS_MODULE,
	.pre_doit = pre_doit,
	/* The session has its own lock; do not hold genl_mutex for it. */
	.parallel_ops = true,
};

int __init cp_netlink_init(void)
{
	return genl_register_family(&genl_family);
}

/* Returns once no request is running and no new one can come in. */
void cp_netlink_uninit(void)
{
	genl_unregister_family(&genl_family);
}
