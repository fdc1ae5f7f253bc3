/* test_diff.c - pairing rows of two traces, labels, sorting and the changed-only filter. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opscope/analysis/diff.h"
#include "opscope/model/runs.h"
#include "trace_fixture.h"

/* An event with the fields the shape labels use. */
struct dx {
	const char *op;
	enum osc_kind kind;
	int64_t ts, dur;
	const char *shape, *provider, *args;
};

#define OP(op, ts, dur) { (op), OSC_KIND_HOST_OP, (ts), (dur), "", "", NULL }
#define SHAPED(op, ts, dur, shape, args) \
	{ (op), OSC_KIND_HOST_OP, (ts), (dur), (shape), "CPUExecutionProvider", (args) }
#define RUN(ts, dur) { "model_run", OSC_KIND_RUN, (ts), (dur), "", "", NULL }

static void build(struct osc_trace *t, enum osc_format format, const struct dx *ev, size_t n)
{
	uint32_t thread;

	osc_trace_init(t);
	t->format = format;
	thread = osc_trace_thread(t, fx_str(t, "1"), fx_str(t, "1"));
	for (size_t i = 0; i < n; i++) {
		struct osc_event e = {
			.ts = ev[i].ts, .dur = ev[i].dur, .corr_id = OSC_ID_NONE,
			.ext = OSC_ID_NONE,
			.name = fx_str(t, ev[i].op), .shape = fx_str(t, ev[i].shape),
			.thread = thread, .kernel = OSC_NONE, .ph = OSC_PH_COMPLETE,
			.kind = (uint8_t)ev[i].kind,
		};
		struct osc_event_extra x = { .op = e.name,
					     .provider = fx_str(t, ev[i].provider) };

		osc_trace_add_event(t, &e, &x, ev[i].args, ev[i].args ? strlen(ev[i].args) : 0);
	}
	osc_trace_sort(t);
}

struct pair {
	struct osc_trace t[2];
	struct osc_runs runs[2];
	struct osc_diff d;
};

/* Traces a and b in format, compared at level. */
static void compare_as(struct pair *p, enum osc_format format, enum osc_level level,
		       const struct dx *a, size_t na, const struct dx *b, size_t nb,
		       enum osc_match match)
{
	struct osc_diff_side s[2];
	struct osc_diff_query q = { .level = level, .match = match };

	build(&p->t[0], format, a, na);
	build(&p->t[1], format, b, nb);
	for (int i = 0; i < 2; i++) {
		osc_runs_detect(&p->t[i], &p->runs[i]);
		s[i] = (struct osc_diff_side){ &p->t[i], &p->runs[i], NULL, NULL };
	}
	osc_diff(&s[0], &s[1], &q, &p->d);
}

/* ORT traces a and b compared at level. */
static void compare_at(struct pair *p, enum osc_level level, const struct dx *a, size_t na,
		       const struct dx *b, size_t nb, enum osc_match match)
{
	compare_as(p, OSC_FORMAT_ORT, level, a, na, b, nb, match);
}

static void compare(struct pair *p, const struct dx *a, size_t na, const struct dx *b, size_t nb,
		    enum osc_match match)
{
	compare_at(p, OSC_LEVEL_OP, a, na, b, nb, match);
}

static void release(struct pair *p)
{
	osc_diff_release(&p->d);
	for (int i = 0; i < 2; i++) {
		osc_runs_release(&p->runs[i]);
		osc_trace_release(&p->t[i]);
	}
}

static const struct osc_diff_row *row_named(const struct osc_diff *d, const char *key)
{
	for (size_t i = 0; i < d->nr; i++)
		if (!strcmp(osc_diff_key(d, osc_diff_row_at(d, i)), key))
			return osc_diff_row_at(d, i);
	cr_assert_fail("no row '%s'", key);
	return NULL;
}

static void expect_order(const struct osc_diff *d, const char *want)
{
	char got[1024] = "";

	for (size_t i = 0; i < d->nr; i++) {
		strcat(got, i ? " " : "");
		strcat(got, osc_diff_key(d, osc_diff_row_at(d, i)));
	}
	cr_expect_str_eq(got, want);
}

/*
 * base:  A 10, A 20, B 5      other: A 15, C 7
 * A '=' (2 x 30 vs 1 x 15: delta -15, -50 %, ratio 0.5), B '-', C '+';
 * sorted by |delta|: A 15, C 7, B 5.
 */
Test(diff, name_match_classifies_and_computes)
{
	static const struct dx base[] = { OP("A", 0, 10), OP("A", 20, 20), OP("B", 50, 5) };
	static const struct dx other[] = { OP("A", 0, 15), OP("C", 20, 7) };
	struct pair p;
	const struct osc_diff_row *r;

	compare(&p, base, FX_LEN(base), other, FX_LEN(other), OSC_MATCH_NAME);
	cr_assert_eq(p.d.nr, 3);
	expect_order(&p.d, "A C B");
	r = row_named(&p.d, "A");
	cr_expect_eq(r->status, '=');
	cr_expect_eq(r->side[0].count, 2);
	cr_expect_eq(r->side[0].total, 30);
	cr_expect_float_eq(r->side[0].mean, 15.0, 1e-12);
	cr_expect_eq(r->side[1].count, 1);
	cr_expect_eq(r->delta, -15);
	cr_expect_float_eq(r->delta_pct, -50.0, 1e-12);
	cr_expect_float_eq(r->ratio, 0.5, 1e-12);
	cr_expect_eq(r->side[0].self, 30, "apart in time: self = total");
	cr_expect_eq(r->side[1].self, 15);
	cr_expect_eq(r->side[0].dev, 0);
	cr_expect_eq(row_named(&p.d, "B")->status, '-');
	r = row_named(&p.d, "C");
	cr_expect_eq(r->status, '+');
	cr_expect(isnan(r->delta_pct) && isnan(r->ratio));
	cr_expect_eq(p.d.count[0], 1);
	cr_expect_eq(p.d.count[1], 1);
	cr_expect_eq(p.d.count[2], 1);
	cr_expect_eq(p.d.grand_total[0], 35);
	cr_expect_eq(p.d.grand_total[1], 22);
	/* Members point at the right side's events. */
	cr_expect_eq(r->side[1].nr, 1);
	cr_expect_eq(p.t[1].events[p.d.members[1][r->side[1].first]].dur, 7);
	release(&p);
}

