/*
 * test_summary_names.c - a summary file's kernel rows shown in another name
 * style: each label's kernel replaced where the row shows it, rows that then
 * agree merged (sums added, min and max kept), every other row as it was.
 */
#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>

#include "opscope/analysis/summary_names.h"
#include "opscope/model/level.h"

/* One row: level, run, label, recorded kernel name ("" none), count, total, min, max. */
static void add(struct osc_summary *s, enum osc_level l, uint32_t run, const char *label,
		const char *kernel, uint64_t count, int64_t total, int64_t min, int64_t max)
{
	struct osc_sum_row r = { .level = (uint8_t)l, .run = run, .count = count,
				 .kernels = count, .total = total, .self = 1, .dev = total,
				 .dev_total = total, .min = min, .max = max };

	r.key = osc_summary_intern(s, label);
	r.kernel = osc_summary_intern(s, kernel);
	osc_summary_add_row(s, &r);
}

/* Rows as a file written by `opscope summary` holds them: demangled labels, recorded names. */
static void rank(struct osc_summary *s)
{
	osc_summary_init(s);
	osc_summary_add_run(s, &(struct osc_sum_run){ 0 });
	osc_summary_add_run(s, &(struct osc_sum_run){ 0 });
	add(s, OSC_LEVEL_KERNEL, 0, "void ns::k<int>(int)", "void ns::k<int>(int)", 2, 10, 1, 7);
	add(s, OSC_LEVEL_KERNEL, 0, "void ns::k<float>(float)", "void ns::k<float>(float)", 3,
	    20, 4, 9);
	add(s, OSC_LEVEL_KERNEL, 1, "void ns::k<int>(int)", "void ns::k<int>(int)", 1, 5, 5, 5);
	add(s, OSC_LEVEL_KERNEL, 0, "foo(int)", "_Z3fooi", 1, 3, 3, 3);
	add(s, OSC_LEVEL_KERNEL, 0, "void ns::old<int>(int)", "", 1, 2, 2, 2);
	add(s, OSC_LEVEL_KERNEL, 0, "elsewhere", "void ns::z<int>()", 1, 1, 1, 1);
	add(s, OSC_LEVEL_DIMS, 0, "void ns::k<int>(int) b128x1x1,g4x1x1", "void ns::k<int>(int)", 2,
	    10, 1, 7);
	add(s, OSC_LEVEL_MAPPING, 0, "aten::add > void ns::k<int>(int)  b128x1x1,g4x1x1",
	    "void ns::k<int>(int)", 2, 10, 1, 7);
	add(s, OSC_LEVEL_OP, 0, "void ns::k<int>(int)", "", 4, 40, 1, 20);
	osc_summary_sort(s);
}

/* The row of level l, run and label, or NULL. */
static const struct osc_sum_row *row(const struct osc_summary *s, enum osc_level l,
				     uint32_t run, const char *label)
{
	size_t first, n = osc_summary_rows_of(s, l, run, &first);

	for (size_t i = first; i < first + n; i++)
		if (!strcmp(osc_summary_str(s, s->rows[i].key), label))
			return &s->rows[i];
	return NULL;
}

Test(summary_names, short_names_replace_the_kernel_and_merge_rows)
{
	struct osc_summary s;
	struct osc_error err;
	const struct osc_sum_row *r;
	size_t kept = 99;

	rank(&s);
	cr_assert_eq(osc_summary_restyle(&s, OSC_NAMES_SHORT, NULL, &kept, &err), OSC_OK);
	r = row(&s, OSC_LEVEL_KERNEL, 0, "ns::k");
	cr_assert(r);
	cr_expect(r->count == 5 && r->kernels == 5 && r->total == 30 && r->self == 2 &&
		  r->dev == 30 && r->dev_total == 30 && r->min == 1 && r->max == 9);
	r = row(&s, OSC_LEVEL_KERNEL, 1, "ns::k"); /* another run: a row of its own */
	cr_expect(r && r->count == 1 && r->total == 5);
	cr_expect(row(&s, OSC_LEVEL_KERNEL, 0, "foo"));
	cr_expect(row(&s, OSC_LEVEL_DIMS, 0, "ns::k b128x1x1,g4x1x1"));
	cr_expect(row(&s, OSC_LEVEL_MAPPING, 0, "aten::add > ns::k  b128x1x1,g4x1x1"));
	/* no recorded name, or one the label does not show: as written */
	cr_expect(row(&s, OSC_LEVEL_KERNEL, 0, "void ns::old<int>(int)"));
	cr_expect(row(&s, OSC_LEVEL_KERNEL, 0, "elsewhere"));
	cr_expect_eq(kept, 2);
	cr_expect(row(&s, OSC_LEVEL_OP, 0, "void ns::k<int>(int)"), "op rows are never touched");
	cr_expect_eq(s.nr_rows, 9 - 1);
	osc_summary_release(&s);
}

