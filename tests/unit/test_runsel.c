/* test_runsel.c - the --runs grammar and selection descriptions. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opscope/model/runs.h"

/*
 * Parse spec against n runs and compare the selection with want, one
 * character per run ('1' selected, '0' not), e.g. "01111" for runs 1-4 of 5.
 */
static void expect_sel(const char *spec, size_t n, bool warmup, const char *want)
{
	struct osc_runsel s;
	struct osc_error err;
	char got[128];
	size_t nr_on = 0;

	cr_assert_eq(strlen(want), n, "bad test: want has %zu runs", strlen(want));
	osc_error_clear(&err);
	cr_assert_eq(osc_runsel_parse(spec, n, warmup, &s, &err), OSC_OK,
		     "'%s' on %zu runs failed: %s", spec ? spec : "(null)", n, err.message);
	for (size_t i = 0; i < n; i++) {
		got[i] = s.on[i] ? '1' : '0';
		nr_on += s.on[i];
	}
	got[n] = '\0';
	cr_expect_str_eq(got, want, "'%s' on %zu runs: %s, want %s", spec ? spec : "(null)", n,
			 got, want);
	cr_expect_eq(s.nr_on, nr_on);
	cr_expect_eq(s.nr_runs, n);
	cr_expect_str_eq(s.spec, spec ? spec : "default");
	osc_runsel_release(&s);
}

/*
 * Parse spec expecting an error: code, the column a syntax error names in its
 * message (OSC_NO_OFFSET: any; range errors name the value instead) and the
 * message. Option errors carry no byte offset: the column is in the message.
 */
static void expect_err(const char *spec, size_t n, enum osc_status code, int64_t offset,
		       const char *message)
{
	struct osc_runsel s = {0};
	struct osc_error err;

	osc_error_clear(&err);
	cr_assert_eq(osc_runsel_parse(spec, n, false, &s, &err), code,
		     "'%s' on %zu runs: status %d, want %d (%s)", spec, n, err.code, code,
		     err.message);
	cr_expect_eq(err.code, code);
	cr_expect_str_eq(err.subject, "--runs");
	cr_expect_eq(err.offset, OSC_NO_OFFSET);
	if (offset != OSC_NO_OFFSET && code == OSC_USAGE) {
		char column[64];

		snprintf(column, sizeof(column), "at column %lld of '", (long long)offset);
		cr_expect(strstr(err.message, column), "'%s': '%s' does not name %s", spec,
			  err.message, column);
	}
	if (message)
		cr_expect_str_eq(err.message, message);
	cr_expect_null(s.on, "nothing allocated on error");
}

Test(runsel, default_skips_the_warmup_run)
{
	expect_sel(NULL, 11, true, "01111111111");
	expect_sel("default", 11, true, "01111111111");
	expect_sel(NULL, 4, false, "1111");
	/* a single run is never skipped */
	expect_sel(NULL, 1, true, "1");
}

Test(runsel, all)
{
	expect_sel("all", 5, true, "11111");
	expect_sel("  all ", 2, false, "11");
}

/* Two specs selecting the same runs are the same selection; another run is not. */
Test(runsel, same_runs_whatever_the_spec)
{
	struct osc_runsel a, b, c, d;
	struct osc_error err;

	cr_assert_eq(osc_runsel_parse("[1, 2, 3]", 5, false, &a, &err), OSC_OK);
	cr_assert_eq(osc_runsel_parse("1:4", 5, false, &b, &err), OSC_OK);
	cr_assert_eq(osc_runsel_parse("[1, 2]", 5, false, &c, &err), OSC_OK);
	cr_assert_eq(osc_runsel_parse("[1, 2]", 6, false, &d, &err), OSC_OK);
	cr_expect(osc_runsel_same(&a, &b));
	cr_expect(!osc_runsel_same(&a, &c));
	cr_expect(!osc_runsel_same(&c, &d), "the same runs of another trace");
	osc_runsel_release(&a);
	osc_runsel_release(&b);
	osc_runsel_release(&c);
	osc_runsel_release(&d);
}