/* The row of d holding event ev on side s (by its members), or NULL. */
static const struct osc_diff_row *row_holding_maybe(const struct osc_diff *d, int s, uint32_t ev)
{
	for (size_t r = 0; r < d->nr; r++) {
		const struct osc_diff_row *row = osc_diff_row_at(d, r);

		for (size_t i = 0; i < row->side[s].nr; i++)
			if (d->members[s][row->side[s].first + i] == ev)
				return row;
	}
	return NULL;
}

/* The row of d holding event ev on side s (by its members). */
static const struct osc_diff_row *row_holding(const struct osc_diff *d, int s, uint32_t ev)
{
	const struct osc_diff_row *r = row_holding_maybe(d, s, ev);

	cr_assert(r, "no row holds event %u", ev);
	return r;
}

/* Side s of row r: its members' ts, in order, and its figures. */
static void expect_side(const struct pair *p, const struct osc_diff_row *r, int s,
			const char *ts, int64_t total, int64_t self)
{
	char got[256] = "";

	for (size_t i = 0; i < r->side[s].nr; i++)
		snprintf(got + strlen(got), sizeof(got) - strlen(got), "%s%lld", i ? " " : "",
			 (long long)p->t[s].events[p->d.members[s][r->side[s].first + i]].ts);
	cr_expect_str_eq(got, ts);
	cr_expect_eq(r->side[s].count, r->side[s].nr);
	cr_expect_eq(r->side[s].total, total, "%lld", (long long)r->side[s].total);
	cr_expect_eq(r->side[s].self, self, "%lld", (long long)r->side[s].self);
	cr_expect_float_eq(r->side[s].mean, (double)total / (double)r->side[s].nr, 1e-9);
}

/*
 * A row's members come in model order with its figures whether a row is one
 * of the aggregate's (op level) or gathers several with the same label
 * (shape level: "A" with shapes "B C" and "A B" with shape "C" both read
 * "A B C"). Self time: total less the X nested inside.
 */
Test(diff, rows_whole_or_gathered_have_their_members_figures)
{
	static const struct dx ev[] = {
		SHAPED("A", 0, 100, "B C", NULL),   SHAPED("X", 10, 30, "", NULL),
		SHAPED("A B", 200, 50, "C", NULL),  SHAPED("X", 210, 20, "", NULL),
		SHAPED("A", 300, 40, "B C", NULL),
	};
	struct pair p;

	compare_at(&p, OSC_LEVEL_OP, ev, FX_LEN(ev), ev, FX_LEN(ev), OSC_MATCH_NAME);
	cr_assert_eq(p.d.nr, 3);
	for (int s = 0; s < 2; s++) {
		expect_side(&p, row_holding(&p.d, s, 0), s, "0 300", 140, 110);
		expect_side(&p, row_holding(&p.d, s, 1), s, "10 210", 50, 50);
		expect_side(&p, row_holding(&p.d, s, 2), s, "200", 50, 30);
	}
	release(&p);
	compare_at(&p, OSC_LEVEL_SHAPE, ev, FX_LEN(ev), ev, FX_LEN(ev), OSC_MATCH_NAME);
	cr_assert_eq(p.d.nr, 2);
	for (int s = 0; s < 2; s++) {
		expect_side(&p, row_holding(&p.d, s, 0), s, "0 200 300", 190, 140);
		expect_side(&p, row_holding(&p.d, s, 1), s, "10 210", 50, 50);
	}
	/* the host busy time 100 + 50 + 40: the inclusive 240 counts both X twice */
	cr_expect_eq(p.d.grand, OSC_MEASURE_SELF);
	cr_expect_eq(p.d.grand_total[0], 190);
	cr_expect_str_eq(osc_diff_total_name(&p.d), "self time");
	release(&p);
}

/*
 * Shape match where labels are made per (op, shape) (no output shapes read:
 * not ORT): float and float32 read "f" alike, so two pairs share a row; a
 * provider splits a pair. Each row has its own members, in model order.
 */
