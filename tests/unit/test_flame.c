/* Unit tests of flame.c: folded stacks of the merged call tree. */
#include <criterion/criterion.h>
#include <stdlib.h>

#include "opscope/export/flame.h"
#include "tree_fixture.h"

/*
 * Thread 0 (µs):            thread 1: device
 *   a;b    [0, 100)           k1 [60, 90)  launched by b's call
 *   └─ x;y [10, 40)
 *      └─ L1 cudaLaunchKernel [15, 20)   corr 1
 *   └─ "c\nd" [50, 70)
 *   a;b    [200, 250)         (merged with the first)
 *   L2 [300, 305) corr 2 -> k2 [310, 311.4) on no op: <unattributed>
 */
#define US 1000
static const struct tx_event fx[] = {
	TX("a;b", HOST_OP, 0, 0, 100 * US, 0, 0, NULL),
	TX("x;y", HOST_OP, 0, 10 * US, 30 * US, 0, 0, NULL),
	TX("cudaLaunchKernel", RUNTIME, 0, 15 * US, 5 * US, 1, 0, NULL),
	TX("c\nd", HOST_OP, 0, 50 * US, 20 * US, 0, 0, NULL),
	TX("a;b", HOST_OP, 0, 200 * US, 50 * US, 0, 0, NULL),
	TX("cudaLaunchKernel", RUNTIME, 0, 300 * US, 5 * US, 2, 0, NULL),
	TX("k1", KERNEL, 1, 60 * US, 30 * US, 1, 0, NULL),
	TX("k2", KERNEL, 1, 310 * US, 1400, 2, 0, NULL),
};

/* The folded text of f (free it). */
static char *folded(const struct osc_flame *f)
{
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	struct osc_error err;

	cr_assert_eq(osc_flame_write(out, f, &err), OSC_OK);
	fclose(out);
	return text;
}

static char *run(const struct osc_flame_opts *o)
{
	struct tx_analysis a;
	struct osc_flame f;
	char *text;

	tx_analyse(&a, OSC_FORMAT_KINETO, fx, FX_LEN(fx));
	osc_flame_build(&a.t, &a.m, &a.corr, o, &f);
	text = folded(&f);
	osc_flame_release(&f);
	tx_release(&a);
	return text;
}

Test(flame, host_self_time_frames_rewritten)
{
	struct osc_flame_opts o = { .value = OSC_FLAME_HOST };
	char *text = run(&o);

	/* a:b: 100 - 30 - 20 + 50 self; bytewise order: "a:b" < "a:b;c d" < "a:b;x:y" */
	cr_expect_str_eq(text, "a:b 100\na:b;c d 20\na:b;x:y 30\n");
	free(text);
}

Test(flame, device_time_with_and_without_kernels)
{
	struct osc_flame_opts o = { .value = OSC_FLAME_DEVICE };
	char *text = run(&o);

	cr_expect_str_eq(text, "<unattributed> 1\na:b;x:y 30\n");
	free(text);
	o.kernels = true;
	text = run(&o);
	cr_expect_str_eq(text, "<unattributed>;k2 1\na:b;x:y;k1 30\n");
	free(text);
}

Test(flame, filter_keeps_stacks_through_a_match)
{
	struct osc_filter f;
	struct osc_flame_opts o = { .value = OSC_FLAME_HOST, .filter = &f };
	char *text;

	osc_filter_init(&f);
	osc_filter_add_pattern(&f, "x;y"); /* the name as in the trace */
	text = run(&o);
	cr_expect_str_eq(text, "a:b;x:y 30\n", "a:b's own time is not through x;y");
	free(text);
	osc_filter_release(&f);
	osc_filter_init(&f);
	osc_filter_add_pattern(&f, "k*"); /* a kernel frame matches */
	o = (struct osc_flame_opts){ .value = OSC_FLAME_DEVICE, .kernels = true, .filter = &f };
	text = run(&o);
	cr_expect_str_eq(text, "<unattributed>;k2 1\na:b;x:y;k1 30\n");
	free(text);
	o.kernels = false;
	text = run(&o);
	cr_expect_str_eq(text, "", "no op frame matches");
	free(text);
	osc_filter_release(&f);
}

/* Values are the differences of rounded running sums: they add up to the rounded total. */
Test(flame, rounding_adds_up)
{
	char *stacks[] = { "a", "b", "c", "d" };
	int64_t ns[] = { 400, 400, 400, 1700 };
	struct osc_flame f = { .stacks = stacks, .ns = ns, .nr = 4, .total = 2900 };
	char *text = folded(&f);

	/* running sums 0.4, 0.8, 1.2, 2.9 µs -> 0, 1, 1, 3: a left out, b 1, c 0 left out, d 2 */
	cr_expect_str_eq(text, "b 1\nd 2\n");
	free(text);
}
