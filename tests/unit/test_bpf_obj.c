/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ibex_bpf_obj_read() on objects rte_bpf cannot run, built by clang:
 * a static const table is refused as global data, whichever section
 * clang gave it, never as a missing file.
 *
 *   test_bpf_obj constab.o
 */

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "ibex_bpf.h"

static const char *obj_constab;

static void
test_const_table(void **state)
{
	struct ibex_bpf_code code;
	char err[512];
	int ret;

	(void)state;
	if (obj_constab == NULL)
		skip();
	ret = ibex_bpf_obj_read(obj_constab, NULL, &code, err, sizeof(err));
	print_message("%s\n", err);
	assert_int_equal(ret, -ENOTSUP);
	assert_non_null(strstr(err, "has map or global data '.rodata"));
	assert_null(strstr(err, "No such file"));
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_const_table),
	};

	if (argc > 1)
		obj_constab = argv[1];
	return cmocka_run_group_tests(tests, NULL, NULL);
}
