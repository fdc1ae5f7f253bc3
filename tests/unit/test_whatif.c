/* test_whatif.c - speedup rules, the projection, the Amdahl ceiling and the CSV table. */
#include <criterion/criterion.h>
#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opscope/analysis/diff.h"
#include "opscope/analysis/whatif.h"
#include "trace_fixture.h"

static void project(const struct osc_trace *t, const char *const *rules, size_t nr,
		    struct osc_agg *agg, struct osc_speedups *s, struct osc_whatif *w)
{
	struct osc_query q = { .level = OSC_LEVEL_OP };
	struct osc_error err;

	osc_aggregate(t, NULL, &q, agg);
	osc_speedups_init(s);
	for (size_t i = 0; i < nr; i++)
		cr_assert_eq(osc_speedups_parse(s, rules[i], &err), OSC_OK, "%s: %s", rules[i],
			     err.message);
	osc_whatif(t, agg, s, w);
}

static void done(struct osc_trace *t, struct osc_agg *agg, struct osc_speedups *s,
		 struct osc_whatif *w)
{
	osc_whatif_release(w);
	osc_speedups_release(s);
	osc_agg_release(agg);
	osc_trace_release(t);
}

static const struct osc_whatif_row *row_named(const struct osc_whatif *w, const char *name)
{
	for (size_t i = 0; i < w->nr; i++)
		if (!strcmp(w->labels[w->rows[i].agg_row], name))
			return &w->rows[i];
	cr_assert_fail("no row '%s'", name);
	return NULL;
}

/*
 * A 100 (two events of 50), B 300; A=2:
 * projected 50 + 300 = 350, speedup 400/350, affected 100 (25 %), ceiling 400/300.
 */
Test(whatif, one_rule_amdahl)
{
	static const struct fx_event ev[] = {
		FX("A", HOST_OP, 0, 50), FX("A", HOST_OP, 100, 50), FX("B", HOST_OP, 200, 300),
	};
	static const char *const rules[] = { "A=2" };
	struct osc_trace t;
	struct osc_agg agg;
	struct osc_speedups s;
	struct osc_whatif w;
	const struct osc_whatif_row *r;
	char buf[256];

	fx_build(&t, OSC_FORMAT_CHROME, ev, FX_LEN(ev));
	project(&t, rules, 1, &agg, &s, &w);
	cr_expect_eq(w.total, 400);
	cr_expect_float_eq(w.projected, 350.0, 1e-9);
	cr_expect_eq(w.affected, 100);
	cr_expect_float_eq(w.affected_pct, 25.0, 1e-9);
	cr_expect_float_eq(w.speedup, 400.0 / 350.0, 1e-12);
	cr_expect_float_eq(w.ceiling, 400.0 / 300.0, 1e-12);
	r = row_named(&w, "A");
	cr_expect_eq(r->count, 2);
	cr_expect_eq(r->total, 100);
	cr_expect_float_eq(r->projected, 50.0, 1e-9);
	cr_expect_float_eq(r->saved, 50.0, 1e-9);
	cr_expect_float_eq(r->factor, 2.0, 1e-12);
	r = row_named(&w, "B");
	cr_expect_eq(r->count, 1);
	cr_expect_eq(r->total, 300);
	cr_expect_float_eq(r->factor, 1.0, 1e-12);
	cr_expect_float_eq(r->pct, 75.0, 1e-9);
	cr_expect_str_eq(osc_whatif_summary(&w, buf, sizeof(buf)),
			 "per run host busy 0.400 us -> 0.350 us (1.143x), 25.00% of it affected, "
			 "ceiling 1.333x");
	osc_whatif_sort(&w, OSC_WHATIF_SAVED, true);
	cr_expect_str_eq(osc_whatif_cell(&w, 0, OSC_WHATIF_NAME, buf, sizeof(buf)), "A");
	cr_expect_str_eq(osc_whatif_cell(&w, 0, OSC_WHATIF_FACTOR, buf, sizeof(buf)), "2.000");
	cr_expect_str_eq(osc_whatif_cell(&w, 0, OSC_WHATIF_PROJECTED, buf, sizeof(buf)), "0.050");
	done(&t, &agg, &s, &w);
}

/* Wildcards, first rule wins, everything affected: the ceiling is unbounded. */
/*
 * Nested ops, on exclusive time (whatif.h):
 *   linear [0,100)            self 40
 *   └─ addmm [10,70)          self 60
 *   B [200,300)               self 100      host busy 200
 * linear=2: linear and everything in it once: saved 20 + 30, 200 -> 150
 * (1.333x), affected 100, ceiling 2. addmm=2 as well: no change (no
 * compounding). addmm=4 instead: the innermost rule wins for addmm's own
 * time: saved 20 + 45, 200 -> 135. addmm=2 alone: saved 30, ceiling 200/140.
 */
