/*
 * test_collective_skew.c - the collective calls of a rank and their skew
 * across ranks (collective_skew.h), every figure worked out by hand.
 *
 * Hand-built summaries (ns), 3 ranks, each with runs 0 and 1; rank 0 is
 * rank 7 of its job, rank 1 is rank 8, rank 2 has no number (shown by index).
 * Group "tp" of all three:
 *   seq 0 allreduce 4000 B, n 3 (run 0): rank 0 [100, +50) rank 1 [110, +40)
 *     rank 2 [130, +20): skew 130 - 100 = 30, transfer (the shortest) 20,
 *     wait 50 - 20 = 30 at rank 0 (7), busbw 4000 / 20 x 2(3-1)/3 = 266.667 GB/s
 *   seq 1 barrier (run 1) on all three, no device work: figures unknown
 *   seq 2 allreduce of unknown size (run 1): rank 0 [300, +10) rank 2
 *     [305, +4), rank 1 lacks it (1 missing): skew 5, transfer 4, wait 6
 * Group "dp" of ranks 0 and 1 (rank 2 has none of it: not missing there):
 *   seq 0 _allgather_base 800 B, n 2 (run 1): rank 0 [1000, +10) rank 1
 *     [990, +12): rank 1 first, skew 10, transfer 10, wait 2 at rank 1,
 *     busbw 800 / 10 x 1/2 = 40
 * NCCL's choices (algorithm, protocol): the first allreduce RING LL on ranks
 * 0 and 1 but RING SIMPLE on rank 2 (protocol "mixed"), the second TREE LL,
 * the allgather RING LL128, the barrier none; the sums split the allreduces.
 * With only run 0 of rank 0 counted: "dp" has rank 1 alone (skew 0,
 * transfer 12, busbw 33.333); the barrier misses rank 0, the second
 * allreduce ranks 0 and 1.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "opscope/analysis/collective_skew.h"
#include "opscope/model/rank.h"
#include "trace_fixture.h"

struct hand_call {
	int rank;
	const char *group, *name;
	uint32_t seq, run;
	double bytes;
	int64_t group_size, ts, dur;
	const char *algorithm, *protocol;
};

static const struct hand_call hand[] = {
	{ 0, "tp", "allreduce", 0, 0, 4000, 3, 100, 50, "RING", "LL" },
	{ 1, "tp", "allreduce", 0, 0, 4000, 3, 110, 40, "RING", "LL" },
	{ 2, "tp", "allreduce", 0, 0, 4000, 3, 130, 20, "RING", "SIMPLE" },
	{ 0, "tp", "barrier", 1, 1, 0, 3, -1, 0, "", "" },
	{ 1, "tp", "barrier", 1, 1, 0, 3, -1, 0, "", "" },
	{ 2, "tp", "barrier", 1, 1, 0, 3, -1, 0, "", "" },
	{ 0, "tp", "allreduce", 2, 1, NAN, 3, 300, 10, "TREE", "LL" },
	{ 2, "tp", "allreduce", 2, 1, NAN, 3, 305, 4, "TREE", "LL" },
	{ 0, "dp", "_allgather_base", 0, 1, 800, 2, 1000, 10, "RING", "LL128" },
	{ 1, "dp", "_allgather_base", 0, 1, 800, 2, 990, 12, "RING", "LL128" },
};
static void build(struct osc_summary s[3])
{
	for (int r = 0; r < 3; r++) {
		osc_summary_init(&s[r]);
		s[r].rank.rank = r < 2 ? 7 + r : -1;
		for (int k = 0; k < 2; k++)
			osc_summary_add_run(&s[r],
					    &(struct osc_sum_run){ .ts = k * 500, .wall = 500 });
	}
	for (size_t i = 0; i < FX_LEN(hand); i++) {
		const struct hand_call *h = &hand[i];
		struct osc_summary *x = &s[h->rank];
		struct osc_sum_call c = {
			.name = osc_summary_intern(x, h->name), .dtype = osc_summary_intern(x, ""),
			.group = osc_summary_intern(x, h->group), .group_size = h->group_size,
			.bytes = h->bytes, .ts = h->ts, .dur = h->dur, .host_ts = h->ts,
			.run = h->run, .seq = h->seq,
			.algorithm = osc_summary_intern(x, h->algorithm),
			.protocol = osc_summary_intern(x, h->protocol),
		};
		osc_summary_add_call(x, &c);
	}
}

/* Every cell of row r of the call table, comma-separated. */
static void call_row(const struct osc_summary *const *ranks, const struct osc_skew *k, size_t r,
		     char *out, size_t size)
{
	size_t nc, len = 0;
	char buf[64];

	osc_skew_columns(&nc);
	out[0] = '\0';
	for (size_t c = 0; c < nc; c++)
		len += (size_t)snprintf(out + len, size - len, "%s%s", c ? "," : "",
					osc_skew_cell(ranks, k, r, c, buf, sizeof(buf)));
}