Test(diff, shape_labels_of_pairs_gathered_and_split_by_provider)
{
	static const struct dx base[] = {
		SHAPED("Conv", 0, 10, "float(2x3)", NULL),
		{ "Conv", OSC_KIND_HOST_OP, 20, 20, "float(2x3)", "", NULL },
		SHAPED("Conv", 50, 30, "float32(2x3)", NULL),
		SHAPED("Conv", 90, 5, "float(4)", NULL),
	};
	static const struct dx same[] = {
		SHAPED("Conv", 0, 10, "float(2x3)", NULL),
		SHAPED("Conv", 50, 30, "float32(2x3)", NULL),
		SHAPED("Conv", 90, 5, "float(4)", NULL),
	};
	struct pair p;

	for (int level = 0; level < 2; level++) {
		compare_as(&p, OSC_FORMAT_KINETO, level ? OSC_LEVEL_SHAPE : OSC_LEVEL_OP, base,
			   FX_LEN(base), base, FX_LEN(base), OSC_MATCH_SHAPE);
		cr_assert_eq(p.d.nr, 3);
		for (int s = 0; s < 2; s++) {
			expect_side(&p, row_named(&p.d, "[CPU]Conv(f-2x3)"), s, "0 50", 40, 40);
			expect_side(&p, row_named(&p.d, "Conv(f-2x3)"), s, "20", 20, 20);
			expect_side(&p, row_named(&p.d, "[CPU]Conv(f-4)"), s, "90", 5, 5);
		}
		release(&p);
	}
	compare_as(&p, OSC_FORMAT_KINETO, OSC_LEVEL_OP, same, FX_LEN(same), base, FX_LEN(base),
		   OSC_MATCH_SHAPE);
	cr_assert_eq(p.d.nr, 3);
	expect_side(&p, row_named(&p.d, "[CPU]Conv(f-2x3)"), 0, "0 50", 40, 40);
	expect_side(&p, row_named(&p.d, "[CPU]Conv(f-2x3)"), 1, "0 50", 40, 40);
	cr_expect_eq(row_named(&p.d, "Conv(f-2x3)")->status, '+');
	release(&p);
	/* one pair a row on the other side */
	compare_as(&p, OSC_FORMAT_KINETO, OSC_LEVEL_OP, same, FX_LEN(same), same + 1,
		   FX_LEN(same) - 1, OSC_MATCH_SHAPE);
	cr_assert_eq(p.d.nr, 2);
	expect_side(&p, row_named(&p.d, "[CPU]Conv(f-2x3)"), 1, "50", 30, 30);
	expect_side(&p, row_named(&p.d, "[CPU]Conv(f-4)"), 1, "90", 5, 5);
	release(&p);
}

/* Same op, two shapes: two rows; output shapes come from the ORT args. */
Test(diff, shape_match_splits_by_shape_and_labels_compactly)
{
	static const struct dx base[] = {
		SHAPED("Conv", 0, 10, "float(1x3x8x8),float(4x3x1x1)",
		       "{\"output_type_shape\":[{\"float\":[1,4,8,8]}]}"),
		SHAPED("Conv", 20, 30, "float(1x4x8x8),float(4x4x1x1)", NULL),
	};
	static const struct dx other[] = {
		SHAPED("Conv", 0, 8, "float(1x3x8x8),float(4x3x1x1)",
		       "{\"output_type_shape\":[{\"float\":[1,4,8,8]}]}"),
	};
	struct pair p;

	compare(&p, base, FX_LEN(base), other, FX_LEN(other), OSC_MATCH_SHAPE);
	expect_order(&p.d, "[CPU]Conv(f-1x4x8x8,f-4x4x1x1) [CPU]Conv(f-1x3x8x8,f-4x3x1x1)->f-1x4x8x8");
	cr_expect_eq(row_named(&p.d, "[CPU]Conv(f-1x4x8x8,f-4x4x1x1)")->status, '-');
	cr_expect_eq(row_named(&p.d, "[CPU]Conv(f-1x3x8x8,f-4x3x1x1)->f-1x4x8x8")->delta, -2);
	release(&p);
}

/*
 * base: two runs, each Relu Relu; other: one run, Relu Relu Relu.
 * Occurrences restart in each run: base [0] x2 and [1] x2, other [0] [1] [2].
 */
Test(diff, occurrence_restarts_every_run)
{
	static const struct dx base[] = {
		RUN(0, 100),  OP("Relu", 10, 1), OP("Relu", 20, 2),
		RUN(100, 100), OP("Relu", 110, 3), OP("Relu", 120, 4),
	};
	static const struct dx other[] = {
		RUN(0, 100), OP("Relu", 10, 5), OP("Relu", 20, 6), OP("Relu", 30, 7),
	};
	struct pair p;
	const struct osc_diff_row *r;

	compare(&p, base, FX_LEN(base), other, FX_LEN(other), OSC_MATCH_OCCURRENCE);
	cr_assert_eq(p.d.nr, 3);
	r = row_named(&p.d, "Relu()[0]");
	cr_expect_eq(r->side[0].count, 2);
	cr_expect_eq(r->side[0].total, 1 + 3);
	cr_expect_eq(r->side[1].total, 5);
	r = row_named(&p.d, "Relu()[1]");
	cr_expect_eq(r->side[0].total, 2 + 4);
	cr_expect_eq(r->side[1].total, 6);
	r = row_named(&p.d, "Relu()[2]");
	cr_expect_eq(r->status, '+');
	cr_expect_eq(r->side[1].total, 7);
	release(&p);
}

/*
 * Side s of p's occurrence diff against the definition (diff.h): each host
 * op of the trace (model order) is in the row "label[n]", n the number of
 * earlier host ops with its label in its run, a row's members are in
 * model order, and its count and total are theirs.
 */