Test(whatif, nested_rules_do_not_compound)
{
	static const struct fx_event ev[] = {
		FX("linear", HOST_OP, 0, 100), FX("addmm", HOST_OP, 10, 60), FX("B", HOST_OP, 200, 100),
	};
	static const struct {
		const char *rules[2];
		size_t nr;
		double projected, ceiling, addmm_projected;
	} cases[] = {
		{ { "linear=2" }, 1, 150, 2, 30 },
		{ { "linear=2", "addmm=2" }, 2, 150, 2, 30 },
		{ { "linear=2", "addmm=4" }, 2, 135, 2, 15 },
		{ { "addmm=2" }, 1, 170, 200.0 / 140, 30 },
	};

	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct osc_trace t;
		struct osc_agg agg;
		struct osc_speedups s;
		struct osc_whatif w;

		fx_build(&t, OSC_FORMAT_CHROME, ev, FX_LEN(ev));
		project(&t, cases[c].rules, cases[c].nr, &agg, &s, &w);
		cr_expect_eq(w.total, 200, "case %zu", c);
		cr_expect_float_eq(w.projected, cases[c].projected, 1e-9, "case %zu", c);
		cr_expect_float_eq(w.ceiling, cases[c].ceiling, 1e-12, "case %zu", c);
		cr_expect_leq(w.speedup, w.ceiling, "case %zu", c);
		cr_expect_eq(row_named(&w, "addmm")->total, 60);
		cr_expect_float_eq(row_named(&w, "addmm")->projected, cases[c].addmm_projected, 1e-9,
				   "case %zu", c);
		cr_expect_float_eq(row_named(&w, "B")->projected, 100, 1e-9);
		done(&t, &agg, &s, &w);
	}
}

/*
 * No rule at all (the TUI's W before '='), at a host and a device level:
 * every row as a rule that matches nothing leaves it, its own time (self
 * time of nested ops; kernel durations) projected unchanged.
 */
Test(whatif, no_rule_is_a_rule_matching_nothing)
{
	static const struct fx_event ev[] = {
		FX("linear", HOST_OP, 0, 100), FX("addmm", HOST_OP, 10, 60),
		FX("B", HOST_OP, 200, 100), FX("linear", HOST_OP, 400, 30),
		FX("k1", KERNEL, 20, 40), FX("k2", KERNEL, 70, 5), FX("k1", KERNEL, 210, 7),
	};
	static const enum osc_level levels[] = { OSC_LEVEL_OP, OSC_LEVEL_PATH, OSC_LEVEL_KERNEL };
	struct osc_trace t;
	struct osc_speedups none, nothing;
	struct osc_error err;

	fx_build(&t, OSC_FORMAT_CHROME, ev, FX_LEN(ev));
	osc_speedups_init(&none);
	osc_speedups_init(&nothing);
	cr_assert_eq(osc_speedups_parse(&nothing, "nothing=2", &err), OSC_OK);
	for (size_t l = 0; l < sizeof(levels) / sizeof(levels[0]); l++) {
		struct osc_query q = { .level = levels[l] };
		struct osc_agg agg;
		struct osc_whatif a, b;

		osc_aggregate(&t, NULL, &q, &agg);
		osc_whatif(&t, &agg, &none, &a);
		osc_whatif(&t, &agg, &nothing, &b);
		cr_assert_eq(a.nr, b.nr);
		cr_expect_eq(a.total, b.total, "level %zu", l);
		cr_expect_eq(a.projected, b.projected, "level %zu", l);
		for (size_t r = 0; r < a.nr; r++) {
			cr_expect_eq(a.rows[r].total, b.rows[r].total, "level %zu row %zu", l, r);
			cr_expect_eq(a.rows[r].projected, b.rows[r].projected, "level %zu row %zu",
				     l, r);
			cr_expect_eq(a.rows[r].factor, 1);
			cr_expect_eq(a.rows[r].saved, 0);
		}
		cr_expect_eq(row_named(&a, levels[l] == OSC_LEVEL_KERNEL ? "k1" : "linear")->total,
			     levels[l] == OSC_LEVEL_KERNEL ? 47 : 40 + 30, "level %zu", l);
		osc_whatif_release(&a);
		osc_whatif_release(&b);
		osc_agg_release(&agg);
	}
	osc_speedups_release(&none);
	osc_speedups_release(&nothing);
	osc_trace_release(&t);
}

Test(whatif, wildcard_first_rule_wins)
{
	static const struct fx_event ev[] = {
		FX("Conv", HOST_OP, 0, 40), FX("ConvTranspose", HOST_OP, 100, 60),
	};
	static const char *const rules[] = { "ConvT*=3", "Conv*=2" };
	struct osc_trace t;
	struct osc_agg agg;
	struct osc_speedups s;
	struct osc_whatif w;
	char buf[256];

	fx_build(&t, OSC_FORMAT_CHROME, ev, FX_LEN(ev));
	project(&t, rules, 2, &agg, &s, &w);
	cr_expect_float_eq(row_named(&w, "ConvTranspose")->projected, 20.0, 1e-9);
	cr_expect_float_eq(row_named(&w, "Conv")->projected, 20.0, 1e-9);
	cr_expect(isinf(w.ceiling));
	cr_expect(strstr(osc_whatif_summary(&w, buf, sizeof(buf)), "ceiling unbounded"));
	done(&t, &agg, &s, &w);
}

/*
 * Each row's label is osc_agg_label_names' at the op level (where it is the
 * trace's own string, not a copy) and at the path level (a copy: B$$C), and
 * a name longer than a label is cut as osc_agg_label_names cuts it.
 */