static void sum_row(const struct osc_skew *k, size_t r, char *out, size_t size)
{
	size_t nc, len = 0;
	char buf[64];

	osc_skew_sum_columns(&nc);
	out[0] = '\0';
	for (size_t c = 0; c < nc; c++)
		len += (size_t)snprintf(out + len, size - len, "%s%s", c ? "," : "",
					osc_skew_sum_cell(k, r, c, buf, sizeof(buf)));
}

static void expect_calls(const struct osc_summary *const *ranks, const struct osc_skew *k,
			 const char *const *want, size_t n)
{
	char got[1024];

	cr_assert_eq(k->nr, n, "calls: %zu, want %zu", k->nr, n);
	for (size_t r = 0; r < n; r++) {
		call_row(ranks, k, r, got, sizeof(got));
		cr_expect_str_eq(got, want[r], "call %zu", r);
	}
}

static void expect_sums(const struct osc_skew *k, const char *const *want, size_t n)
{
	char got[1024];

	cr_assert_eq(k->nr_sums, n, "sums: %zu, want %zu", k->nr_sums, n);
	for (size_t r = 0; r < n; r++) {
		sum_row(k, r, got, sizeof(got));
		cr_expect_str_eq(got, want[r], "sum %zu", r);
	}
}

Test(collective_skew, columns_say_their_units)
{
	size_t n;
	const struct osc_column *c = osc_skew_columns(&n);
	const char *want[] = { "group", "seq", "collective", "msg_mb", "algorithm", "protocol",
			       "ranks", "missing_ranks",
			       "first_rank", "last_rank", "skew_us", "transfer_us", "wait_us",
			       "waited_rank", "busbw_gbs" };

	cr_assert_eq(n, FX_LEN(want));
	for (size_t i = 0; i < n; i++)
		cr_expect_str_eq(c[i].title, want[i]);
	c = osc_skew_sum_columns(&n);
	cr_expect_str_eq(c[n - 1].title, "mean_busbw_gbs");
}

Test(collective_skew, hand_summaries)
{
	struct osc_summary s[3];
	const struct osc_summary *ranks[3] = { &s[0], &s[1], &s[2] };
	struct osc_skew k;
	const char *calls[] = {
		"dp,0,_allgather_base,0.000800,RING,LL128,2,0,8,7,0.010,0.010,0.002,8,40.000",
		"tp,0,allreduce,0.004000,RING,mixed,3,0,7,2,0.030,0.020,0.030,7,266.667",
		"tp,1,barrier,0.000000,,,3,0,,,,,,,",
		"tp,2,allreduce,,TREE,LL,2,1,7,2,0.005,0.004,0.006,7,",
	};
	const char *sums[] = {
		"dp,_allgather_base,RING,LL128,1,0,0.010,0.010,0.002,40.000",
		"tp,allreduce,RING,mixed,1,0,0.030,0.020,0.030,266.667",
		"tp,allreduce,TREE,LL,1,1,0.005,0.004,0.006,",
		"tp,barrier,,,1,0,0.000,0.000,0.000,",
	};

	build(s);
	osc_collective_skew(ranks, 3, NULL, &k);
	expect_calls(ranks, &k, calls, FX_LEN(calls));
	expect_sums(&k, sums, FX_LEN(sums));
	cr_expect_eq(k.calls[0].first, 1, "rank 1 entered the allgather first");
	cr_expect_eq(k.calls[1].last, 2, "indexes into the ranks given");
	osc_skew_release(&k);
	for (int r = 0; r < 3; r++)
		osc_summary_release(&s[r]);
}

