/* test_trace.c - the trace model: events, args, threads, warnings, sort. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "opscope/model/trace.h"

static struct osc_trace t;

static void setup(void)
{
	osc_trace_init(&t);
}

static void teardown(void)
{
	osc_trace_release(&t);
}

TestSuite(trace, .init = setup, .fini = teardown);

static uint32_t add(int64_t ts, int64_t dur, const char *name, const char *args)
{
	struct osc_event e;

	memset(&e, 0, sizeof(e));
	e.ts = ts;
	e.dur = dur;
	e.name = osc_trace_intern(&t, name, strlen(name));
	e.corr_id = OSC_ID_NONE;
	e.ext = OSC_ID_NONE;
	e.kernel = OSC_NONE;
	e.thread = osc_trace_thread(&t, osc_trace_intern(&t, "1", 1), osc_trace_intern(&t, "2", 1));
	return osc_trace_add_event(&t, &e, NULL, args, args ? strlen(args) : 0);
}

Test(trace, init_is_empty)
{
	cr_assert_eq(t.nr_events, 0);
	cr_assert_eq(t.format, OSC_FORMAT_UNKNOWN);
	cr_assert_str_eq(t.meta_json, "");
	cr_assert_eq(t.warnings[OSC_WARN_TRUNCATED].count, 0);
}

/* Ids in 32 bits: those in [0, 2^31) as they are, the others coded once each, all given back. */
Test(trace, ids_are_coded_and_given_back)
{
	static const int64_t ids[] = { 0, 7, 2147483647, 2147483648, -1, 140225578680512,
				       INT64_MAX, INT64_MIN + 1 };
	osc_id code[sizeof(ids) / sizeof(ids[0])];

	cr_assert_eq(sizeof(struct osc_event), 48);
	cr_expect_eq(osc_trace_id(&t, OSC_NO_ID), OSC_ID_NONE);
	cr_expect_eq(osc_trace_id_value(&t, OSC_ID_NONE), OSC_NO_ID);
	for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
		code[i] = osc_trace_id(&t, ids[i]);
		cr_expect_neq(code[i], OSC_ID_NONE, "id %lld", (long long)ids[i]);
		cr_expect_eq(osc_trace_id_value(&t, code[i]), ids[i], "id %lld", (long long)ids[i]);
	}
	cr_expect_eq(code[1], 7, "a small id is its own code");
	cr_expect_eq(code[2], 2147483647);
	cr_expect(code[3] & OSC_ID_WIDE, "2^31 is wide");
	cr_expect_eq(t.nr_wide_ids, 5);
	/* the same id, the same code; a new one, a new code */
	cr_expect_eq(osc_trace_id(&t, 140225578680512), code[5]);
	cr_expect_eq(osc_trace_id(&t, -1), code[4]);
	cr_expect_neq(osc_trace_id(&t, -2), code[4]);
	cr_expect_eq(t.nr_wide_ids, 6);
}

Test(trace, args_are_stored_per_event)
{
	uint32_t a = add(10, 5, "a", "{\"x\":1}");
	uint32_t b = add(20, 5, "b", NULL);
	uint32_t c = add(30, 5, "c", "{\"y\":[1,2]}");

	cr_assert_str_eq(osc_trace_args(&t, a), "{\"x\":1}");
	cr_assert_str_eq(osc_trace_args(&t, b), "");
	cr_assert_str_eq(osc_trace_args(&t, c), "{\"y\":[1,2]}");
	cr_assert_str_eq(osc_trace_args(&t, 99), "");
	cr_assert_eq(t.threads[0].nr_events, 3);
}

/*
 * Args by reference anywhere in a mapped input of over 4 GiB (a sparse
 * mapping: only the pages written are real): below 2^32, across it and
 * past it, found again after the sort and after the flows go apart and
 * come back. A place that lost its high bits would read another object.
 */