Test(whatif, labels_are_the_rows_label_names)
{
	static const enum osc_level levels[] = { OSC_LEVEL_OP, OSC_LEVEL_PATH };
	static char long_name[6000];
	struct fx_event ev[] = {
		FX("A", HOST_OP, 0, 50), FX("B", HOST_OP, 100, 50), FX("C", HOST_OP, 110, 10),
		FX(long_name, HOST_OP, 200, 300),
	};
	struct osc_trace t;
	struct osc_speedups s;
	char *want = malloc(1 << 16);

	memset(long_name, 'x', sizeof(long_name) - 1);
	fx_build(&t, OSC_FORMAT_CHROME, ev, FX_LEN(ev));
	osc_speedups_init(&s);
	for (size_t l = 0; l < sizeof(levels) / sizeof(levels[0]); l++) {
		struct osc_query q = { .level = levels[l] };
		struct osc_agg agg;
		struct osc_whatif w;
		size_t cut = 0;

		osc_aggregate(&t, NULL, &q, &agg);
		osc_whatif(&t, &agg, &s, &w);
		cr_assert_eq(w.nr_labels, 4);
		for (size_t r = 0; r < agg.nr; r++) {
			size_t len = strlen(w.labels[r]);

			osc_agg_label_names(&t, &agg, NULL, &agg.rows[r], want, 1 << 16);
			if (strlen(want) < 1000) {
				cr_assert_str_eq(w.labels[r], want, "level %zu row %zu", l, r);
				continue;
			}
			/* cut as osc_agg_label_names cuts to the size of a label */
			cr_assert(len >= 1000 && len < strlen(want) &&
					  !strncmp(w.labels[r], want, len),
				  "level %zu row %zu: %zu bytes", l, r, len);
			osc_agg_label_names(&t, &agg, NULL, &agg.rows[r], want, len + 1);
			cr_assert_str_eq(w.labels[r], want);
			cut++;
		}
		cr_assert_eq(cut, 1, "the long name was not cut");
		osc_whatif_release(&w);
		osc_agg_release(&agg);
	}
	osc_speedups_release(&s);
	osc_trace_release(&t);
	free(want);
}

/* A weight shape (one input's dims) or the whole shape list, exact or compact. */
Test(whatif, shape_rules)
{
	static const struct fx_event ev[] = {
		FX("InnerProduct", HOST_OP, 0, 80), FX("InnerProduct", HOST_OP, 100, 20),
	};
	static const char *const rules[] = { "InnerProduct@256x256=4" };
	struct osc_trace t;
	struct osc_agg agg;
	struct osc_speedups s;
	struct osc_whatif w;
	struct osc_error err;

	fx_build(&t, OSC_FORMAT_NEURAL_ENGINE, ev, FX_LEN(ev));
	t.events[0].shape = fx_str(&t, "fp32(1024x256),fp32(256x256),fp32(256)");
	t.events[1].shape = fx_str(&t, "fp32(1024x256),fp32(256x1024)");
	project(&t, rules, 1, &agg, &s, &w);
	cr_expect_float_eq(w.projected, 20.0 + 20.0, 1e-9);
	osc_whatif_release(&w);
	cr_assert_eq(osc_speedups_parse(&s, "InnerProduct@f-1024x256,f-256x1024=2", &err), OSC_OK);
	osc_whatif(&t, &agg, &s, &w);
	cr_expect_float_eq(w.projected, 20.0 + 10.0, 1e-9);
	osc_whatif_release(&w);
	/* "1024" is not a whole input's dims. */
	osc_speedups_release(&s);
	cr_assert_eq(osc_speedups_parse(&s, "InnerProduct@1024=2", &err), OSC_OK);
	osc_whatif(&t, &agg, &s, &w);
	cr_expect_float_eq(w.projected, 100.0, 1e-9);
	done(&t, &agg, &s, &w);
}

Test(whatif, rule_syntax_and_set)
{
	struct osc_speedups s;
	struct osc_error err;
	static const char *const bad[] = { "Conv", "Conv=", "Conv=0", "Conv=-2", "Conv=nan",
					   "Conv=inf", "=2", "Conv=2x", "Conv=1e-308",
					   "Conv=1.000001e6", "Conv=9e-7" };

	osc_speedups_init(&s);
	for (size_t i = 0; i < FX_LEN(bad); i++) {
		cr_expect_eq(osc_speedups_parse(&s, bad[i], &err), OSC_USAGE, "%s", bad[i]);
		cr_expect_str_eq(err.subject, "--speedup");
	}
	cr_assert_eq(s.nr, 0);
	/* the range's ends are factors (issue 16: 1e-308 printed "inf us") */
	cr_expect_eq(osc_speedups_set(&s, "A", NULL, OSC_SPEEDUP_MAX, &err), OSC_OK);
	cr_expect_eq(osc_speedups_set(&s, "B", NULL, OSC_SPEEDUP_MIN, &err), OSC_OK);
	cr_expect_eq(osc_speedups_set(&s, "A", NULL, 1, &err), OSC_OK);
	cr_expect_eq(osc_speedups_set(&s, "B", NULL, 1, &err), OSC_OK);
	cr_assert_eq(s.nr, 0);
	cr_expect_eq(osc_speedups_parse(&s, "Conv@1x2=2.5", &err), OSC_OK);
	cr_expect_str_eq(s.v[0].pattern, "Conv");
	cr_expect_str_eq(s.v[0].shape, "1x2");
	cr_expect_float_eq(s.v[0].factor, 2.5, 1e-12);
	/* Same pattern and shape: replaced; factor 1 removes. */
	cr_expect_eq(osc_speedups_set(&s, "Conv", "1x2", 4, &err), OSC_OK);
	cr_expect_eq(s.nr, 1);
	cr_expect_float_eq(s.v[0].factor, 4, 1e-12);
	cr_expect_eq(osc_speedups_set(&s, "Relu", NULL, 3, &err), OSC_OK);
	cr_expect_eq(osc_speedups_set(&s, "Conv", "1x2", 1, &err), OSC_OK);
	cr_expect_eq(s.nr, 1);
	cr_expect_str_eq(s.v[0].pattern, "Relu");
	osc_speedups_release(&s);
}

