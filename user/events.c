// SPDX-License-Identifier: GPL-2.0
/*
 * Event names as cprof record -e takes them: perf's spellings of the generic
 * hardware events, cpu-clock, raw rNNNN, and pprof++'s camelCase names.
 */

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <linux/perf_event.h>

#include <causalprof/tables.h>

#include "events.h"

static const struct causalprof_named_event named_events[] = {
	CAUSALPROF_EVENTS(CAUSALPROF_NAMED_EVENT)
};


/* Names in messages: at most SHOWN characters of them, then "...". */
#define SHOWN		64
#define QNAME		"'%.*s%s'"
#define QNAME_ARGS(name, len) \
	(int)((len) > SHOWN ? SHOWN : (len)), (name), (len) > SHOWN ? "..." : ""

/* perf's raw syntax: 'r' and 1 to 16 hex digits, no "0x". */
static int parse_raw(const char *name, size_t len, uint64_t *config, char *err,
		     size_t errlen)
{
	uint64_t val = 0;
	size_t i;

	if (len == 1) {
		snprintf(err, errlen, "raw event " QNAME " has no hex digits (e.g. r01c2)",
			 QNAME_ARGS(name, len));
		return -EINVAL;
	}
	if (len - 1 > 16) {
		snprintf(err, errlen, "raw event " QNAME " has more than 16 hex digits",
			 QNAME_ARGS(name, len));
		return -EINVAL;
	}
	for (i = 1; i < len; i++) {
		char c = name[i];
		unsigned int d;

		if (c >= '0' && c <= '9')
			d = c - '0';
		else if (c >= 'a' && c <= 'f')
			d = c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			d = c - 'A' + 10;
		else {
			snprintf(err, errlen,
				 "raw event " QNAME ": '%c' is not a hex digit (rNNNN, e.g. r01c2)",
				 QNAME_ARGS(name, len), c);
			return -EINVAL;
		}
		val = val << 4 | d;
	}
	*config = val;
	return 0;
}

static int parse_one(const char *name, size_t len, struct cp_event *ev, char *err,
		     size_t errlen)
{
	size_t i, off;
	int ret;

	memset(ev, 0, sizeof(*ev));
	for (i = 0; i < sizeof(named_events) / sizeof(named_events[0]); i++) {
		if (strlen(named_events[i].name) != len ||
		    memcmp(named_events[i].name, name, len))
			continue;
		ev->type = named_events[i].type;
		ev->config = named_events[i].config;
		memcpy(ev->name, name, len);
		return 0;
	}
	if (name[0] == 'r') {
		ret = parse_raw(name, len, &ev->config, err, errlen);
		if (ret)
			return ret;
		ev->type = PERF_TYPE_RAW;
		memcpy(ev->name, name, len);
		return 0;
	}
	off = snprintf(err, errlen, "unknown event " QNAME "; known events:",
		       QNAME_ARGS(name, len));
	for (i = 0; i < sizeof(named_events) / sizeof(named_events[0]) && off < errlen; i++)
		off += snprintf(err + off, errlen - off, " %s,", named_events[i].name);
	if (off < errlen)
		snprintf(err + off, errlen - off, " rNNNN (raw, hex)");
	return -EINVAL;
}

int cp_events_parse(struct cp_events *evs, const char *list, char *err, size_t errlen)
{
	struct cp_events out = *evs;
	const char *p = list, *end;
	struct cp_event ev;
	unsigned int i;
	size_t len;
	int ret;

	for (;;) {
		end = strchr(p, ',');
		len = end ? (size_t)(end - p) : strlen(p);
		if (!len) {
			snprintf(err, errlen, "empty event name in " QNAME,
				 QNAME_ARGS(list, strlen(list)));
			return -EINVAL;
		}
		ret = parse_one(p, len, &ev, err, errlen);
		if (ret)
			return ret;
		for (i = 0; i < out.nr; i++) {
			if (out.ev[i].type != ev.type || out.ev[i].config != ev.config)
				continue;
			if (strcmp(out.ev[i].name, ev.name))
				snprintf(err, errlen, "event '%s' is the same as '%s'", ev.name,
					 out.ev[i].name);
			else
				snprintf(err, errlen, "event '%s' is given twice", ev.name);
			return -EINVAL;
		}
		if (out.nr == CAUSALPROF_MAX_EVENTS) {
			snprintf(err, errlen, "too many events: at most %d (at '%s')",
				 CAUSALPROF_MAX_EVENTS, ev.name);
			return -EINVAL;
		}
		out.ev[out.nr++] = ev;
		if (!end)
			break;
		p = end + 1;
	}
	*evs = out;
	return 0;
}

const char *cp_event_type_name(uint32_t type, char *buf, size_t size)
{
	switch (type) {
	case PERF_TYPE_HARDWARE:	return "hardware";
	case PERF_TYPE_SOFTWARE:	return "software";
	case PERF_TYPE_HW_CACHE:	return "hw-cache";
	case PERF_TYPE_RAW:		return "raw";
	}
	snprintf(buf, size, "type %u", type);
	return buf;
}
