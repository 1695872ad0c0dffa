/* SPDX-License-Identifier: GPL-2.0 */
#ifndef CPROF_H
#define CPROF_H

#include <causalprof/tables.h>


#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/*
 * A command gets argv[0] = "cprof <command>", names itself with it in its
 * messages, and returns the exit status: 0 success, 1 failure, 2 usage error.
 * "cprof help <command>" runs it with the single argument "--help".
 */
int cmd_record(int argc, char *argv[]);
int cmd_report(int argc, char *argv[]);
int cmd_status(int argc, char *argv[]);

#endif /* CPROF_H */