Test(whatif, csv_table)
{
	char path[] = "/tmp/opscope-whatif-XXXXXX";
	int fd = mkstemp(path);
	FILE *f = fdopen(fd, "w");
	struct osc_speedups s;
	struct osc_error err;

	cr_assert(f);
	fputs("op,shape,factor\n# NE's 70% 4x1 column\nInnerProduct,256x256,2\n\n"
	      "\"MatMul\",,1.5\r\n",
	      f);
	fclose(f);
	osc_speedups_init(&s);
	cr_expect_eq(osc_speedups_read_csv(&s, path, &err), OSC_OK, "%s", err.message);
	cr_assert_eq(s.nr, 2);
	cr_expect_str_eq(s.v[0].shape, "256x256");
	cr_expect_str_eq(s.v[1].pattern, "MatMul");
	cr_expect_str_eq(s.v[1].shape, "");
	cr_expect_float_eq(s.v[1].factor, 1.5, 1e-12);
	osc_speedups_release(&s);
	f = fopen(path, "w");
	fputs("Conv,,2\nRelu,,fast\n", f);
	fclose(f);
	osc_speedups_init(&s);
	cr_expect_eq(osc_speedups_read_csv(&s, path, &err), OSC_USAGE);
	cr_expect_str_eq(err.field, "line 2");
	osc_speedups_release(&s);
	unlink(path);
	cr_expect_eq(osc_speedups_read_csv(&s, path, &err), OSC_IO);
}

/*
 * Past a handful of rules each (row, name, op, shape) is matched once and
 * remembered: the answers must be those of the rules tested per event. A
 * alternates two shapes that two rules tell apart; B is filtered out of the
 * rows, so it matches by its op name, and C nested in it takes B's factor;
 * E nested in D, which no rule names, keeps its time.
 */
Test(whatif, many_rules_per_event_and_node)
{
	static const struct fx_event ev[] = {
		FX("A", HOST_OP, 0, 40),   FX("A", HOST_OP, 100, 40), FX("A", HOST_OP, 200, 40),
		FX("B", HOST_OP, 300, 100), FX("C", HOST_OP, 310, 20), FX("D", HOST_OP, 500, 50),
		FX("E", HOST_OP, 510, 10),
	};
	static const char *const rules[] = { "A@4x4=4", "*@8x8=2", "B=10" };
	struct osc_trace t;
	struct osc_filter filter;
	struct osc_query q = { .level = OSC_LEVEL_OP, .filter = &filter };
	struct osc_agg agg;
	struct osc_error err;

	fx_build(&t, OSC_FORMAT_NEURAL_ENGINE, ev, FX_LEN(ev));
	t.events[0].shape = t.events[2].shape = fx_str(&t, "fp32(8x8)");
	t.events[1].shape = t.events[3].shape = fx_str(&t, "fp32(4x4)");
	osc_filter_init(&filter);
	osc_filter_add_pattern(&filter, "A");
	osc_filter_add_pattern(&filter, "C");
	osc_filter_add_pattern(&filter, "E");
	osc_aggregate(&t, NULL, &q, &agg);
	for (size_t fillers = 0; fillers <= 9; fillers += 9) { /* 3 rules, then 12 */
		struct osc_speedups s;
		struct osc_whatif w;

		osc_speedups_init(&s);
		for (size_t i = 0; i < fillers; i++) {
			char rule[80];

			snprintf(rule, sizeof(rule), "Z%zu@%zux%zu=5", i, i, i);
			cr_assert_eq(osc_speedups_parse(&s, rule, &err), OSC_OK);
		}
		for (size_t i = 0; i < FX_LEN(rules); i++)
			cr_assert_eq(osc_speedups_parse(&s, rules[i], &err), OSC_OK);
		osc_whatif(&t, &agg, &s, &w);
		cr_expect_float_eq(row_named(&w, "A")->projected, 40 / 2.0 + 40 / 4.0 + 40 / 2.0,
				   1e-9, "%zu rules", s.nr);
		cr_expect_float_eq(row_named(&w, "C")->projected, 20 / 10.0, 1e-9, "%zu rules",
				   s.nr);
		cr_expect_float_eq(row_named(&w, "E")->projected, 10, 1e-9, "%zu rules", s.nr);
		osc_whatif_release(&w);
		osc_speedups_release(&s);
	}
	osc_agg_release(&agg);
	osc_filter_release(&filter);
	osc_trace_release(&t);
}

/*
 * whatif.h's shape test, written from its words: the event's shapes, their
 * compact form, or the dims of one input: text after a '(' followed by ')'.
 */
static bool ref_shape(const char *text, const char *want)
{
	char compact[4096];
	size_t n = strlen(want);

	if (!*want || !strcmp(text, want) ||
	    !strcmp(osc_shape_compact(text, compact, sizeof(compact)), want))
		return true;
	for (const char *p = text; *p; p++)
		if (*p == '(' && !strncmp(p + 1, want, n) && p[1 + n] == ')')
			return true;
	return false;
}