static void expect_occurrences(const struct pair *p, int s)
{
	const struct osc_trace *t = &p->t[s];
	size_t placed = 0;

	for (uint32_t ev = 0; ev < t->nr_events; ev++) {
		char label[256], key[300];
		const struct osc_diff_row *r;
		uint32_t n = 0, at = 0, run = p->runs[s].run_of[ev];

		if (t->events[ev].kind != OSC_KIND_HOST_OP)
			continue;
		osc_diff_label(t, ev, label, sizeof(label));
		for (uint32_t e = 0; e < ev; e++) {
			char other[256];

			if (t->events[e].kind == OSC_KIND_HOST_OP && p->runs[s].run_of[e] == run &&
			    !strcmp(osc_diff_label(t, e, other, sizeof(other)), label))
				n++;
		}
		snprintf(key, sizeof(key), "%s[%u]", label, n);
		r = row_holding(&p->d, s, ev);
		cr_expect_str_eq(osc_diff_key(&p->d, r), key, "event %u", ev);
		for (uint32_t e = 0; e < ev; e++)
			at += row_holding_maybe(&p->d, s, e) == r;
		cr_expect_eq(p->d.members[s][r->side[s].first + at], ev, "event %u in order", ev);
		placed++;
	}
	cr_expect_eq(p->d.nr_members[s], placed);
	for (size_t i = 0; i < p->d.nr; i++) { /* a row's figures are its members' */
		const struct osc_diff_stat *st = &p->d.rows[i].side[s];
		int64_t total = 0;

		for (size_t k = 0; k < st->nr; k++)
			total += t->events[p->d.members[s][st->first + k]].dur;
		cr_expect_eq(st->count, st->nr, "row %zu", i);
		cr_expect_eq(st->total, total, "row %zu", i);
	}
}

/*
 * Run level: a row's members are the ops of its runs, and both runs read
 * "model_run": one row of both runs' ops (Relu in Conv, and a Relu), summed
 * member by member: total 40 + 10 + 30, self 30 + 10 + 30.
 */
Test(diff, run_rows_sum_the_ops_of_their_runs)
{
	static const struct dx ev[] = {
		RUN(0, 100),   OP("Conv", 10, 40), OP("Relu", 20, 10),
		RUN(100, 150), OP("Relu", 110, 30),
	};
	struct pair p;

	compare_at(&p, OSC_LEVEL_RUN, ev, FX_LEN(ev), ev, FX_LEN(ev), OSC_MATCH_NAME);
	cr_assert_eq(p.d.nr, 1);
	for (int s = 0; s < 2; s++)
		expect_side(&p, &p.d.rows[0], s, "10 20 110", 80, 70);
	cr_expect_eq(p.d.rows[0].side[0].dev, 0);
	release(&p);
}

/*
 * Occurrence match of traces whose labels are per (op, shape) (not ORT):
 * two runs and ops outside both, a label two (op, shape) pairs share (float
 * and float32 read "f") and, in the third trace, a provider that splits a
 * pair. Each side is checked against the definition, as both sides.
 */
Test(diff, occurrences_by_row_match_the_definition)
{
	static const struct dx plain[] = {
		RUN(0, 100),
		SHAPED("Conv", 10, 5, "float(2x3)", NULL),
		SHAPED("Relu", 20, 1, "float(2x3)", NULL),
		SHAPED("Conv", 30, 6, "float(2x3)", NULL),
		SHAPED("Conv", 40, 7, "float(4)", NULL),
		RUN(100, 100),
		SHAPED("Conv", 110, 8, "float(2x3)", NULL),
		SHAPED("Relu", 120, 2, "float(2x3)", NULL),
		SHAPED("Conv", 130, 9, "float(4)", NULL),
		SHAPED("Conv", 140, 3, "float(2x3)", NULL),
		SHAPED("Conv", 250, 4, "float(2x3)", NULL),
		SHAPED("Conv", 260, 2, "float(2x3)", NULL),
	};
	struct dx shared[FX_LEN(plain)], split[FX_LEN(plain)];
	const struct dx *traces[] = { plain, shared, split };
	struct pair p;

	memcpy(shared, plain, sizeof(plain));
	shared[3].shape = "float32(2x3)"; /* "Conv(f-2x3)" in two rows */
	shared[9].shape = "float32(2x3)";
	memcpy(split, plain, sizeof(plain));
	split[6].provider = ""; /* one Conv(float(2x3)) without its provider */
	for (size_t a = 0; a < FX_LEN(traces); a++) {
		for (size_t b = 0; b < FX_LEN(traces); b++) {
			compare_as(&p, OSC_FORMAT_KINETO, OSC_LEVEL_OP, traces[a], FX_LEN(plain),
				   traces[b], FX_LEN(plain), OSC_MATCH_OCCURRENCE);
			expect_occurrences(&p, 0);
			expect_occurrences(&p, 1);
			release(&p);
		}
	}
}

/*
 * A trace of many rows (30 (op, shape) pairs, from 1 to 12 instances a run,
 * in two runs), against the same without its first 40 events: more rows
 * than the labels made ahead of their interning (diff.c), and occurrences
 * up to [11]. By occurrence, each side as the definition says; by shape,
 * each op in the row of its own label; by name, in the row of its name.
 */
#define MANY_OPS 30

static size_t many_rows(struct dx *ev, char names[][16], char shapes[][24])
{
	size_t n = 0;

	for (int run = 0; run < 2; run++) {
		int64_t ts = run * 100000;

		ev[n++] = (struct dx)RUN(ts, 100000);
		for (int i = 0; i < MANY_OPS; i++) {
			snprintf(names[i], sizeof(names[i]), "op%02d", i % 20); /* 10 names twice */
			snprintf(shapes[i], sizeof(shapes[i]), "float(%dx3)", i);
			for (int k = 0; k <= (i + run) % 12; k++, ts += 10)
				ev[n++] = (struct dx)SHAPED(names[i], ts + 1, 1 + i + k, shapes[i],
							    NULL);
		}
	}
	return n;
}