Test(collective_skew, run_selection)
{
	struct osc_summary s[3];
	const struct osc_summary *ranks[3] = { &s[0], &s[1], &s[2] };
	const uint8_t first_run[2] = { 1, 0 };
	const uint8_t *const run_on[3] = { first_run, NULL, NULL };
	struct osc_skew k;
	const char *calls[] = {
		"dp,0,_allgather_base,0.000800,RING,LL128,1,0,8,8,0.000,0.012,0.000,8,33.333",
		"tp,0,allreduce,0.004000,RING,mixed,3,0,7,2,0.030,0.020,0.030,7,266.667",
		"tp,1,barrier,0.000000,,,2,1,,,,,,,",
		"tp,2,allreduce,,TREE,LL,1,2,2,2,0.000,0.004,0.000,2,",
	};

	build(s);
	osc_collective_skew(ranks, 3, run_on, &k);
	expect_calls(ranks, &k, calls, FX_LEN(calls));
	osc_skew_release(&k);
	for (int r = 0; r < 3; r++)
		osc_summary_release(&s[r]);
}

Test(collective_skew, no_ranks)
{
	struct osc_skew k;

	osc_collective_skew(NULL, 0, NULL, &k);
	cr_expect_eq(k.nr, 0);
	cr_expect_eq(k.nr_sums, 0);
	osc_skew_release(&k);
}

/* Load rel, find its runs and add them (their windows) and its calls to s. */
static void summarise(const char *rel, struct osc_summary *s)
{
	struct osc_trace t;
	struct osc_runs runs;

	fx_load(&t, rel);
	osc_runs_detect(&t, &runs);
	osc_summary_init(s);
	osc_trace_rank(&t, NULL, &s->rank);
	for (size_t r = 0; r < runs.nr; r++)
		osc_summary_add_run(s, &(struct osc_sum_run){ .ts = runs.runs[r].ts,
							      .wall = runs.runs[r].dur });
	osc_summary_add_calls(&t, &runs, s);
	osc_runs_release(&runs);
	osc_trace_release(&t);
}

/*
 * tests/data/collectives-hand.json (see tests/cli/run_collective_tests.py):
 * no "Process Group Name", so the group is the group size; the wait
 * launched nothing; the kernels' names say RING LL, TREE LL128 and RING
 * SIMPLE (the older ncclKernel_ form), the broadcast's (Generic) nothing.
 */