/*
 * With a table of rules (past 8, looked up by shape; with 8 more without a
 * shape, also mapped) and with its first rules only, every row's
 * projection equals one made from the first rule that the event's name
 * (fnmatch) and shape match. The shapes hold empty inputs, nested
 * parentheses, no parentheses and none at all; the rules hold shapes that
 * span inputs ("1x2),f(3x4"), one shape under two patterns, and rules
 * without a shape between them.
 */
Test(whatif, shape_table_matches_the_definition)
{
	static const char *const shapes[] = {
		"fp32(1024x256),fp32(256x256),fp32(256)", "fp32(256x256)", "Double(),float(2x3)",
		"((1x7x7))", "f(1x2),f(3x4),f(5x6)", "", "no parens", "(a(b)c)",
		"float(2x3),float(2x3)",
	};
	static const char *const names[] = { "Conv", "MatMul", "Add" };
	static const char *const rules[][3] = {
		{ "MatMul", "256x256", "2" },
		{ "*", "f-1024x256,f-256x256,f-256", "47" }, /* compact */
		{ "*", "(1x7x7)", "3" },
		{ "A*", "", "5" },
		{ "*", "fp32(256x256)", "31" }, /* the whole text */
		{ "*", "1x2),f(3x4", "7" },
		{ "Conv", "", "11" },
		{ "*", "a(b", "29" },
		{ "*", "b", "13" },
		{ "*", "2x3", "19" },
		{ "M*", "2x3", "23" },
		{ "*", "", "37" },
		{ "*", "5x6", "41" },
		{ "Add", "1x2", "43" },
	};
	struct fx_event ev[FX_LEN(shapes) * FX_LEN(names)];
	struct osc_trace t;
	struct osc_query q = { .level = OSC_LEVEL_OP };
	struct osc_query by_shape = { .level = OSC_LEVEL_SHAPE };
	struct osc_agg agg, single;
	struct osc_error err;

	for (size_t i = 0; i < FX_LEN(ev); i++)
		ev[i] = (struct fx_event)FX(names[i % FX_LEN(names)], HOST_OP, (int64_t)i * 100,
					    10 + (int64_t)i);
	fx_build(&t, OSC_FORMAT_NEURAL_ENGINE, ev, FX_LEN(ev));
	for (size_t i = 0; i < FX_LEN(ev); i++)
		t.events[i].shape = fx_str(&t, shapes[i / FX_LEN(names)]);
	osc_aggregate(&t, NULL, &q, &agg);
	osc_aggregate(&t, NULL, &by_shape, &single); /* a member per row: no recent answers */
	/* 3 rules: tested one by one; 14: looked up by shape; 8 more without a shape first
	   (names that no event has): looked up and mapped */
	for (size_t round = 0, nr = 3; round < 3; round++, nr = FX_LEN(rules)) {
		struct osc_speedups s;
		struct osc_whatif w;
		size_t fired = 0;

		osc_speedups_init(&s);
		for (size_t k = 0; round == 2 && k < 8; k++) {
			char none[16];

			snprintf(none, sizeof(none), "Zz%zu*", k);
			cr_assert_eq(osc_speedups_set(&s, none, "", 99, &err), OSC_OK);
		}
		for (size_t k = 0; k < nr; k++)
			cr_assert_eq(osc_speedups_set(&s, rules[k][0], rules[k][1],
						      atof(rules[k][2]), &err), OSC_OK);
		osc_whatif(&t, &agg, &s, &w);
		for (size_t n = 0; n < FX_LEN(names); n++) {
			double want = 0;

			for (size_t i = n; i < FX_LEN(ev); i += FX_LEN(names)) {
				double f = 1;

				for (size_t k = 0; k < nr; k++) {
					if (!fnmatch(rules[k][0], names[n], 0) &&
					    ref_shape(shapes[i / FX_LEN(names)], rules[k][1])) {
						f = atof(rules[k][2]);
						break;
					}
				}
				fired += f != 1;
				want += (double)ev[i].dur / f;
			}
			cr_expect_float_eq(row_named(&w, names[n])->projected, want, 1e-9,
					   "%s, %zu rules", names[n], s.nr);
		}
		cr_expect_gt(fired, 5);
		osc_whatif_release(&w);
		osc_whatif(&t, &single, &s, &w);
		for (size_t r = 0; r < single.nr; r++) {
			uint32_t i = single.members[single.rows[r].first];
			double f = 1;

			for (size_t k = 0; k < nr; k++) {
				if (!fnmatch(rules[k][0], names[i % FX_LEN(names)], 0) &&
				    ref_shape(shapes[i / FX_LEN(names)], rules[k][1])) {
					f = atof(rules[k][2]);
					break;
				}
			}
			cr_expect_eq(single.rows[r].nr, 1);
			cr_expect_float_eq(w.rows[r].projected, (double)ev[i].dur / f, 1e-9,
					   "event %u, %zu rules", i, s.nr);
		}
		osc_whatif_release(&w);
		osc_speedups_release(&s);
	}
	osc_agg_release(&agg);
	osc_agg_release(&single);
	osc_trace_release(&t);
}

