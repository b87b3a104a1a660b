/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of ibex_memif_sock: the rewrite of memif --vdev arguments to
 * a socket file (never DPDK's default abstract socket) and the checks of
 * the owner-only directory for the default one.
 */

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "ibex_memif_sock.h"

static void
test_devargs(void **state)
{
	static const struct {
		const char *in;
		int fix;
		const char *out;
	} cases[] = {
		/* The docs' form: the owner-only default. */
		{ "net_memif0,role=server", IBEX_MEMIF_DEFAULT,
		  "net_memif0,role=server,socket=/d/net_memif0.sock,"
		  "socket-abstract=no" },
		{ "net_memif1", IBEX_MEMIF_DEFAULT,
		  "net_memif1,socket=/d/net_memif1.sock,socket-abstract=no" },
		{ "net_memif0,role=client,id=1", IBEX_MEMIF_DEFAULT,
		  "net_memif0,role=client,id=1,socket=/d/net_memif0.sock,"
		  "socket-abstract=no" },
		{ "net_memif0,socket-abstract=no", IBEX_MEMIF_DEFAULT,
		  "net_memif0,socket-abstract=no,socket=/d/net_memif0.sock" },
		{ "net_memif0,socket=,id=2", IBEX_MEMIF_DEFAULT,
		  "net_memif0,socket=,id=2,socket=/d/net_memif0.sock,"
		  "socket-abstract=no" },
		/* A path without socket-abstract: a file, not a name. */
		{ "net_memif0,role=server,socket=/run/x.sock",
		  IBEX_MEMIF_FILE,
		  "net_memif0,role=server,socket=/run/x.sock,"
		  "socket-abstract=no" },
		{ "net_memif0,socket=/run/x.sock,socket-abstract=no",
		  IBEX_MEMIF_KEEP,
		  "net_memif0,socket=/run/x.sock,socket-abstract=no" },
		/* Explicitly abstract: left, and a server is reported. */
		{ "net_memif0,socket-abstract=yes", IBEX_MEMIF_ABSTRACT,
		  "net_memif0,socket-abstract=yes" },
		{ "net_memif0,role=server,socket=/a,socket-abstract=yes",
		  IBEX_MEMIF_ABSTRACT,
		  "net_memif0,role=server,socket=/a,socket-abstract=yes" },
		{ "net_memif0,role=client,socket=/a,socket-abstract=yes",
		  IBEX_MEMIF_KEEP,
		  "net_memif0,role=client,socket=/a,socket-abstract=yes" },
		/* Not memif; a key that only ends in "socket". */
		{ "net_vhost0,iface=/run/v.sock", IBEX_MEMIF_KEEP,
		  "net_vhost0,iface=/run/v.sock" },
		{ "net_memif0,xsocket=/x", IBEX_MEMIF_DEFAULT,
		  "net_memif0,xsocket=/x,socket=/d/net_memif0.sock,"
		  "socket-abstract=no" },
	};
	char out[256];
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		memset(out, 0, sizeof(out));
		assert_int_equal(ibex_memif_devargs(cases[i].in, "/d", out,
						    sizeof(out)), cases[i].fix);
		assert_string_equal(out, cases[i].out);
	}
	/* The default needs the directory; too long an output is refused. */
	assert_int_equal(ibex_memif_devargs("net_memif0", NULL, out,
					    sizeof(out)), -ENOENT);
	assert_int_equal(ibex_memif_devargs("net_memif0,socket=/a", "/d", out,
					    20), -ENAMETOOLONG);
}

static void
test_dir(void **state)
{
	char base[] = "/tmp/ibex-memif-test.XXXXXX";
	char dir[256], want[300], err[512];
	struct stat st;

	(void)state;
	assert_non_null(mkdtemp(base));
	/* Made with mode 0700, parent included. */
	snprintf(want, sizeof(want), "%s/p/memif", base);
	setenv("IBEX_MEMIF_DIR", want, 1);
	assert_int_equal(ibex_memif_dir(dir, sizeof(dir), err, sizeof(err)), 0);
	assert_string_equal(dir, want);
	assert_int_equal(stat(dir, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0700);
	/* Opened to others: refused, with the path. */
	assert_int_equal(chmod(dir, 0755), 0);
	assert_int_equal(ibex_memif_dir(dir, sizeof(dir), err, sizeof(err)),
			 -EPERM);
	assert_non_null(strstr(err, want));
	assert_int_equal(chmod(dir, 0700), 0);
	/* A parent anyone may write (the directory could be swapped). */
	snprintf(want, sizeof(want), "%s/p", base);
	assert_int_equal(chmod(want, 0777), 0);
	assert_int_equal(ibex_memif_dir(dir, sizeof(dir), err, sizeof(err)),
			 -EPERM);
	assert_non_null(strstr(err, want));
	assert_int_equal(chmod(want, 0700), 0);
	assert_int_equal(ibex_memif_dir(dir, sizeof(dir), err, sizeof(err)), 0);
	snprintf(want, sizeof(want), "%s/p/memif", base);
	rmdir(want);
	snprintf(want, sizeof(want), "%s/p", base);
	rmdir(want);
	rmdir(base);
	unsetenv("IBEX_MEMIF_DIR");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_devargs),
		cmocka_unit_test(test_dir),
	};

	return cmocka_run_group_tests_name("memif_sock", tests, NULL, NULL);
}