Test(collective_skew, calls_of_a_trace)
{
	struct osc_summary s;
	static const struct {
		const char *name, *group;
		uint32_t seq;
		double bytes;
		int64_t ts, dur, host_ts;
		const char *algorithm, *protocol;
	} want[] = {
		{ "allreduce", "4", 0, 4000, 120000, 10000, 100000, "RING", "LL" },
		{ "allreduce", "4", 1, 4000, 220000, 10000, 200000, "TREE", "LL128" },
		{ "_allgather_base", "4", 2, 800, 320000, 2000, 300000, "RING", "SIMPLE" },
		{ "wait", "1", 0, 0, -1, 0, 400000, "", "" },
		{ "broadcast", "4", 3, NAN, 520000, 1000, 500000, "", "" },
	};

	summarise("tests/data/collectives-hand.json", &s);
	cr_assert_eq(s.nr_calls, FX_LEN(want));
	for (size_t i = 0; i < FX_LEN(want); i++) {
		const struct osc_sum_call *c = &s.calls[i];

		cr_expect_str_eq(osc_summary_str(&s, c->name), want[i].name, "call %zu", i);
		cr_expect_str_eq(osc_summary_str(&s, c->group), want[i].group, "call %zu", i);
		cr_expect_eq(c->seq, want[i].seq, "call %zu", i);
		cr_expect(c->bytes == want[i].bytes || (isnan(c->bytes) && isnan(want[i].bytes)),
			  "call %zu: bytes %g", i, c->bytes);
		cr_expect_eq(c->ts, want[i].ts, "call %zu", i);
		cr_expect_eq(c->dur, want[i].dur, "call %zu", i);
		cr_expect_eq(c->host_ts, want[i].host_ts, "call %zu", i);
		cr_expect_eq(c->run, 0, "call %zu", i);
		cr_expect_eq(c->group_size, i == 3 ? 1 : 4, "call %zu", i);
		cr_expect_str_eq(osc_summary_str(&s, c->algorithm), want[i].algorithm, "call %zu", i);
		cr_expect_str_eq(osc_summary_str(&s, c->protocol), want[i].protocol, "call %zu", i);
	}
	osc_summary_release(&s);
}

/*
 * tests/data/ranks-hand (README.md there; µs): group "0" of ranks 0-2,
 * group "1" of ranks 0 and 1, and an old-style record_param_comms (no
 * "Collective name") whose SendRecv kernel is a call of stream 9. Rank 1's
 * first allreduce is two kernels: [1010, 1030) and [1035, 1050).
 */
#define SENDRECV \
	"ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)"
Test(collective_skew, hand_ranks)
{
	struct osc_summary s[3];
	const struct osc_summary *ranks[3] = { &s[0], &s[1], &s[2] };
	const uint8_t second_run[2] = { 0, 1 };
	const uint8_t *const run_on[3] = { second_run, second_run, second_run };
	struct osc_skew k;
	const char *calls[] = {
		"0,0,allreduce,0.004000,RING,LL,3,0,0,2,30.000,20.000,30.000,0,0.267",
		"0,1,allreduce,0.008000,RING,LL,3,0,0,2,50.000,50.000,50.000,0,0.213",
		"0,2,barrier,0.000000,,,3,0,,,,,,,",
		"0,3,allreduce,,RING,LL,2,1,0,1,2.000,6.000,2.000,0,",
		"1,0,_allgather_base,0.000400,RING,LL,2,0,0,1,4.000,6.000,4.000,0,0.033",
		"stream 9,0," SENDRECV ",,RING,SIMPLE,3,0,0,2,20.000,10.000,20.000,0,",
	};
	const char *sums[] = {
		"0,allreduce,RING,LL,3,1,82.000,76.000,82.000,0.240",
		"0,barrier,,,1,0,0.000,0.000,0.000,",
		"1,_allgather_base,RING,LL,1,0,4.000,6.000,4.000,0.033",
		"stream 9," SENDRECV ",RING,SIMPLE,1,0,20.000,10.000,20.000,",
	};

	summarise("tests/data/ranks-hand/rank0.json", &s[0]);
	summarise("tests/data/ranks-hand/rank1.json", &s[1]);
	summarise("tests/data/ranks-hand/rank2.json", &s[2]);
	osc_collective_skew(ranks, 3, NULL, &k);
	expect_calls(ranks, &k, calls, FX_LEN(calls));
	expect_sums(&k, sums, FX_LEN(sums));
	osc_skew_release(&k);
	/* the second step holds the SendRecv only */
	osc_collective_skew(ranks, 3, run_on, &k);
	expect_calls(ranks, &k, calls + 5, 1);
	osc_skew_release(&k);
	for (int r = 0; r < 3; r++)
		osc_summary_release(&s[r]);
}
