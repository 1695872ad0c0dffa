/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What differs between the kernels causalprof supports, Linux 6.1 to 6.12
 * (tested: the two LTS kernels Debian 12 ships, see README.md). Each shim
 * names the release and the commit that changed the API; the rest of the
 * module calls the shims and never tests the kernel version itself. A
 * kernel in between takes, shim by shim, the side of the release that made
 * the change.
 */
#ifndef _CAUSALPROF_COMPAT_H
#define _CAUSALPROF_COMPAT_H

#include <linux/version.h>

/* Kbuild refuses older kernels before compiling; this catches other builds. */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 1, 0)
#error "causalprof needs Linux 6.1 or later (README.md, Supported kernels)"
#endif

#endif /* _CAUSALPROF_COMPAT_H */
