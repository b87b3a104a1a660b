/* SPDX-License-Identifier: BSD-3-Clause */
/* ibex_stale: which --vdev arguments name a server socket file, and the
 * removal of socket files nobody listens on. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cmocka.h>

#include "ibex_stale.h"

static void
test_vdev_paths(void **state)
{
	static const struct {
		const char *args;
		const char *path;        /* NULL: not a server socket file */
	} cases[] = {
		{ "net_memif0,role=server,socket=/tmp/a.sock,socket-abstract=no",
		  "/tmp/a.sock" },
		{ "net_memif1,socket=/tmp/b.sock,socket-abstract=no", "/tmp/b.sock" },
		{ "net_memif0,socket-abstract=no", "/run/memif.sock" },
		{ "net_memif0,role=client,socket=/tmp/a.sock,socket-abstract=no",
		  NULL },
		{ "net_memif0,role=server,socket=/tmp/a.sock", NULL },
		{ "net_memif0,socket=/tmp/a.sock,socket-abstract=yes", NULL },
		{ "net_vhost0,iface=/tmp/v.sock,queues=1", "/tmp/v.sock" },
		{ "net_vhost0,iface=/tmp/v.sock,client=1", NULL },
		{ "net_vhost0,queues=1", NULL },
		{ "net_pcap0,rx_pcap=/tmp/x.pcap", NULL },
		{ "net_null0", NULL },
		/* A key that only ends like "socket" is not it. */
		{ "net_memif0,xsocket=/tmp/x,socket-abstract=no", "/run/memif.sock" },
	};
	char path[108];
	unsigned int i;
	int ret;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		path[0] = '\0';
		ret = ibex_vdev_server_socket(cases[i].args, path, sizeof(path));
		if (cases[i].path == NULL) {
			assert_int_equal(ret, 0);
		} else {
			assert_int_equal(ret, 1);
			assert_string_equal(path, cases[i].path);
		}
	}
	assert_int_equal(ibex_vdev_server_socket(
		"net_memif0,socket=/a/long/path,socket-abstract=no", path, 5),
		-ENAMETOOLONG);
}

static int
listen_on(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);

	assert_true(fd >= 0);
	assert_true(strlen(path) < sizeof(sa.sun_path));
	memcpy(sa.sun_path, path, strlen(path) + 1);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(listen(fd, 1), 0);
	return fd;
}

static void
test_clear(void **state)
{
	char dir[] = "/tmp/ibex-stale-XXXXXX", path[128], err[256];
	struct stat st;
	int probe, fd;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/s.sock", dir);
	for (probe = 0; probe < 2; probe++) {
		/* Nothing there. */
		assert_int_equal(ibex_stale_socket_clear(path, probe, err,
							 sizeof(err)), 0);
		/* A live listener: left alone, refused. */
		fd = listen_on(path);
		assert_int_equal(ibex_stale_socket_clear(path, probe, err,
							 sizeof(err)),
				 -EADDRINUSE);
		assert_non_null(strstr(err, "listening"));
		assert_int_equal(lstat(path, &st), 0);
		/* Its owner gone (closed without unlink, as after SIGKILL):
		 * removed, and said so. */
		close(fd);
		assert_int_equal(ibex_stale_socket_clear(path, probe, err,
							 sizeof(err)), 1);
		assert_non_null(strstr(err, "removed a stale socket"));
		assert_int_equal(lstat(path, &st), -1);
	}
	/* Not a socket: refused, kept. */
	f = fopen(path, "w");
	assert_non_null(f);
	fclose(f);
	assert_int_equal(ibex_stale_socket_clear(path, true, err, sizeof(err)),
			 -EEXIST);
	assert_int_equal(lstat(path, &st), 0);
	unlink(path);
	rmdir(dir);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vdev_paths),
		cmocka_unit_test(test_clear),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