Test(runsel, single_indices)
{
	expect_sel("3", 5, false, "00010");
	expect_sel("0", 5, true, "10000");
	expect_sel("-1", 5, false, "00001");
	expect_sel("-5", 5, false, "10000");
	expect_sel("+2", 5, false, "00100");
	expect_sel(" 4 ", 5, false, "00001");
}

Test(runsel, slices)
{
	expect_sel("2:5", 11, false, "00111000000");
	expect_sel("8:", 11, false, "00000000111");
	expect_sel(":3", 11, false, "11100000000");
	expect_sel(":", 11, false, "11111111111");
	expect_sel("::3", 11, false, "10010010010");
	expect_sel("1:8:2", 11, false, "01010101000");
	expect_sel("-3:", 11, false, "00000000111");
	expect_sel(":-3", 11, false, "11111111000");
	expect_sel("1 : 3", 11, false, "01100000000");
	expect_sel("1:3:", 11, false, "01100000000");
	/* bounds are clamped like Python's, never an error */
	expect_sel("0:100", 4, false, "1111");
	expect_sel("-100:2", 4, false, "1100");
}

Test(runsel, slices_with_negative_steps)
{
	/* Python: list(range(11))[8:2:-2] == [8, 6, 4] */
	expect_sel("8:2:-2", 11, false, "00001010100");
	expect_sel("::-1", 4, false, "1111");
	/* [10:-100:-3] == [10, 7, 4, 1] */
	expect_sel("10:-100:-3", 11, false, "01001001001");
	/* [:-3:-1] == [10, 9] */
	expect_sel(":-3:-1", 11, false, "00000000011");
	/* [100::-4] starts at the last element: [10, 6, 2] */
	expect_sel("100::-4", 11, false, "00100010001");
}

Test(runsel, lists)
{
	expect_sel("[1,3,5]", 6, false, "010101");
	expect_sel("[ 1 , 3 , 5 , ]", 6, false, "010101");
	expect_sel("[-1, 0]", 6, false, "100001");
	expect_sel("[2,2]", 3, false, "001");
	expect_sel("[4]", 5, false, "00001");
}

Test(runsel, ranges)
{
	expect_sel("range(3)", 5, false, "11100");
	expect_sel("range(2,5)", 6, false, "001110");
	expect_sel("range(1,10,3)", 11, false, "01001001000");
	expect_sel("range( 10 , 0 , -4 )", 11, false, "00100010001");
	/* negative elements count from the end: range(-2, 0) is -2, -1 */
	expect_sel("range(-2,0)", 5, false, "00011");
}

Test(runsel, out_of_range)
{
	expect_err("11", 11, OSC_RANGE, 0, "run 11 out of range: the trace has 11 runs (0-10)");
	expect_err("-12", 11, OSC_RANGE, 0, "run -12 out of range: the trace has 11 runs (0-10)");
	expect_err("[1, 99]", 11, OSC_RANGE, 4,
		   "run 99 out of range: the trace has 11 runs (0-10)");
	expect_err("range(0,12)", 11, OSC_RANGE, 6,
		   "run 11 out of range: the trace has 11 runs (0-10)");
	expect_err("1", 1, OSC_RANGE, 0, "run 1 out of range: the trace has 1 run (0)");
	expect_err("0", 0, OSC_RANGE, 0, "run 0 out of range: the trace has no runs");
	/* a number too big for any integer type is quoted as written */
	expect_err("123456789012345678901234567890", 3, OSC_RANGE, 0,
		   "run 123456789012345678901234567890 out of range: "
		   "the trace has 3 runs (0-2)");
}

Test(runsel, empty_selections)
{
	expect_err("5:2", 11, OSC_RANGE, OSC_NO_OFFSET, "'5:2' selects no runs (the trace has 11)");
	expect_err("[]", 3, OSC_RANGE, OSC_NO_OFFSET, NULL);
	expect_err("range(0)", 3, OSC_RANGE, OSC_NO_OFFSET, NULL);
	expect_err("all", 0, OSC_RANGE, OSC_NO_OFFSET, NULL);
	expect_err(":", 0, OSC_RANGE, OSC_NO_OFFSET, NULL);
}

