/* test_rank.c - a trace's rank: distributedInfo first, else the file name. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "opscope/model/rank.h"
#include "trace_fixture.h"

static struct osc_rank rank_of(const char *meta, const char *path)
{
	static const struct fx_event ev[] = { FX("a", HOST_OP, 0, 10) };
	struct osc_trace t;
	struct osc_rank r;

	fx_build(&t, OSC_FORMAT_KINETO, ev, FX_LEN(ev));
	free(t.meta_json);
	t.meta_json = meta ? strdup(meta) : NULL;
	osc_trace_rank(&t, path, &r);
	osc_trace_release(&t);
	return r;
}

Test(rank, distributed_info_first)
{
	struct osc_rank r = rank_of("{\"distributedInfo\": {\"backend\": \"nccl\", \"rank\": 3, "
				    "\"world_size\": 8}}",
				    "worker5.json");

	cr_expect_eq(r.source, OSC_RANK_DISTRIBUTED_INFO);
	cr_expect_eq(r.rank, 3);
	cr_expect_eq(r.world_size, 8);
	cr_expect_str_eq(r.backend, "nccl");
	/* a world size the rank does not fit in is unknown, the rank kept */
	r = rank_of("{\"distributedInfo\": {\"rank\": 8, \"world_size\": 8}}", NULL);
	cr_expect_eq(r.rank, 8);
	cr_expect_eq(r.world_size, -1);
	cr_expect_str_eq(r.backend, "");
}

Test(rank, file_names)
{
	static const struct {
		const char *path;
		int64_t rank;
	} cases[] = {
		{ "rank-3.json", 3 },
		{ "dir/trace_rank12.json.gz", 12 },
		{ "rank_0.pt.trace.json", 0 },
		{ "/x/worker7.1623143089861.pt.trace.json.gz", 7 },
		{ "ranking.json", -1 },   /* "rank" not followed by a number */
		{ "rank-3/trace.json", -1 }, /* only the base name counts */
		{ "plain.json", -1 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct osc_rank r = rank_of(NULL, cases[i].path);

		cr_expect_eq(r.rank, cases[i].rank, "%s", cases[i].path);
		cr_expect_eq(r.source, cases[i].rank >= 0 ? OSC_RANK_FILE_NAME : OSC_RANK_NONE, "%s",
			     cases[i].path);
		cr_expect_eq(r.world_size, -1);
	}
	/* a distributedInfo without a whole rank falls back to the name */
	cr_expect_eq(rank_of("{\"distributedInfo\": {\"rank\": \"x\"}}", "rank2.json").rank, 2);
}
