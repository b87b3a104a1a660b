/* SPDX-License-Identifier: BSD-3-Clause */
/* The ranks' flow control made the links' (ibex-fabric --fc): credit and
 * CBFC links, and the scenarios that contradict them refused with the
 * reason. Parsing only: no EAL, no port. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "ibex_gen_builtin.h"

/* The built-in generator of "--gen SPEC". */
static struct ibex_gen_builtin *
gen_of(const char *spec)
{
	char *argv[] = { (char *)"ibex-fabric", (char *)"--gen", (char *)spec,
			 NULL };
	struct ibex_gen_builtin *g;
	int argc = 3;

	assert_int_equal(ibex_gen_builtin_parse(&argc, argv, &g), 0);
	assert_non_null(g);
	return g;
}

/* @p ret is -EINVAL and @p err says @p says. */
static void
refused(int ret, const char *err, const char *says)
{
	assert_int_equal(ret, -EINVAL);
	if (strstr(err, says) == NULL)
		fail_msg("says \"%s\", not \"%s\"", err, says);
}

static void
test_cbfc_links(void **state)
{
	struct ibex_gen_builtin *g;
	char err[256];

	(void)state;
	/* a scenario without --fc takes the links' CBFC, VL and limit */
	g = gen_of("--ranks 4");
	assert_int_equal(ibex_gen_builtin_cbfc_links(g, 3, 2048, err,
						     sizeof(err)), 0);
	assert_int_equal(ibex_gen_builtin_cbfc_links(g, 3, 1024, err,
						     sizeof(err)), 0);
	/* now it says --fc cbfc --vl 3 */
	refused(ibex_gen_builtin_cbfc_links(g, 4, 1024, err, sizeof(err)),
		err, "--gen has --vl 3, but the fabric's lossless lane is 4");
	refused(ibex_gen_builtin_credit_links(g, true, 3, err, sizeof(err)),
		err, "--gen has --fc cbfc, but the ranks' links speak credits");
	refused(ibex_gen_builtin_credit_links(g, false, 3, err, sizeof(err)),
		err, "--gen has --fc cbfc, but the ranks' links give no "
		"credits");
	ibex_gen_builtin_free(g);

	/* what a scenario says must be what the links speak */
	g = gen_of("--ranks 4 --fc pfc");
	refused(ibex_gen_builtin_cbfc_links(g, 3, 1024, err, sizeof(err)),
		err, "--gen has --fc pfc, but the ranks' links speak UEC CBFC");
	ibex_gen_builtin_free(g);
	g = gen_of("--ranks 4 --fc credit --vl 3");
	refused(ibex_gen_builtin_cbfc_links(g, 3, 1024, err, sizeof(err)),
		err, "--gen has --fc credit, but the ranks' links speak UEC "
		"CBFC");
	assert_int_equal(ibex_gen_builtin_credit_links(g, true, 3, err,
						       sizeof(err)), 0);
	ibex_gen_builtin_free(g);
	g = gen_of("--ranks 4 --fc cbfc --vl 2");
	refused(ibex_gen_builtin_cbfc_links(g, 3, 1024, err, sizeof(err)),
		err, "--gen has --vl 2");
	assert_int_equal(ibex_gen_builtin_cbfc_links(g, 2, 1024, err,
						     sizeof(err)), 0);
	ibex_gen_builtin_free(g);

	/* links CBFC cannot give */
	g = gen_of("--ranks 4");
	refused(ibex_gen_builtin_cbfc_links(g, 15, 1024, err, sizeof(err)),
		err, "VLs 0..14");
	refused(ibex_gen_builtin_cbfc_links(g, 3, 0, err, sizeof(err)),
		err, "1..1048575 credits");
	refused(ibex_gen_builtin_cbfc_links(g, 3, 1u << 20, err, sizeof(err)),
		err, "1..1048575 credits");
	/* links without credits leave a scenario without --fc alone */
	assert_int_equal(ibex_gen_builtin_credit_links(g, false, 3, err,
						       sizeof(err)), 0);
	ibex_gen_builtin_free(g);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cbfc_links),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