/* The order osc_whatif_sort promises: the column, then the label, then the row. */
static int reference_cmp(const struct osc_whatif *w, const struct osc_whatif_row *x,
			 const struct osc_whatif_row *y, enum osc_whatif_col by, bool desc)
{
	double a = by == OSC_WHATIF_COUNT	? (double)x->count
		   : by == OSC_WHATIF_FACTOR	? x->factor
		   : by == OSC_WHATIF_PROJECTED ? x->projected
		   : by == OSC_WHATIF_SAVED	? x->saved
						: (double)x->total;
	double b = by == OSC_WHATIF_COUNT	? (double)y->count
		   : by == OSC_WHATIF_FACTOR	? y->factor
		   : by == OSC_WHATIF_PROJECTED ? y->projected
		   : by == OSC_WHATIF_SAVED	? y->saved
						: (double)y->total;
	int c = by == OSC_WHATIF_NAME ? 0 : (a > b) - (a < b);

	if (c)
		return desc ? -c : c;
	c = strcmp(w->labels[x->agg_row], w->labels[y->agg_row]);
	if (c)
		return by == OSC_WHATIF_NAME && desc ? -c : c;
	return (x->agg_row > y->agg_row) - (x->agg_row < y->agg_row);
}

/* Ties, a slowdown (negative saved), shared prefixes: every column both ways. */
Test(whatif, sort_matches_a_comparison)
{
	static const struct fx_event ev[] = {
		FX("ab", HOST_OP, 0, 30),  FX("a", HOST_OP, 100, 30),  FX("b", HOST_OP, 200, 10),
		FX("b", HOST_OP, 300, 20), FX("abc", HOST_OP, 400, 5), FX("c", HOST_OP, 500, 30),
		FX("d", HOST_OP, 600, 0), FX("b", HOST_OP, 700, 20),
	};
	static const char *const rules[] = { "a=0.5", "c=3", "ab=2" };
	struct osc_trace t;
	struct osc_agg agg;
	struct osc_speedups s;
	struct osc_whatif w;

	fx_build(&t, OSC_FORMAT_CHROME, ev, FX_LEN(ev));
	/* a name with a NUL inside: its label reads "b", one place with b's */
	t.events[7].name = osc_trace_intern(&t, "b\0x", 3);
	if (t.extras)
		t.extras[7].op = t.events[7].name;
	project(&t, rules, FX_LEN(rules), &agg, &s, &w);
	cr_assert_eq(w.nr, 7);
	/* each column twice, one after another in the same direction: a sort by the
	   order already there keeps it, one by another column sorts */
	for (int k = 0; k < 4 * OSC_WHATIF_COL_COUNT; k++) {
		int col = k / 2 % OSC_WHATIF_COL_COUNT, desc = k / (2 * OSC_WHATIF_COL_COUNT);

		osc_whatif_sort(&w, (enum osc_whatif_col)col, desc);
		for (size_t i = 1; i < w.nr; i++) {
			const struct osc_whatif_row *a = osc_whatif_row_at(&w, i - 1);
			const struct osc_whatif_row *b = osc_whatif_row_at(&w, i);

			cr_expect(reference_cmp(&w, a, b, (enum osc_whatif_col)col, desc) < 0,
				  "column %d %s: %s before %s", col, desc ? "desc" : "asc",
				  w.labels[a->agg_row], w.labels[b->agg_row]);
		}
	}
	/* the first rows alone (a top N), by each column: those rows, in that order */
	w.nr = 5;
	for (int col = 0; col < OSC_WHATIF_COL_COUNT; col++) {
		bool seen[7] = { false };

		osc_whatif_sort(&w, (enum osc_whatif_col)col, true);
		for (size_t i = 0; i < w.nr; i++) {
			cr_assert_lt(w.order[i], 5, "column %d: row %u", col, w.order[i]);
			cr_assert(!seen[w.order[i]]);
			seen[w.order[i]] = true;
			if (i)
				cr_expect(reference_cmp(&w, osc_whatif_row_at(&w, i - 1),
							osc_whatif_row_at(&w, i),
							(enum osc_whatif_col)col, true) < 0,
					  "5 rows, column %d", col);
		}
	}
	done(&t, &agg, &s, &w);
}

/* Whether a and b, projections of the same rows, hold the same numbers to the bit. */
static void expect_same_projection(const struct osc_whatif *a, const struct osc_whatif *b,
				   const char *what)
{
	cr_assert_eq(a->nr, b->nr, "%s", what);
	for (size_t r = 0; r < a->nr; r++) {
		const struct osc_whatif_row *x = &a->rows[r], *y = &b->rows[r];

		cr_assert(x->agg_row == y->agg_row && x->count == y->count &&
				  x->total == y->total && x->projected == y->projected &&
				  x->saved == y->saved && x->factor == y->factor && x->pct == y->pct,
			  "%s: row %zu (%s): projected %.17g and %.17g, saved %.17g and %.17g", what,
			  r, a->labels[r], x->projected, y->projected, x->saved, y->saved);
	}
	cr_assert(a->projected == b->projected && a->affected == b->affected &&
			  a->affected_pct == b->affected_pct && a->speedup == b->speedup &&
			  a->ceiling == b->ceiling && a->device_saved == b->device_saved,
		  "%s: projected %.17g and %.17g, device saved %.17g and %.17g", what,
		  a->projected, b->projected, a->device_saved, b->device_saved);
}

/*
 * The projections of agg (of t) through the rules x and through y are the
 * same, to the bit, and x changes some row; returns whether x's labels are
 * the trace's names whole (names_whole).
 */