/*
 * A label of a million " > k" and a kernel named as half of them and an x,
 * which the label does not show: one search finds that, where a comparison
 * at each " > " would take about 10^12 steps (a hostile file must not hang
 * the job).
 */
Test(summary_names, repeated_text_is_searched_once)
{
	size_t n = 1000000, half = n / 2;
	char *label = malloc(2 + 4 * n + 1), *kernel = malloc(4 * half);
	struct osc_summary s;
	struct osc_error err;
	size_t kept = 99;

	memcpy(label, "op", 2);
	for (size_t i = 0; i < n; i++)
		memcpy(label + 2 + 4 * i, " > k", 4);
	label[2 + 4 * n] = '\0';
	memcpy(kernel, label + 5, 4 * half - 1); /* "k > k ... > x" */
	kernel[4 * half - 2] = 'x';
	kernel[4 * half - 1] = '\0';
	osc_summary_init(&s);
	osc_summary_add_run(&s, &(struct osc_sum_run){ 0 });
	add(&s, OSC_LEVEL_MAPPING, 0, label, kernel, 1, 1, 1, 1);
	cr_assert_eq(osc_summary_restyle(&s, OSC_NAMES_SHORT, NULL, &kept, &err), OSC_OK);
	cr_expect_eq(kept, 1, "not shown: kept as written");
	cr_expect_str_eq(osc_summary_str(&s, s.rows[0].key), label);
	osc_summary_release(&s);
	free(kernel);
	free(label);
}

Test(summary_names, mangled_names_are_the_recorded_ones)
{
	struct osc_summary s;
	struct osc_error err;

	rank(&s);
	cr_assert_eq(osc_summary_restyle(&s, OSC_NAMES_MANGLED, NULL, NULL, &err), OSC_OK);
	cr_expect(row(&s, OSC_LEVEL_KERNEL, 0, "_Z3fooi"));
	cr_expect(!row(&s, OSC_LEVEL_KERNEL, 0, "foo(int)"));
	cr_expect(row(&s, OSC_LEVEL_KERNEL, 0, "void ns::k<float>(float)"));
	cr_expect_eq(s.nr_rows, 9);
	osc_summary_release(&s);
}

Test(summary_names, the_written_style_changes_nothing)
{
	struct osc_summary s;
	struct osc_error err;
	size_t kept = 99;

	rank(&s);
	cr_assert_eq(osc_summary_restyle(&s, OSC_NAMES_DEMANGLED, NULL, &kept, &err), OSC_OK);
	cr_expect_eq(kept, 0);
	cr_expect_eq(s.nr_rows, 9);
	cr_expect(row(&s, OSC_LEVEL_KERNEL, 0, "foo(int)"));
	osc_summary_release(&s);
}

Test(summary_names, another_demangler_shows_its_own_text)
{
	struct osc_summary s;
	struct osc_error err;

	rank(&s); /* cat echoes every name: none is demangled */
	cr_assert_eq(osc_summary_restyle(&s, OSC_NAMES_DEMANGLED, "cat", NULL, &err), OSC_OK);
	cr_expect(row(&s, OSC_LEVEL_KERNEL, 0, "_Z3fooi"));
	cr_expect(row(&s, OSC_LEVEL_KERNEL, 0, "void ns::k<int>(int)"));
	osc_summary_release(&s);
}

Test(summary_names, a_failing_demangler_leaves_the_rows)
{
	struct osc_summary s;
	struct osc_error err;

	rank(&s);
	cr_assert_eq(osc_summary_restyle(&s, OSC_NAMES_SHORT, "false", NULL, &err), OSC_IO);
	cr_expect_str_eq(err.subject, "--demangler");
	cr_expect_eq(s.nr_rows, 9);
	cr_expect(row(&s, OSC_LEVEL_KERNEL, 0, "foo(int)"));
	osc_summary_release(&s);
}
