/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _CAUSALPROF_VERSION_H
#define _CAUSALPROF_VERSION_H

#define CAUSALPROF_VERSION "0.1.0"

#endif /* _CAUSALPROF_VERSION_H */
