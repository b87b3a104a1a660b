/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef IBEX_META_H
#define IBEX_META_H

/**
 * @file
 * The "meta" object of every JSON document ibex writes (docs/results.md:
 * the files of ibex-switch, ibex-gen and ibex-fabric, ibex-ctl -j's
 * documents), and the command line it quotes.
 */

#include <time.h>

/**
 * @p argv joined with spaces (the command line as given, before EAL
 * reorders it): malloc'ed, or NULL.
 */
char *ibex_meta_cmdline(int argc, char **argv);

/**
 * The "meta" object of every JSON document ibex writes
 * (docs/results.md): schema version, @p tool, ibex version and git
 * describe, DPDK version, @p cmdline, @p start (UTC), host, TSC Hz and
 * every ethdev with its PMD. Call after EAL probed the ports.
 * @return malloc'ed JSON text, or NULL (out of memory).
 */
char *ibex_meta_json(const char *tool, const char *cmdline, time_t start);

#endif /* IBEX_META_H */
