// SPDX-License-Identifier: GPL-2.0
/*
 * pprofspan FILE...: the time range of each gzipped pprof profile, read
 * from the wire format on its own (not with cprof's writer): one line per
 * file,
 *
 *	time_nanos duration_nanos FILE
 *
 * (Profile fields 9 and 10; 0 when absent). Exit status 1 if a file is not
 * a gzipped protobuf message.
 */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <zlib.h>

#define MAX_PROFILE	(256 << 20)

static int varint(const unsigned char **p, const unsigned char *end, uint64_t *v)
{
	int shift;

	*v = 0;
	for (shift = 0; shift < 64 && *p < end; shift += 7) {
		*v |= (uint64_t)(**p & 0x7f) << shift;
		if (!(*(*p)++ & 0x80))
			return 0;
	}
	return -1;
}

static int span(const unsigned char *p, const unsigned char *end, int64_t *time,
		int64_t *duration)
{
	uint64_t tag, v;

	while (p < end) {
		if (varint(&p, end, &tag))
			return -1;
		switch (tag & 7) {
		case 0:
			if (varint(&p, end, &v))
				return -1;
			if (tag >> 3 == 9)
				*time = v;
			else if (tag >> 3 == 10)
				*duration = v;
			break;
		case 1:
			if (end - p < 8)
				return -1;
			p += 8;
			break;
		case 2:
			if (varint(&p, end, &v) || v > (uint64_t)(end - p))
				return -1;
			p += v;
			break;
		case 5:
			if (end - p < 4)
				return -1;
			p += 4;
			break;
		default:
			return -1;
		}
	}
	return 0;
}

int main(int argc, char *argv[])
{
	unsigned char *buf = malloc(MAX_PROFILE);
	int64_t time, duration;
	int i, n, rc = 0;
	gzFile f;

	if (argc < 2 || !buf) {
		fprintf(stderr, "usage: pprofspan FILE...\n");
		return 2;
	}
	for (i = 1; i < argc; i++) {
		f = gzopen(argv[i], "rb");
		n = f ? gzread(f, buf, MAX_PROFILE) : -1;
		if (f)
			gzclose(f);
		time = duration = 0;
		if (n < 0 || n == MAX_PROFILE || span(buf, buf + n, &time, &duration)) {
			fprintf(stderr, "pprofspan: %s: not a gzipped profile\n", argv[i]);
			rc = 1;
			continue;
		}
		printf("%lld %lld %s\n", (long long)time, (long long)duration, argv[i]);
	}
	free(buf);
	return rc;
}
