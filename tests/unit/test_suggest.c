/* test_suggest.c - "did you mean": edit distance and the closest candidate. */
#include <criterion/criterion.h>

#include "opscope/base/suggest.h"

Test(suggest, distance)
{
	static const struct {
		const char *a, *b;
		size_t d;
	} cases[] = {
		{ "", "", 0 },          { "abc", "", 3 },        { "", "ab", 2 },
		{ "kernel", "kernel", 0 }, { "kernal", "kernel", 1 }, /* substitution */
		{ "reprot", "report", 1 },  /* swap of neighbours */
		{ "frmat", "format", 1 },   /* deletion */
		{ "selff", "self", 1 },     /* insertion */
		{ "op", "shape", 4 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		cr_expect_eq(osc_edit_distance(cases[i].a, cases[i].b), cases[i].d, "%s/%s",
			     cases[i].a, cases[i].b);
}

Test(suggest, closest)
{
	const char *cmds[] = { "info", "report", "explore", "diff", "whatif", "tree", NULL };
	const char *cols[] = { "name", "count", "total_us", "self_us", "self_pct", "device_us" };

	cr_expect_str_eq(osc_suggest("reprot", cmds, 7), "report");
	cr_expect_str_eq(osc_suggest("trre", cmds, 7), "tree");
	cr_expect_null(osc_suggest("zzzzzz", cmds, 7));
	cr_expect_null(osc_suggest("", cmds, 7));
	cr_expect_null(osc_suggest("report", cmds, 7)); /* itself is no suggestion */
	/* the unit left out: the shortest name starting with the word */
	cr_expect_str_eq(osc_suggest("total", cols, 6), "total_us");
	cr_expect_str_eq(osc_suggest("self", cols, 6), "self_us");
	/* a short word allows one edit only */
	cr_expect_str_eq(osc_suggest("nme", cols, 6), "name");
	cr_expect_null(osc_suggest("xy", cols, 6));
	/* the nearest wins over the first close one */
	cr_expect_str_eq(osc_suggest("devise_us", cols, 6), "device_us");
}