Test(diff, many_rows_label_as_defined)
{
	static struct dx ev[2 * (1 + MANY_OPS * 12)];
	static char names[MANY_OPS][16], shapes[MANY_OPS][24];
	size_t n = many_rows(ev, names, shapes);
	struct pair p;

	cr_assert_gt(n, 100);
	compare_as(&p, OSC_FORMAT_KINETO, OSC_LEVEL_OP, ev, n, ev + 40, n - 40,
		   OSC_MATCH_OCCURRENCE);
	expect_occurrences(&p, 0);
	expect_occurrences(&p, 1);
	cr_expect(p.d.nr > 3 * 8, "%zu rows", p.d.nr);
	release(&p);
	for (int m = 0; m < 2; m++) {
		compare_as(&p, OSC_FORMAT_KINETO, OSC_LEVEL_OP, ev, n, ev + 40, n - 40,
			   m ? OSC_MATCH_NAME : OSC_MATCH_SHAPE);
		cr_expect_eq(p.d.nr, m ? 20 : MANY_OPS, "match %d: %zu rows", m, p.d.nr);
		for (int s = 0; s < 2; s++)
			for (uint32_t e = 0; e < p.t[s].nr_events; e++) {
				char label[256];
				const char *want;

				if (p.t[s].events[e].kind != OSC_KIND_HOST_OP)
					continue;
				want = m ? osc_trace_str(&p.t[s], p.t[s].events[e].name)
					 : osc_diff_label(&p.t[s], e, label, sizeof(label));
				cr_expect_str_eq(osc_diff_key(&p.d, row_holding(&p.d, s, e)), want,
						 "side %d event %u", s, e);
			}
		release(&p);
	}
}

Test(diff, compact_shapes_for_every_type)
{
	char buf[256];

	cr_expect_str_eq(osc_shape_compact("float(1x3x112x112),int64(4)", buf, sizeof(buf)),
			 "f-1x3x112x112,i64-4");
	cr_expect_str_eq(osc_shape_compact("bool(),c10::Half(2x2),double(7)", buf, sizeof(buf)),
			 "b,h-2x2,d-7");
	cr_expect_str_eq(osc_shape_compact("fp32(64x1024),bf16(8),uint8(3),s8(1)", buf, sizeof(buf)),
			 "f-64x1024,bf16-8,u8-3,i8-1");
	/* Unknown types are kept; nested dims and bare items are copied. */
	cr_expect_str_eq(osc_shape_compact("GenericList([1,2]x3),Scalar,weird(5)", buf,
					   sizeof(buf)),
			 "GenericList-[1,2]x3,Scalar,weird-5");
	cr_expect_str_eq(osc_shape_compact("", buf, sizeof(buf)), "");
	/* A small buffer is cut, still terminated. */
	cr_expect_str_eq(osc_shape_compact("float(1x3x112x112)", buf, 6), "f-1x3");
}

/* Neural Engine keeps output types and shapes as "fp32" and "64*256". */
Test(diff, ne_output_shapes_in_labels)
{
	static const struct dx ev[] = {
		{ "InnerProduct", OSC_KIND_HOST_OP, 0, 5, "fp32(64x1024),fp32(256x1024)", "",
		  "{\"output_type\":\"fp32\",\"output_shape\":\"64*256\"}" },
	};
	struct osc_trace t;
	char buf[256];

	build(&t, OSC_FORMAT_ORT, ev, FX_LEN(ev));
	cr_expect_str_eq(osc_diff_label(&t, 0, buf, sizeof(buf)),
			 "InnerProduct(f-64x1024,f-256x1024)->f-64x256");
	osc_trace_release(&t);
}

/* The rows shown per status: '-', '+', '='. */
static void expect_shown(const struct osc_diff *d, uint64_t minus, uint64_t plus, uint64_t same)
{
	cr_expect(d->shown[0] == minus && d->shown[1] == plus && d->shown[2] == same,
		  "shown %llu -, %llu +, %llu =", (unsigned long long)d->shown[0],
		  (unsigned long long)d->shown[1], (unsigned long long)d->shown[2]);
}

/* A 0 delta is unchanged; with a threshold, small changes go too; -/+ always stay. */
Test(diff, changed_only_and_back)
{
	static const struct dx base[] = { OP("A", 0, 100), OP("B", 200, 100), OP("C", 400, 100),
					  OP("D", 600, 1) };
	static const struct dx other[] = { OP("A", 0, 100), OP("B", 200, 103), OP("C", 400, 150),
					   OP("E", 600, 1) };
	struct pair p;

	compare(&p, base, FX_LEN(base), other, FX_LEN(other), OSC_MATCH_NAME);
	cr_assert_eq(p.d.nr, 5);
	osc_diff_changed_only(&p.d, true, 0);
	osc_diff_sort(&p.d, OSC_DIFF_NAME, false);
	expect_order(&p.d, "B C D E");
	expect_shown(&p.d, 1, 1, 2);
	osc_diff_changed_only(&p.d, true, 5);
	osc_diff_sort(&p.d, OSC_DIFF_NAME, false);
	expect_order(&p.d, "C D E");
	expect_shown(&p.d, 1, 1, 1);
	osc_diff_changed_only(&p.d, false, 0);
	osc_diff_sort(&p.d, OSC_DIFF_NAME, false);
	expect_order(&p.d, "A B C D E");
	expect_shown(&p.d, 1, 1, 3);
	release(&p);
}

