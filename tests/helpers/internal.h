/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the files of tests/helpers/ share among themselves and do not offer
 * the tests: the tests include helpers.h only.
 */
#ifndef CP_HELPERS_INTERNAL_H
#define CP_HELPERS_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct nlattr;
struct nlmsghdr;
struct cp_nl;
struct cp_stream;

/* A request the tests send, a dump or a reply they receive whole. */
#define NL_BUF_SIZE	32768

/* util.c */
int cp_write_file(const char *path, const void *buf, size_t len);
int cp_read_u64_file(const char *path, uint64_t *val);

/* genl.c: attributes, and the dispatch of what the kernel sends unasked */
int cp_nla_parse(const struct nlattr **tb, int max, const void *data, size_t len);
const void *cp_nla_data(const struct nlattr *nla);
size_t cp_nla_len(const struct nlattr *nla);
int cp_nla_get(const struct nlattr *nla, void *val, size_t size);
bool cp_nl_records(struct cp_nl *nl, const struct nlmsghdr *nlh);
bool cp_nl_overrun(struct cp_nl *nl, int err);

/* stream.c: a protocol error, counted; the first few are told. */
void cp_stream_complain(struct cp_stream *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif /* CP_HELPERS_INTERNAL_H */