static bool expect_same_rules(const struct osc_trace *t, const struct osc_agg *agg,
			      const struct osc_speedups *x, const struct osc_speedups *y,
			      const char *what)
{
	struct osc_whatif a, b;
	size_t changed = 0;
	bool whole;

	osc_whatif(t, agg, x, &a);
	osc_whatif(t, agg, y, &b);
	expect_same_projection(&a, &b, what);
	for (size_t r = 0; r < a.nr; r++)
		changed += a.rows[r].factor != 1;
	cr_expect_gt(changed, 0, "%s: the rules change rows", what);
	whole = a.names_whole;
	osc_whatif_release(&a);
	osc_whatif_release(&b);
	return whole;
}

/*
 * A projection made again in place (osc_whatif_again) holds what a new
 * projection of the same rows holds, to the bit, through rule sets in turn
 * (one row's label, a slowdown and another, a wildcard, a shape, none), at
 * host and device levels of a real trace. Its order stays when by a column
 * the rules leave as it is, and is dropped when by one they change.
 */
Test(whatif, again_equals_a_new_projection)
{
	static const enum osc_level levels[] = { OSC_LEVEL_OP, OSC_LEVEL_SHAPE, OSC_LEVEL_PATH,
						 OSC_LEVEL_KERNEL, OSC_LEVEL_DIMS };
	struct osc_trace t;
	struct osc_error err;

	fx_load(&t, "samples/kineto-2021-resnet50.json.gz");
	for (size_t l = 0; l < FX_LEN(levels); l++) {
		struct osc_query q = { .level = levels[l] };
		struct osc_speedups none;
		struct osc_agg agg;
		struct osc_whatif w;
		size_t fired = 0;

		osc_aggregate(&t, NULL, &q, &agg);
		cr_assert_gt(agg.nr, 3, "level %zu", l);
		osc_speedups_init(&none);
		osc_whatif(&t, &agg, &none, &w);
		for (int k = 0; k < 6; k++) {
			enum osc_whatif_col by = k % 2 ? OSC_WHATIF_SAVED : OSC_WHATIF_TOTAL;
			const struct osc_whatif_row *top;
			struct osc_speedups s;
			struct osc_whatif fresh;
			char what[64], shape[512];

			osc_whatif_sort(&w, by, true);
			top = osc_whatif_row_at(&w, 0);
			snprintf(shape, sizeof(shape), "%s",
				 osc_trace_str(&t, t.events[agg.members[agg.rows[top->agg_row].first]]
							    .shape));
			osc_speedups_init(&s);
			if (k == 0)
				osc_speedups_set(&s, w.labels[top->agg_row], "", 2, &err);
			if (k == 1) {
				osc_speedups_set(&s, w.labels[top->agg_row], "", 0.5, &err);
				osc_speedups_set(&s, w.labels[osc_whatif_row_at(&w, 1)->agg_row], "",
						 4, &err);
			}
			if (k == 2)
				osc_speedups_set(&s, "*o*", "", 3, &err);
			if (k == 3 || k == 4)
				osc_speedups_set(&s, "*", *shape ? shape : "1x1", 1.5, &err);
			osc_whatif_again(&w, &s);
			osc_whatif(&t, &agg, &s, &fresh);
			snprintf(what, sizeof(what), "level %zu, rules %d", l, k);
			expect_same_projection(&w, &fresh, what);
			if (by == OSC_WHATIF_TOTAL)
				cr_assert_not_null(w.order, "%s: the order by time stays", what);
			else
				cr_assert_null(w.order, "%s: the order by time saved goes", what);
			osc_whatif_sort(&w, by, true);
			osc_whatif_sort(&fresh, by, true);
			cr_assert_arr_eq(w.order, fresh.order, w.nr * sizeof(*w.order), "%s", what);
			for (size_t r = 0; r < w.nr; r++)
				fired += w.rows[r].factor != 1;
			osc_whatif_release(&fresh);
			osc_speedups_release(&s);
		}
		cr_expect_gt(fired, 3, "level %zu: the rules change rows", l);
		osc_whatif_release(&w);
		osc_speedups_release(&none);
		osc_agg_release(&agg);
	}
	osc_trace_release(&t);
}

/*
 * A pattern that matches name alone without being an exact name: its first
 * byte in brackets ("[C]onv"), so fnmatch reads it; false when name holds
 * any of *?[\ or starts with a byte a bracket reads apart (!^]).
 */
static bool bracketed(const char *name, char *out, size_t size)
{
	if (!*name || strchr("!^]", name[0]) || strpbrk(name, "*?[\\") ||
	    strlen(name) + 3 > size)
		return false;
	snprintf(out, size, "[%c]%s", name[0], name + 1);
	return true;
}

/*
 * Rules of exact names give what the same rules read as wildcards give, to
 * the bit: exact names are matched by string id, and on a level whose
 * labels are op keys events whose name is their op key are not read
 * (whatif.c). Rules name the op level's labels and events' own names (an
 * ORT node's name is not its op key), with and without a shape rule beside
 * them, projected at the op level and at two whose labels are not op keys
 * (the TUI's Tab keeps the rules).
 */