Test(trace, args_by_reference_past_4_gib)
{
	static const struct {
		uint64_t at;
		const char *text, *want;
	} refs[] = {
		{ 3, "{\"a\": 1}", "{\"a\":1}" },
		{ ((uint64_t)1 << 32) - 4, "{\"b\":[2, 3]}", "{\"b\":[2,3]}" },
		{ ((uint64_t)9 << 29) + 17, "{\"c\":\"x y\"}", "{\"c\":\"x y\"}" },
		{ ((uint64_t)5 << 30) - 8, "{\"d\":4}", "{\"d\":4}" },
	};
	size_t len = (size_t)5 << 30, n = sizeof(refs) / sizeof(refs[0]);
	char *map = mmap(NULL, len, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	cr_assert_neq(map, MAP_FAILED);
	for (size_t i = 0; i < n; i++)
		memcpy(map + refs[i].at, refs[i].text, strlen(refs[i].text));
	add(0, 1, "no input", NULL); /* a reference with no input mapped reads as none */
	osc_event_args_set(&t.events[0], &t.args_off[0], OSC_ARGS_REF(3));
	cr_assert_str_eq(osc_trace_args(&t, 0), "");
	osc_trace_release(&t);
	osc_trace_init(&t);
	t.args_map = map;
	t.args_map_len = len;
	t.args_src = map;
	for (size_t i = 0; i < n; i++) { /* latest first, the last one a flow */
		struct osc_event e = { .ts = (int64_t)(n - i), .corr_id = OSC_ID_NONE,
				       .ext = OSC_ID_NONE, .kernel = OSC_NONE,
				       .ph = i == n - 1 ? OSC_PH_FLOW_START : OSC_PH_COMPLETE };
		char name[8];

		snprintf(name, sizeof(name), "%zu", i);
		e.name = osc_trace_intern(&t, name, strlen(name));
		osc_trace_add_event_ref(&t, &e, NULL, OSC_ARGS_REF(refs[i].at));
	}
	osc_trace_sort(&t);
	for (size_t i = 0; i < t.nr_events; i++)
		cr_assert_str_eq(osc_trace_args(&t, (uint32_t)i),
				 refs[atoi(osc_trace_str(&t, t.events[i].name))].want);
	osc_trace_split_flows(&t);
	cr_assert_eq(t.nr_flows, 1);
	cr_assert_str_eq(osc_trace_flow_args(&t, 0), refs[n - 1].want);
	add(0, 1, "early", NULL); /* out of order: the sort puts the flow back among them */
	osc_trace_sort(&t);
	osc_trace_split_flows(&t);
	cr_assert_str_eq(osc_trace_flow_args(&t, 0), refs[n - 1].want);
	for (size_t i = 1; i < t.nr_events; i++)
		cr_assert_str_eq(osc_trace_args(&t, (uint32_t)i),
				 refs[atoi(osc_trace_str(&t, t.events[i].name))].want);
	/* a part of a parallel load merged into an empty trace, the flow set apart */
	{
		struct osc_trace part, whole;
		struct osc_trace_part taken;
		osc_str *str;
		uint32_t *thread = malloc(sizeof(*thread));

		osc_trace_init(&part);
		osc_trace_init(&whole);
		whole.args_src = map; /* t owns the mapping */
		whole.args_map_len = len;
		for (size_t i = 0; i < n; i++) {
			struct osc_event e = { .ts = (int64_t)i, .corr_id = OSC_ID_NONE,
					       .ext = OSC_ID_NONE, .kernel = OSC_NONE,
					       .ph = i == 2 ? OSC_PH_FLOW_END : OSC_PH_COMPLETE };

			osc_trace_add_event_ref(&part, &e, NULL, OSC_ARGS_REF(refs[i].at));
		}
		osc_trace_thread(&part, OSC_STR_EMPTY, OSC_STR_EMPTY);
		str = calloc(part.strs.count, sizeof(*str));
		thread[0] = osc_trace_thread(&whole, OSC_STR_EMPTY, OSC_STR_EMPTY);
		osc_trace_take_part(&whole, &part, str, thread, NULL, &taken);
		osc_trace_release(&part);
		osc_trace_merge_parts(&whole, &taken, 1);
		cr_assert_eq(whole.nr_flows, 1);
		cr_assert_str_eq(osc_trace_flow_args(&whole, 0), refs[2].want);
		for (size_t i = 0; i < whole.nr_events; i++)
			cr_assert_str_eq(osc_trace_args(&whole, (uint32_t)i),
					 refs[i < 2 ? i : i + 1].want);
		osc_trace_release(&whole);
	}
}

/*
 * Input (file order)          Sorted
 *   c ts=30 dur=1               a ts=10 dur=50  (parent first)
 *   b ts=10 dur=5               b ts=10 dur=5
 *   a ts=10 dur=50              d ts=10 dur=5   (tie: file order)
 *   d ts=10 dur=5               c ts=30
 */
Test(trace, sort_orders_by_ts_then_longer_first_then_file_order)
{
	add(30, 1, "c", "{\"c\":1}");
	add(10, 5, "b", "{\"b\":1}");
	add(10, 50, "a", NULL);
	add(10, 5, "d", "{\"d\":1}");
	osc_trace_sort(&t);
	const char *want[] = { "a", "b", "d", "c" };
	const char *args[] = { "", "{\"b\":1}", "{\"d\":1}", "{\"c\":1}" };
	for (int i = 0; i < 4; i++) {
		cr_assert_str_eq(osc_trace_str(&t, t.events[i].name), want[i]);
		cr_assert_str_eq(osc_trace_args(&t, (uint32_t)i), args[i]);
	}
}

Test(trace, sort_many_keeps_args_with_their_event)
{
	char name[32], args[48];

	for (int i = 0; i < 5000; i++) {
		snprintf(name, sizeof(name), "e%d", i);
		snprintf(args, sizeof(args), "{\"i\":%d}", i);
		add((i * 7919) % 1000, i % 3, name, args);
	}
	osc_trace_sort(&t);
	for (size_t i = 0; i < t.nr_events; i++) {
		const char *n = osc_trace_str(&t, t.events[i].name);

		snprintf(args, sizeof(args), "{\"i\":%s}", n + 1);
		cr_assert_str_eq(osc_trace_args(&t, (uint32_t)i), args);
		if (i) {
			const struct osc_event *p = &t.events[i - 1], *e = &t.events[i];

			cr_assert(p->ts < e->ts || (p->ts == e->ts && p->dur >= e->dur));
		}
	}
}

/*
 * Kernel facts are kept once per distinct set: equal facts get one index,
 * facts that differ in any field (float and 64-bit ones too) another, and
 * every index still reads back its own facts after the index has grown.
 */
Test(trace, kernel_facts_are_kept_once)
{
	enum { N = 5000 };
	struct osc_kernel k = { .grid = { 1, 1, 1 }, .block = { 128, 1, 1 }, .stream = 7,
				.device = 0, .registers = 32, .occupancy = 50.0f,
				.shared_mem = 0, .bytes = -1 };
	struct osc_kernel other = k;
	uint32_t first = osc_trace_add_kernel(&t, &k), idx[N];

	cr_assert_eq(osc_trace_add_kernel(&t, &k), first);
	other.occupancy = 50.5f;
	cr_assert_neq(osc_trace_add_kernel(&t, &other), first);
	other = k;
	other.bytes = (int64_t)1 << 40;
	cr_assert_neq(osc_trace_add_kernel(&t, &other), first);
	cr_assert_eq(t.nr_kernels, 3);
	for (int i = 0; i < N; i++) {
		other = k;
		other.grid[0] = 1000 + i % (N / 2); /* each set of facts twice */
		idx[i] = osc_trace_add_kernel(&t, &other);
	}
	cr_assert_eq(t.nr_kernels, 3 + N / 2);
	for (int i = 0; i < N; i++) {
		cr_assert_eq(idx[i], idx[i % (N / 2)], "facts %d", i);
		cr_assert_eq(t.kernels[idx[i]].grid[0], 1000 + i % (N / 2));
		cr_assert_eq(t.kernels[idx[i]].stream, 7);
	}
	cr_assert_eq(osc_trace_add_kernel(&t, &k), first);
}

Test(trace, threads_are_unique_per_pid_tid)
{
	osc_str p1 = osc_trace_intern(&t, "4037", 4), p2 = osc_trace_intern(&t, "Traces", 6);
	osc_str t1 = osc_trace_intern(&t, "7", 1);
	uint32_t a = osc_trace_thread(&t, p1, t1), b = osc_trace_thread(&t, p2, t1);

	cr_assert_neq(a, b);
	cr_assert_eq(osc_trace_thread(&t, p1, t1), a);
	cr_assert_eq(t.nr_threads, 2);
	cr_assert_eq(t.threads[b].pid, p2);
}

Test(trace, warnings_keep_first_offset)
{
	osc_trace_warn(&t, OSC_WARN_BAD_EVENT, 100);
	osc_trace_warn(&t, OSC_WARN_BAD_EVENT, 50);
	cr_assert_eq(t.warnings[OSC_WARN_BAD_EVENT].count, 2);
	cr_assert_eq(t.warnings[OSC_WARN_BAD_EVENT].first_offset, 100);
}

Test(trace, names)
{
	cr_assert_str_eq(osc_format_name(OSC_FORMAT_ORT), "onnxruntime");
	cr_assert_str_eq(osc_format_name(OSC_FORMAT_KINETO), "pytorch-kineto");
	cr_assert_str_eq(osc_kind_name(OSC_KIND_KERNEL), "kernel");
	cr_assert_str_eq(osc_kind_name(OSC_KIND_HOST_OP), "op");
	cr_assert_str_eq(osc_warn_text(OSC_WARN_TRUNCATED),
			 "input ends inside an event; incomplete events dropped");
	cr_assert(osc_kind_is_device(OSC_KIND_MEMCPY));
	cr_assert(!osc_kind_is_device(OSC_KIND_RUNTIME));
}

/*
 * k sorted runs of per_run events, equal and near-equal ones (as a file
 * parsed in parts, each part sorted, or a database read table by table
 * leaves them): the result is the stable sort, with each event's args,
 * whether the runs are merged (up to 64) or radix sorted (more).
 */
static void expect_stable_sort_of_runs(int k, int per_run)
{
	char name[32], args[48];
	int idx = 0;

	for (int r = 0; r < k; r++)
		for (int i = 0; i < per_run; i++, idx++) {
			snprintf(name, sizeof(name), "e%d", idx);
			snprintf(args, sizeof(args), "{\"i\":%d}", idx);
			/* per start: the longer one first, so each run is sorted */
			add(i / 3, (i % 3 == 0) ? 9 : r % 2, name, args);
		}
	cr_assert_eq(t.unsorted, k > 1);
	osc_trace_sort(&t);
	cr_assert_eq(t.nr_events, (size_t)idx);
	for (size_t i = 0; i < t.nr_events; i++) {
		const struct osc_event *e = &t.events[i];
		int ei = atoi(osc_trace_str(&t, e->name) + 1);

		snprintf(args, sizeof(args), "{\"i\":%d}", ei);
		cr_assert_str_eq(osc_trace_args(&t, (uint32_t)i), args);
		if (i) {
			const struct osc_event *p = &t.events[i - 1];
			int pi = atoi(osc_trace_str(&t, p->name) + 1);

			cr_assert(p->ts < e->ts || (p->ts == e->ts && p->dur > e->dur) ||
					  (p->ts == e->ts && p->dur == e->dur && pi < ei),
				  "%d runs: e%d before e%d", k, pi, ei);
		}
	}
}

Test(trace, sort_of_sorted_runs_is_stable)
{
	static const int runs[] = { 2, 5, 64, 65, 200 };

	for (size_t i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
		osc_trace_release(&t);
		osc_trace_init(&t);
		expect_stable_sort_of_runs(runs[i], 600 / runs[i] + 1);
	}
}

/* Runs big enough for the merge to split over two threads and give pages back. */
Test(trace, sort_of_a_few_big_runs_is_stable)
{
	expect_stable_sort_of_runs(3, 100000);
}

/*
 * Event idx of a test part: ties on purpose (few distinct starts and
 * durations); its args {"i":idx} copied, or with raw, copied as written
 * with white space (osc_trace_add_event_raw).
 */
static void add_raw_to(struct osc_trace *tr, int idx, bool raw)
{
	char name[32], args[48];
	struct osc_event e;

	snprintf(name, sizeof(name), "e%d", idx);
	snprintf(args, sizeof(args), raw ? "{ \"i\" :\n %d }" : "{\"i\":%d}", idx);
	memset(&e, 0, sizeof(e));
	e.ts = (int64_t)((unsigned)idx * 2654435761u % 5000u);
	e.dur = idx % 4;
	e.name = osc_trace_intern(tr, name, strlen(name));
	e.corr_id = OSC_ID_NONE;
	e.ext = OSC_ID_NONE;
	e.kernel = OSC_NONE;
	e.thread = osc_trace_thread(tr, osc_trace_intern(tr, "1", 1),
				    osc_trace_intern(tr, idx % 2 ? "odd" : "even", idx % 2 ? 3 : 4));
	if (raw)
		osc_trace_add_event_raw(tr, &e, NULL, args, strlen(args));
	else
		osc_trace_add_event(tr, &e, NULL, args, strlen(args));
}

static void add_to(struct osc_trace *tr, int idx)
{
	add_raw_to(tr, idx, false);
}

/*
 * Parts sorted apart and merged (on two threads, giving pages back: 750k
 * events) equal one stable sort of the whole in file order: events,
 * strings, threads, args. With own_first, the first part is t's own events
 * (added to t unsorted, taken by osc_trace_take_own_part); with raw, args
 * are copied as written, in blocks taken over by the merge.
 */
static void expect_merge_equals_the_stable_sort(bool own_first, bool raw)
{
	enum { PARTS = 5, PER = 150000 };
	struct osc_trace part[PARTS], whole;
	struct osc_trace_part taken[PARTS];
	struct osc_sort_scratch scratch = { 0 };

	osc_trace_init(&whole);
	for (int p = 0; p < PARTS; p++) {
		struct osc_trace *to = own_first && !p ? &t : &part[p];

		osc_trace_init(&part[p]);
		for (int i = 0; i < PER; i++) {
			add_raw_to(to, p * PER + i, raw);
			add_to(&whole, p * PER + i);
		}
		if (to == &part[p])
			osc_trace_sort(&part[p]);
	}
	osc_trace_sort(&whole);
	if (own_first) {
		osc_trace_take_own_part(&t, &scratch, &taken[0]);
		cr_assert_eq(t.nr_events, 0);
		osc_sort_scratch_release(&scratch);
	}
	for (int p = own_first; p < PARTS; p++) {
		osc_str *str = malloc(part[p].strs.count * sizeof(*str));
		uint32_t *thread = malloc(part[p].nr_threads * sizeof(*thread));

		for (size_t id = 0; id < part[p].strs.count; id++)
			str[id] = osc_trace_intern(&t, osc_trace_str(&part[p], (osc_str)id),
						   osc_strtab_len(&part[p].strs, (osc_str)id));
		for (size_t i = 0; i < part[p].nr_threads; i++)
			thread[i] = osc_trace_thread(&t, str[part[p].threads[i].pid],
						     str[part[p].threads[i].tid]);
		osc_trace_take_part(&t, &part[p], str, thread, NULL, &taken[p]);
		cr_assert_eq(part[p].nr_events, 0);
	}
	for (int p = 0; p < PARTS; p++)
		osc_trace_release(&part[p]);
	osc_trace_merge_parts(&t, taken, PARTS);
	cr_assert_eq(t.nr_events, whole.nr_events);
	for (size_t i = 0; i < t.nr_events; i++) {
		const struct osc_event *a = &t.events[i], *b = &whole.events[i];
		char want[48];

		cr_assert(a->ts == b->ts && a->dur == b->dur, "event %zu", i);
		cr_assert_str_eq(osc_trace_str(&t, a->name), osc_trace_str(&whole, b->name));
		cr_assert_str_eq(osc_trace_str(&t, t.threads[a->thread].tid),
				 osc_trace_str(&whole, whole.threads[b->thread].tid));
		snprintf(want, sizeof(want), "{\"i\":%s}", osc_trace_str(&t, a->name) + 1);
		cr_assert_str_eq(osc_trace_args(&t, (uint32_t)i), want);
	}
	cr_expect_eq(t.threads[0].nr_events + t.threads[1].nr_events, t.nr_events);
	if (raw) /* each part's blocks (several), none copied */
		cr_expect_gt(t.nr_raw, PARTS * 2);
	osc_trace_release(&whole);
}

Test(trace, merged_parts_equal_the_stable_sort)
{
	expect_merge_equals_the_stable_sort(false, false);
}

/* A loader's own events (the start of a stream) merged first with the parts of the rest. */
Test(trace, own_part_and_parts_merged_equal_the_stable_sort)
{
	expect_merge_equals_the_stable_sort(true, false);
}

/* The same with args copied as written (a spooled input's), read back minified. */
Test(trace, raw_args_follow_their_events_through_the_merge)
{
	expect_merge_equals_the_stable_sort(true, true);
}

/*
 * Sorts one after the other in one scratch memory (growing, then shrinking
 * in use, its old contents left in it) order each trace as its own sort does.
 */
Test(trace, sorts_sharing_scratch_equal_their_own_sorts)
{
	static const int sizes[] = { 3000, 500, 8000, 20 };
	struct osc_sort_scratch scratch = { 0 };

	for (size_t n = 0; n < sizeof(sizes) / sizeof(sizes[0]); n++) {
		struct osc_trace a, b;

		osc_trace_init(&a);
		osc_trace_init(&b);
		for (int i = 0; i < sizes[n]; i++) {
			add_to(&a, (int)n * 10000 + i);
			add_to(&b, (int)n * 10000 + i);
		}
		osc_trace_sort_in(&a, &scratch);
		osc_trace_sort(&b);
		cr_assert_eq(a.nr_events, b.nr_events);
		for (size_t i = 0; i < a.nr_events; i++) {
			cr_assert(a.events[i].ts == b.events[i].ts && a.events[i].dur == b.events[i].dur &&
				  a.events[i].name == b.events[i].name, "size %d, event %zu", sizes[n], i);
			cr_assert_str_eq(osc_trace_args(&a, (uint32_t)i), osc_trace_args(&b, (uint32_t)i));
		}
		osc_trace_release(&a);
		osc_trace_release(&b);
	}
	cr_expect_not_null(scratch.p, "the scratch is kept for the next sort");
	osc_sort_scratch_release(&scratch);
	cr_expect_null(scratch.p);
}

/*
 * Event idx of the extras tests, named "e<idx>" at time ts: every third
 * from idx 100 on has an op "op<idx>" and a provider "p<idx>" (so extras
 * start after events without), every seventh is a flow (of a phase and
 * category that follow from idx).
 */
static void add_extra(struct osc_trace *tr, int idx, int64_t ts, bool extras)
{
	char name[32], op[32], prov[32];
	struct osc_event e = { .ts = ts, .corr_id = OSC_ID_NONE, .ext = OSC_ID_NONE,
			       .kernel = OSC_NONE };
	struct osc_event_extra x;

	snprintf(name, sizeof(name), "e%d", idx);
	snprintf(op, sizeof(op), "op%d", idx);
	snprintf(prov, sizeof(prov), "p%d", idx);
	e.name = osc_trace_intern(tr, name, strlen(name));
	e.ph = idx % 7 ? OSC_PH_COMPLETE : (uint8_t)(OSC_PH_FLOW_START + idx / 7 % 3);
	e.cat = osc_trace_intern(tr, idx % 2 ? "odd" : "even", idx % 2 ? 3 : 4);
	e.thread = osc_trace_thread(tr, osc_trace_intern(tr, "1", 1), osc_trace_intern(tr, "1", 1));
	x = (struct osc_event_extra){ .op = osc_trace_intern(tr, op, strlen(op)),
				      .provider = osc_trace_intern(tr, prov, strlen(prov)) };
	osc_trace_add_event(tr, &e, extras && idx >= 100 && idx % 3 == 0 ? &x : NULL, NULL, 0);
}

/*
 * Every event of tr has the op and provider add_extra gave it, those from
 * index `from` on added with extras; n events and flows in all.
 */
static void expect_extras(const struct osc_trace *tr, size_t n, int from)
{
	cr_assert_eq(tr->nr_events + tr->nr_flows, n);
	cr_assert_not_null(tr->extras);
	for (size_t i = 0; i < tr->nr_events; i++) {
		int idx = atoi(osc_trace_str(tr, tr->events[i].name) + 1);
		bool own = idx >= from && idx >= 100 && idx % 3 == 0;
		char op[32], prov[32];

		cr_assert(idx % 7, "a flow among the events");
		snprintf(op, sizeof(op), own ? "op%d" : "e%d", idx);
		if (own)
			snprintf(prov, sizeof(prov), "p%d", idx);
		else
			prov[0] = '\0';
		cr_assert_str_eq(osc_trace_str(tr, osc_trace_op(tr, i)), op, "event %zu", i);
		cr_assert_str_eq(osc_trace_str(tr, osc_trace_provider(tr, i)), prov, "event %zu", i);
	}
	for (size_t f = 0; f < tr->nr_flows; f++) { /* flows keep their name, cat and phase */
		const struct osc_flow_name *nm = osc_trace_flow_name(tr, &tr->flows[f]);
		int idx = atoi(osc_trace_str(tr, nm->name) + 1);

		cr_assert_eq(idx % 7, 0, "flow %zu", f);
		cr_assert_eq(osc_flow_ph(&tr->flows[f]), OSC_PH_FLOW_START + idx / 7 % 3);
		cr_assert_str_eq(osc_trace_str(tr, nm->cat), idx % 2 ? "odd" : "even");
	}
	cr_assert(tr->has_providers);
}

/*
 * Extras go with their events through the sort (the radix sort of shuffled
 * events, the merge of a few sorted runs) and as the flows go apart.
 */
Test(trace, extras_follow_their_events)
{
	enum { N = 30000 };

	for (int i = 0; i < N; i++)
		add_extra(&t, i, (int64_t)((unsigned)i * 2654435761u % 100000u), true);
	osc_trace_sort(&t);
	osc_trace_split_flows(&t);
	expect_extras(&t, N, 0);
	osc_trace_release(&t);
	osc_trace_init(&t);
	for (int i = 0; i < N; i++) /* two sorted runs */
		add_extra(&t, i, i < N / 2 ? 2 * i : 2 * (i - N / 2) + 1, true);
	osc_trace_sort(&t);
	osc_trace_split_flows(&t);
	expect_extras(&t, N, 0);
}

/*
 * A generous reserve given back (osc_trace_fit): room for the events alone,
 * each with its args and extras; adding after it grows again; an empty
 * trace is left as it is.
 */
Test(trace, fit_gives_back_the_room_past_the_events)
{
	enum { N = 1000 };

	osc_trace_fit(&t);
	cr_expect_eq(t.alloc_events, 0);
	osc_trace_reserve(&t, 100000);
	cr_assert_geq(t.alloc_events, 100000);
	for (int i = 0; i < N; i++)
		add_extra(&t, i, i, true);
	osc_trace_fit(&t);
	cr_expect_eq(t.alloc_events, N);
	osc_trace_sort(&t);
	osc_trace_split_flows(&t);
	expect_extras(&t, N, 0);
	add(N, 1, "after", "{\"z\":3}");
	cr_expect_str_eq(osc_trace_args(&t, (uint32_t)t.nr_events - 1), "{\"z\":3}");
}

/* Parts merged where only one has extras: the others' ops are their names. */
Test(trace, merged_parts_keep_extras)
{
	enum { PARTS = 2, PER = 120000 };
	struct osc_trace part[PARTS];
	struct osc_trace_part taken[PARTS];

	for (int p = 0; p < PARTS; p++) {
		osc_trace_init(&part[p]);
		for (int i = 0; i < PER; i++)
			add_extra(&part[p], p * PER + i, (int64_t)(i * PARTS + p), p == 1);
		osc_trace_sort(&part[p]);
		cr_assert_eq(part[p].extras != NULL, p == 1);
	}
	for (int p = 0; p < PARTS; p++) {
		osc_str *str = malloc(part[p].strs.count * sizeof(*str));
		uint32_t *thread = malloc(sizeof(*thread));

		for (size_t id = 0; id < part[p].strs.count; id++)
			str[id] = osc_trace_intern(&t, osc_trace_str(&part[p], (osc_str)id),
						   osc_strtab_len(&part[p].strs, (osc_str)id));
		thread[0] = osc_trace_thread(&t, str[part[p].threads[0].pid],
					     str[part[p].threads[0].tid]);
		osc_trace_take_part(&t, &part[p], str, thread, NULL, &taken[p]);
		osc_trace_release(&part[p]);
	}
	osc_trace_merge_parts(&t, taken, PARTS);
	expect_extras(&t, PARTS * PER, PER);
}

/* Parts merged after events already there, overlapping them in time: the sort still orders all. */
Test(trace, merge_after_later_events_then_sort)
{
	static const int64_t mine[] = { 100, 300 }, theirs[] = { 50, 200, 400 };
	static const int64_t want[] = { 50, 100, 200, 300, 400 };
	struct osc_trace part;
	struct osc_trace_part taken;
	osc_str *str;
	uint32_t *thread;

	for (size_t i = 0; i < 2; i++)
		add(mine[i], 1, "mine", NULL);
	osc_trace_sort(&t);
	osc_trace_init(&part);
	for (size_t i = 0; i < 3; i++) {
		struct osc_event e = t.events[0];

		e.ts = theirs[i];
		e.name = e.thread = 0;
		osc_trace_add_event(&part, &e, NULL, NULL, 0);
	}
	str = malloc(sizeof(*str));
	thread = malloc(sizeof(*thread));
	str[0] = OSC_STR_EMPTY;
	thread[0] = t.events[0].thread;
	osc_trace_take_part(&t, &part, str, thread, NULL, &taken);
	osc_trace_release(&part);
	osc_trace_merge_parts(&t, &taken, 1);
	osc_trace_sort(&t);
	cr_assert_eq(t.nr_events, 5);
	for (size_t i = 0; i < 5; i++)
		cr_expect_eq(t.events[i].ts, want[i], "event %zu at %lld", i,
			     (long long)t.events[i].ts);
}