/* top, the bars' scale: the largest total of either side among the rows shown. */
Test(diff, top_is_the_largest_total_shown)
{
	static const struct dx base[] = { OP("A", 0, 300), OP("B", 400, 100) };
	static const struct dx other[] = { OP("A", 0, 300), OP("B", 400, 150), OP("C", 600, 20) };
	struct pair p;

	compare(&p, base, FX_LEN(base), other, FX_LEN(other), OSC_MATCH_NAME);
	cr_expect_eq(p.d.top, 300, "top %lld", (long long)p.d.top);
	osc_diff_changed_only(&p.d, true, 0); /* A unchanged: hidden */
	cr_expect_eq(p.d.top, 150, "top %lld", (long long)p.d.top);
	osc_diff_changed_only(&p.d, false, 0);
	cr_expect_eq(p.d.top, 300, "top %lld", (long long)p.d.top);
	release(&p);
}

/* Ratio sorts NaN (no base time) below every number; ties go by name, ascending. */
Test(diff, sort_by_ratio_and_side)
{
	static const struct dx base[] = { OP("A", 0, 10), OP("B", 20, 10), OP("D", 40, 10) };
	static const struct dx other[] = { OP("A", 0, 20), OP("B", 20, 5), OP("C", 40, 1) };
	struct pair p;
	enum osc_diff_col col;

	compare(&p, base, FX_LEN(base), other, FX_LEN(other), OSC_MATCH_NAME);
	osc_diff_sort(&p.d, OSC_DIFF_RATIO, true);
	expect_order(&p.d, "A B D C");
	osc_diff_sort(&p.d, OSC_DIFF_RATIO, false);
	expect_order(&p.d, "C D B A");
	osc_diff_sort(&p.d, OSC_DIFF_SIDE, false);
	expect_order(&p.d, "D A B C");
	osc_diff_sort(&p.d, OSC_DIFF_SIDE, true);
	expect_order(&p.d, "C A B D"); /* ties by name, ascending either way */
	osc_diff_sort(&p.d, OSC_DIFF_NAME, true);
	expect_order(&p.d, "D C B A");
	cr_expect(osc_diff_col_parse("delta", &col) && col == OSC_DIFF_DELTA);
	cr_expect(osc_diff_col_parse("base_total_us", &col) && col == OSC_DIFF_BASE_TOTAL);
	cr_expect(!osc_diff_col_parse("p50", &col));
	release(&p);
}

/*
 * 3000 rows with random times on both sides (many ties), sorted by several
 * columns: every row is shown once with its own figures (those summed here
 * from the input), and the order is the column's, ties by name ascending.
 */
Test(diff, sort_orders_whole_rows)
{
	enum { N = 3000 };
	static struct dx base[N], other[N];
	static char names[N][16];
	static bool seen[N];
	static const enum osc_diff_col by[] = { OSC_DIFF_DELTA, OSC_DIFF_BASE_TOTAL,
						OSC_DIFF_OTHER_TOTAL, OSC_DIFF_NAME };
	uint64_t x = 88172645463325252ull;
	struct pair p;

	for (int i = 0; i < N; i++) {
		snprintf(names[i], sizeof(names[i]), "op%04d", i);
		x ^= x << 13, x ^= x >> 7, x ^= x << 17; /* xorshift64 */
		base[i] = (struct dx)OP(names[i], 10 * i, (int64_t)(x % 9) + 1);
		other[i] = (struct dx)OP(names[i], 10 * i, (int64_t)((x >> 8) % 9) + 1);
	}
	compare(&p, base, N, other, N, OSC_MATCH_NAME);
	cr_assert_eq(p.d.nr, N);
	for (size_t b = 0; b < 2 * sizeof(by) / sizeof(by[0]); b++) {
		bool desc = b % 2;

		osc_diff_sort(&p.d, by[b / 2], desc);
		memset(seen, 0, sizeof(seen));
		for (size_t r = 0; r < p.d.nr; r++) {
			const struct osc_diff_row *row = osc_diff_row_at(&p.d, r);
			int k = atoi(osc_diff_key(&p.d, row) + 2);

			cr_assert(!seen[k], "op%04d shown twice", k);
			seen[k] = true;
			cr_assert_eq(row->side[0].total, base[k].dur, "op%04d's base total", k);
			cr_assert_eq(row->side[1].total, other[k].dur, "op%04d's other total", k);
			cr_assert_eq(row->delta, other[k].dur - base[k].dur);
			if (r) {
				const struct osc_diff_row *q = osc_diff_row_at(&p.d, r - 1);
				int64_t u = by[b / 2] == OSC_DIFF_DELTA ? llabs(q->delta)
					    : by[b / 2] == OSC_DIFF_BASE_TOTAL ? q->side[0].total
					    : q->side[1].total;
				int64_t v = by[b / 2] == OSC_DIFF_DELTA ? llabs(row->delta)
					    : by[b / 2] == OSC_DIFF_BASE_TOTAL ? row->side[0].total
					    : row->side[1].total;
				int c = by[b / 2] == OSC_DIFF_NAME ? 0 : (u > v) - (u < v);
				int names_cmp = strcmp(osc_diff_key(&p.d, q), osc_diff_key(&p.d, row));

				if (by[b / 2] == OSC_DIFF_NAME && desc)
					names_cmp = -names_cmp;
				c = desc ? -c : c;
				cr_assert(c < 0 || (c == 0 && names_cmp < 0),
					  "column %d %s: rows %zu and %zu out of order", (int)by[b / 2],
					  desc ? "desc" : "asc", r - 1, r);
			}
		}
	}
	release(&p);
}