Test(whatif, exact_rules_by_id_as_by_text)
{
	static const char *const traces[] = { "samples/ort-resnet18-opt.json",
					      "samples/kineto-2021-resnet50.json.gz" };

	for (size_t f = 0; f < FX_LEN(traces); f++) {
		struct osc_trace t;
		struct osc_query q = { .level = OSC_LEVEL_OP };
		struct osc_agg agg;
		struct osc_speedups none;
		struct osc_whatif w;
		const char *names[6];
		size_t nr = 0, named = 0;
		struct osc_error err;

		fx_load(&t, traces[f]);
		osc_aggregate(&t, NULL, &q, &agg);
		osc_speedups_init(&none);
		osc_whatif(&t, &agg, &none, &w);
		cr_assert(w.names_whole, "%s: labels are the op keys' strings", traces[f]);
		osc_whatif_sort(&w, OSC_WHATIF_TOTAL, true);
		for (size_t r = 0; r < w.nr && nr < 3; r++)
			names[nr++] = w.labels[osc_whatif_row_at(&w, r)->agg_row];
		for (size_t i = 0; i < t.nr_events && named < 3; i++) {
			const struct osc_event *e = &t.events[i];

			if (e->kind == OSC_KIND_HOST_OP && e->name != osc_trace_op(&t, i) &&
			    (!named || strcmp(names[nr - 1], osc_trace_str(&t, e->name)))) {
				names[nr++] = osc_trace_str(&t, e->name);
				named++;
			}
		}
		for (int k = 0; k < 12; k++) {
			static const enum osc_level levels[] = { OSC_LEVEL_OP, OSC_LEVEL_SHAPE,
								 OSC_LEVEL_PATH };
			struct osc_query lq = { .level = levels[k / 4] };
			struct osc_agg level_agg;
			struct osc_speedups exact, text;
			char what[128];

			if (k % 4 == 1 && !named) /* Kineto: every op's key is its name */
				continue;
			osc_speedups_init(&exact);
			osc_speedups_init(&text);
			for (size_t i = 0; i < nr; i++) {
				char pattern[512];

				if ((k % 4 == 0 && i >= 3) || (k % 4 == 1 && i < 3) ||
				    !bracketed(names[i], pattern, sizeof(pattern)))
					continue;
				osc_speedups_set(&exact, names[i], "", 2.0 + (double)i, &err);
				osc_speedups_set(&text, pattern, "", 2.0 + (double)i, &err);
			}
			if (k % 4 == 3) { /* a shape rule first: every event is read */
				osc_speedups_set(&exact, "*", "1x1", 7, &err);
				osc_speedups_set(&text, "*", "1x1", 7, &err);
			}
			cr_assert_gt(exact.nr, 0, "%s, rules %d", traces[f], k);
			osc_aggregate(&t, NULL, &lq, &level_agg);
			snprintf(what, sizeof(what), "%s, %s, rules %d", traces[f],
				 osc_level_name(lq.level), k % 4);
			cr_expect_eq(expect_same_rules(&t, &level_agg, &exact, &text, what),
				     lq.level == OSC_LEVEL_OP, "%s: labels are op keys", what);
			osc_agg_release(&level_agg);
			osc_speedups_release(&exact);
			osc_speedups_release(&text);
		}
		if (strstr(traces[f], "ort-"))
			cr_expect_gt(named, 0, "%s: events named apart from their op keys",
				     traces[f]);
		osc_whatif_release(&w);
		osc_speedups_release(&none);
		osc_agg_release(&agg);
		osc_trace_release(&t);
	}
}

/*
 * A rule that matches nothing changes nothing: the same rules with one of a
 * shape no event has after them give the same projection, to the bit. With
 * no rule of a shape at the op level of a trace whose events' names are
 * their op keys (Kineto), each row's rule is its events' and they are not
 * read (whatif.c's rows_decide); the rule of a shape makes every event read.
 */
Test(whatif, rows_decide_as_events_read)
{
	static const char *const traces[] = { "samples/kineto-2021-resnet50.json.gz",
					      "samples/ort-resnet18-opt.json" };
	static const char *const sets[][2][3] = {
		{ { "aten::conv2d", "aten::add_", "aten::*" }, { "*conv*", "aten::relu_", "*norm" } },
		{ { "Conv", "Add", "Relu" }, { "*Conv*", "Gemm", "Max*" } },
	};

	for (size_t f = 0; f < FX_LEN(traces); f++) {
		struct osc_trace t;
		struct osc_query q = { .level = OSC_LEVEL_OP };
		struct osc_agg agg;
		struct osc_error err;

		fx_load(&t, traces[f]);
		osc_aggregate(&t, NULL, &q, &agg);
		for (size_t k = 0; k < FX_LEN(sets[f]); k++) {
			struct osc_speedups plain, shaped;
			char what[128];

			osc_speedups_init(&plain);
			osc_speedups_init(&shaped);
			for (size_t i = 0; i < FX_LEN(sets[f][k]); i++) {
				osc_speedups_set(&plain, sets[f][k][i], "", 2.0 + (double)i, &err);
				osc_speedups_set(&shaped, sets[f][k][i], "", 2.0 + (double)i, &err);
			}
			osc_speedups_set(&shaped, "*", "no such shape", 9, &err);
			snprintf(what, sizeof(what), "%s, rules %zu", traces[f], k);
			expect_same_rules(&t, &agg, &plain, &shaped, what);
			osc_speedups_release(&plain);
			osc_speedups_release(&shaped);
		}
		osc_agg_release(&agg);
		osc_trace_release(&t);
	}
}