Test(runsel, syntax_errors_point_at_the_column)
{
	expect_err("[1,2", 5, OSC_USAGE, 4,
		   "expected ',' or ']' at column 4 of '[1,2', found end of input");
	expect_err("[1;2]", 5, OSC_USAGE, 2, NULL);
	expect_err("[1,,2]", 5, OSC_USAGE, 3, "expected a number or ']' at column 3 of "
					      "'[1,,2]', found ','");
	expect_err("[1 2]", 5, OSC_USAGE, 3, NULL);
	expect_err("range 3", 5, OSC_USAGE, 6, NULL);
	expect_err("range(3", 5, OSC_USAGE, 7, NULL);
	expect_err("range()", 5, OSC_USAGE, 6, NULL);
	expect_err("range(1,2,3,4)", 5, OSC_USAGE, 12, NULL);
	expect_err("3x", 5, OSC_USAGE, 1, "expected end of input at column 1 of '3x', found 'x'");
	expect_err("1:2:3:4", 5, OSC_USAGE, 5, NULL);
	expect_err("abc", 5, OSC_USAGE, 0, NULL);
	expect_err("allx", 5, OSC_USAGE, 0, NULL);
	expect_err("", 5, OSC_USAGE, 0, NULL);
	expect_err("--1", 5, OSC_USAGE, 0, NULL);
	expect_err("1:x", 5, OSC_USAGE, 2, NULL);
	expect_err("\x01", 5, OSC_USAGE, 0,
		   "expected a run number, a slice, a [list], range(...) or 'all' at column 0 "
		   "of '\x01', found byte 0x01");
}

Test(runsel, zero_steps_are_errors)
{
	expect_err("1:2:0", 5, OSC_USAGE, 4, "slice step must not be zero at column 4 of '1:2:0'");
	expect_err("::0", 5, OSC_USAGE, 2, NULL);
	expect_err("range(1,2,0)", 5, OSC_USAGE, 10, "range() step must not be zero at column 10 of 'range(1,2,0)'");
}

static void expect_describe(const char *spec, size_t n, bool warmup,
			    enum osc_run_source source, const char *want)
{
	struct osc_runs r = {.nr = n, .source = source, .warmup = warmup};
	struct osc_runsel s;
	struct osc_error err;
	char *got;

	cr_assert_eq(osc_runsel_parse(spec, n, warmup, &s, &err), OSC_OK, "%s", err.message);
	got = osc_runsel_describe(&s, &r);
	cr_expect_str_eq(got, want);
	free(got);
	osc_runsel_release(&s);
}

Test(runsel, describe)
{
	expect_describe(NULL, 11, true, OSC_RUNS_MODEL_RUN,
			"runs 1-10 of 11 (model_run, warm-up run 0 skipped)");
	expect_describe("all", 11, true, OSC_RUNS_MODEL_RUN, "runs 0-10 of 11 (model_run)");
	expect_describe(NULL, 1, false, OSC_RUNS_WHOLE, "run 0 of 1 (whole trace)");
	expect_describe("[0,2,5,6,7]", 8, false, OSC_RUNS_PROFILER_STEP,
			"runs 0,2,5-7 of 8 (ProfilerStep)");
	expect_describe("3:5", 8, false, OSC_RUNS_PROFILER_STEP,
			"runs 3,4 of 8 (ProfilerStep)");
	expect_describe("-1", 8, false, OSC_RUNS_ITERATION, "run 7 of 8 (Iteration)");
	/* long lists keep their head and their last segment */
	expect_describe("::2", 100, false, OSC_RUNS_PROFILER_STEP,
			"runs 0,2,4,6,8,10,...,98 of 100 (50 selected, ProfilerStep)");
	expect_describe("[0,2,4,6,8,10,12,13,14]", 20, true, OSC_RUNS_MODEL_RUN,
			"runs 0,2,4,6,8,10,...,12-14 of 20 (9 selected, model_run)");
}