Test(diff, cells_as_exported)
{
	static const struct dx base[] = { OP("A", 0, 1500), OP("A", 2000, 1001) };
	static const struct dx other[] = { OP("A", 0, 1000), OP("N", 2000, 7) };
	struct pair p;
	char buf[64];
	size_t r;

	compare(&p, base, FX_LEN(base), other, FX_LEN(other), OSC_MATCH_NAME);
	osc_diff_sort(&p.d, OSC_DIFF_NAME, false);
	r = 0; /* A */
	cr_expect_str_eq(osc_diff_cell(&p.d, r, OSC_DIFF_SIDE, buf, sizeof(buf)), "=");
	cr_expect_str_eq(osc_diff_cell(&p.d, r, OSC_DIFF_BASE_MEAN, buf, sizeof(buf)), "1.251");
	cr_expect_str_eq(osc_diff_cell(&p.d, r, OSC_DIFF_DELTA, buf, sizeof(buf)), "-1.501");
	cr_expect_str_eq(osc_diff_cell(&p.d, r, OSC_DIFF_DELTA_PCT, buf, sizeof(buf)), "-60.02");
	cr_expect_str_eq(osc_diff_cell(&p.d, r, OSC_DIFF_RATIO, buf, sizeof(buf)), "0.400");
	/* N has no base: delta_pct and ratio are empty (null in JSON). */
	cr_expect_str_eq(osc_diff_cell(&p.d, 1, OSC_DIFF_DELTA_PCT, buf, sizeof(buf)), "");
	cr_expect_str_eq(osc_diff_cell(&p.d, 1, OSC_DIFF_RATIO, buf, sizeof(buf)), "");
	release(&p);
}

Test(diff, match_names)
{
	enum osc_match m;
	struct osc_error err;

	cr_expect_eq(osc_match_parse("occurrence", &m, &err), OSC_OK);
	cr_expect_eq(m, OSC_MATCH_OCCURRENCE);
	cr_expect_eq(osc_match_parse("shapes", &m, &err), OSC_USAGE);
	cr_expect_str_eq(err.subject, "--match");
}

/* The real pair: ORT without and with graph optimisations (skipped when absent). */
Test(diff, ort_noopt_vs_opt_fusions)
{
	struct osc_trace t[2];
	struct osc_runs runs[2];
	struct osc_diff_side s[2];
	struct osc_diff_query q = { .level = OSC_LEVEL_OP, .match = OSC_MATCH_NAME };
	struct osc_diff d;

	fx_load(&t[0], "../shared/traces/generated/ort-cnn-noopt.json");
	fx_load(&t[1], "samples/ort-cnn-opt.json");
	for (int i = 0; i < 2; i++) {
		osc_runs_detect(&t[i], &runs[i]);
		s[i] = (struct osc_diff_side){ &t[i], &runs[i], NULL, NULL };
	}
	osc_diff(&s[0], &s[1], &q, &d);
	cr_expect_eq(row_named(&d, "Relu")->status, '-'); /* fused into Conv */
	cr_expect_eq(row_named(&d, "FusedGemm")->status, '+');
	cr_expect_eq(row_named(&d, "Conv")->status, '=');
	osc_diff_release(&d);
	for (int i = 0; i < 2; i++) {
		osc_runs_release(&runs[i]);
		osc_trace_release(&t[i]);
	}
}

/* A comparison on one thread (the explorer's, computed ahead) is the one on all. */
Test(diff, one_thread_gives_the_same_rows)
{
	struct osc_trace t[2];
	struct osc_runs runs[2];
	struct osc_diff_side s[2];

	fx_load(&t[0], "samples/kineto-sampled-rank0.json.gz");
	fx_load(&t[1], "tests/data/ranks/sampled_rank-1.json.gz");
	for (int i = 0; i < 2; i++) {
		osc_runs_detect(&t[i], &runs[i]);
		s[i] = (struct osc_diff_side){ &t[i], &runs[i], NULL, NULL };
	}
	for (int l = 0; l < OSC_LEVEL_MODULE; l++) {
		for (int m = 0; m < OSC_MATCH_COUNT; m++) {
			struct osc_diff_query q = { .level = (enum osc_level)l,
						    .match = (enum osc_match)m };
			struct osc_diff d[2];

			for (int n = 0; n < 2; n++) {
				q.threads = (unsigned)n; /* 0: all, then 1 */
				osc_diff(&s[0], &s[1], &q, &d[n]);
			}
			cr_assert_eq(d[0].nr, d[1].nr, "level %d match %d", l, m);
			cr_expect(d[0].nr > 0 || l == OSC_LEVEL_DIMS, "level %d: rows", l);
			for (size_t r = 0; r < d[0].nr; r++) {
				const struct osc_diff_row *x = osc_diff_row_at(&d[0], r);
				const struct osc_diff_row *y = osc_diff_row_at(&d[1], r);

				cr_expect_str_eq(osc_diff_key(&d[0], x), osc_diff_key(&d[1], y));
				cr_expect_eq(x->status, y->status);
				for (int side = 0; side < 2; side++) {
					cr_expect_eq(x->side[side].count, y->side[side].count);
					cr_expect_eq(x->side[side].total, y->side[side].total);
					cr_expect_eq(x->side[side].dev, y->side[side].dev);
				}
			}
			for (int side = 0; side < 2; side++) {
				cr_assert_eq(d[0].nr_members[side], d[1].nr_members[side]);
				cr_expect_arr_eq(d[0].members[side], d[1].members[side],
						 d[0].nr_members[side] * sizeof(uint32_t));
			}
			osc_diff_release(&d[0]);
			osc_diff_release(&d[1]);
		}
	}
	for (int i = 0; i < 2; i++) {
		osc_runs_release(&runs[i]);
		osc_trace_release(&t[i]);
	}
}

/*
 * Path rows pair on the whole call path, not on the leaf name:
 *   base:  linear ── mm        other: matmul ── mm
 * gives four one-sided rows, never "mm" in both.
 */
Test(diff, path_rows_pair_on_the_whole_path)
{
	static const struct dx base[] = {
		RUN(0, 100), OP("linear", 0, 50), OP("mm", 10, 20),
	};
	static const struct dx other[] = {
		RUN(0, 100), OP("matmul", 0, 50), OP("mm", 10, 20),
	};
	struct pair p;

	compare_at(&p, OSC_LEVEL_PATH, base, 3, other, 3, OSC_MATCH_NAME);
	cr_expect_eq(p.d.nr, 4);
	cr_expect_eq(row_named(&p.d, "linear$$mm")->status, '-');
	cr_expect_eq(row_named(&p.d, "matmul$$mm")->status, '+');
	cr_expect_eq(p.d.count[2], 0, "no row in both");
	release(&p);
}

/*
 * Kernel rows pair on the names as shown (diff.h: osc_diff_side.names):
 *   base:  _Z3fooi 10, _Z3fooIiEvi 5      other: _Z3fooi 7
 * as recorded: two rows; demangled: "foo(int)" '=' and "void foo<int>(int)" '-';
 * short: both base kernels are "foo", one row of 15 against 7.
 */
Test(diff, kernel_rows_pair_on_names_as_shown)
{
	static const struct dx base[] = { { "_Z3fooi", OSC_KIND_KERNEL, 0, 10, "", "", NULL },
					   { "_Z3fooIiEvi", OSC_KIND_KERNEL, 20, 5, "", "", NULL } };
	static const struct dx other[] = { { "_Z3fooi", OSC_KIND_KERNEL, 0, 7, "", "", NULL } };
	struct osc_diff_query q = { .level = OSC_LEVEL_KERNEL, .match = OSC_MATCH_NAME };
	struct pair p;
	struct osc_names names[2];
	struct osc_diff_side s[2];
	struct osc_error err;

	build(&p.t[0], OSC_FORMAT_ORT, base, FX_LEN(base));
	build(&p.t[1], OSC_FORMAT_ORT, other, FX_LEN(other));
	for (int i = 0; i < 2; i++) {
		osc_runs_detect(&p.t[i], &p.runs[i]);
		osc_names_init(&names[i]);
		cr_assert_eq(osc_names_build(&names[i], &p.t[i], NULL, &err), OSC_OK);
		s[i] = (struct osc_diff_side){ &p.t[i], &p.runs[i], NULL, &names[i] };
	}
	osc_diff(&s[0], &s[1], &q, &p.d);
	expect_order(&p.d, "void foo<int>(int) foo(int)"); /* by |delta|: 5, 3 */
	cr_expect_eq(row_named(&p.d, "foo(int)")->status, '=');
	cr_expect_eq(row_named(&p.d, "void foo<int>(int)")->status, '-');
	osc_diff_release(&p.d);
	for (int i = 0; i < 2; i++)
		names[i].style = OSC_NAMES_SHORT;
	osc_diff(&s[0], &s[1], &q, &p.d);
	cr_assert_eq(p.d.nr, 1);
	cr_expect_eq(row_named(&p.d, "foo")->side[0].total, 15);
	cr_expect_eq(row_named(&p.d, "foo")->side[1].total, 7);
	cr_expect_eq(p.d.grand, OSC_MEASURE_DEVICE, "kernels' totals are device time");
	cr_expect_eq(p.d.grand_total[0], 15);
	cr_expect_eq(p.d.grand_total[1], 7);
	osc_diff_release(&p.d);
	for (int i = 0; i < 2; i++)
		s[i].names = NULL;
	osc_diff(&s[0], &s[1], &q, &p.d);
	expect_order(&p.d, "_Z3fooIiEvi _Z3fooi");
	for (int i = 0; i < 2; i++)
		osc_names_release(&names[i]);
	release(&p);
}

/* Different numbers of selected runs get a note; the same numbers none. */
Test(diff, runs_note_only_when_run_counts_differ)
{
	uint8_t on4[] = { 1, 1, 1, 1 }, on2[] = { 0, 1, 1, 0 };
	struct osc_runsel four = {.on = on4, .nr_runs = 4, .nr_on = 4};
	struct osc_runsel two = {.on = on2, .nr_runs = 4, .nr_on = 2};
	char buf[256];

	cr_expect_null(osc_diff_runs_note(&four, &four, buf, sizeof(buf)));
	cr_expect_null(osc_diff_runs_note(NULL, NULL, buf, sizeof(buf)));
	cr_assert_not_null(osc_diff_runs_note(&four, &two, buf, sizeof(buf)));
	cr_expect(strstr(buf, "base has 4 runs selected, other 2") != NULL, "%s", buf);
	cr_assert_not_null(osc_diff_runs_note(NULL, &two, buf, sizeof(buf)));
	cr_expect(strstr(buf, "base has 1 run selected, other 2") != NULL, "%s", buf);
}
