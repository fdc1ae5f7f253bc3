/*
 * test_ranks.c - a job's ranks side by side (ranks.h) on summaries built by
 * hand, and the job's inputs and rank order (job.h): figures worked out by
 * hand.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "opscope/analysis/job.h"
#include "opscope/analysis/job_info.h"
#include "opscope/analysis/ranks.h"

/* A rank with one run of `wall` ns: compute and comm busy times, one op and one kernel row. */
static void add_rank(struct osc_job *j, int64_t rank, int64_t wall, int64_t compute,
		     int64_t comm, const char *op, int64_t self, int64_t dev)
{
	struct osc_summary *s = &j->ranks[j->nr++];
	struct osc_sum_run run = { .wall = wall, .busy = compute + comm,
				   .idle = wall - compute - comm, .host_busy = self,
				   .device_time = dev, .cat = { compute, comm } };
	struct osc_sum_row r = { .level = OSC_LEVEL_OP, .run = 0, .count = 2, .self = self,
				 .dev = dev, .total = self, .min = 1, .max = self - 1 };
	char path[32];

	osc_summary_init(s);
	snprintf(path, sizeof(path), "r%lld.json", (long long)rank);
	s->path = strdup(path);
	s->rank = (struct osc_rank){ .source = OSC_RANK_DISTRIBUTED_INFO, .rank = rank,
				     .world_size = 4 };
	s->has_device = dev > 0;
	osc_summary_add_run(s, &run);
	r.key = osc_summary_intern(s, op);
	osc_summary_add_row(s, &r);
	r = (struct osc_sum_row){ .level = OSC_LEVEL_KERNEL, .run = 0, .count = 1, .total = dev,
				  .dev = dev, .key = osc_summary_intern(s, "gemm") };
	osc_summary_add_row(s, &r);
	osc_summary_sort(s);
}

static void job_init(struct osc_job *j, size_t n)
{
	j->ranks = calloc(n, sizeof(*j->ranks));
	j->nr = 0;
}

Test(ranks, table_medians_and_flags)
{
	struct osc_job j;
	struct osc_rank_runs runs;
	struct osc_rank_table t;
	struct osc_error err;
	char buf[64];

	job_init(&j, 4);
	/* steps 100, 100, 100, 130 (median 100); compute 40, 40, 60, 40 (median 40);
	   comm 20, 30, 10, 20 (median 20) */
	add_rank(&j, 0, 100, 40, 20, "a", 50, 60);
	add_rank(&j, 1, 100, 40, 30, "a", 50, 70);
	add_rank(&j, 2, 100, 60, 10, "a", 50, 70);
	add_rank(&j, 3, 130, 40, 20, "b", 50, 60);
	cr_assert_eq(osc_rank_runs_parse(&j, NULL, &runs, &err), OSC_OK);
	cr_assert_eq(osc_rank_table(&j, &runs, 0, &t, &err), OSC_OK);
	cr_expect_float_eq(t.k, OSC_STRAGGLER_K, 1e-12);
	cr_expect_eq(t.rows[3].flags, OSC_RANK_SLOW_STEP, "1.3 x the median step");
	cr_expect_eq(t.rows[2].flags, OSC_RANK_STRAGGLER, "1.5 x the median work");
	cr_expect_eq(t.rows[1].flags, OSC_RANK_WAITS, "1.5 x the median comm");
	cr_expect_eq(t.rows[0].flags, 0);
	cr_expect_eq(t.nr_flagged, 3);
	cr_expect_float_eq(t.rows[3].step_x, 1.3, 1e-12);
	cr_expect_float_eq(t.rows[2].comm_x, 0.5, 1e-12);
	cr_expect_str_eq(osc_rank_flags_text(OSC_RANK_STRAGGLER | OSC_RANK_WAITS, buf, sizeof(buf)),
			 "straggler, waits");
	cr_expect_str_eq(t.rows[0].top_kernel, "gemm");
	osc_rank_table_release(&t);
	/* a larger k flags nothing: 1.5 is not beyond 1.5 */
	cr_assert_eq(osc_rank_table(&j, &runs, 1.5, &t, &err), OSC_OK);
	cr_expect_eq(t.nr_flagged, 0);
	osc_rank_table_release(&t);
	osc_rank_runs_release(&runs);
	osc_job_release(&j);
}

/* Add a run [ts, ts + wall) to rank s with busy time busy (all compute) and host busy self. */
static void add_run(struct osc_summary *s, int64_t ts, int64_t wall, int64_t busy, int64_t self)
{
	struct osc_sum_run run = { .ts = ts, .wall = wall, .busy = busy, .idle = wall - busy,
				   .host_busy = self, .device_time = busy, .cat = { busy } };

	run.name = osc_summary_intern(s, "range");
	osc_summary_add_run(s, &run);
}

Test(ranks, nested_runs_count_once)
{
	struct osc_job j;
	struct osc_rank_runs runs;
	struct osc_rank_table t;
	struct osc_error err;

	job_init(&j, 1);
	/* run 0 of add_rank: [0, 100), busy 60; run 1 [20, 60) nested in it, busy 30;
	   run 2 [100, 150) touching it, busy 10 */
	add_rank(&j, 0, 100, 40, 20, "a", 50, 60);
	add_run(&j.ranks[0], 20, 40, 30, 5);
	add_run(&j.ranks[0], 100, 50, 10, 7);
	cr_assert_eq(osc_rank_runs_parse(&j, "all", &runs, &err), OSC_OK);
	cr_assert_eq(osc_rank_table(&j, &runs, 0, &t, &err), OSC_OK);
	cr_expect_eq(t.rows[0].wall, 150, "run 1 adds no wall: %lld", (long long)t.rows[0].wall);
	cr_expect_eq(t.rows[0].busy, 70);
	cr_expect_eq(t.rows[0].idle, 80);
	cr_expect_eq(t.rows[0].cat[0], 50);
	cr_expect_eq(t.rows[0].host_busy, 62, "host busy over every run");
	cr_expect_eq(t.rows[0].nr_runs, 3);
	cr_expect_float_eq(t.rows[0].step, 75, 1e-9, "two spans");
	osc_rank_table_release(&t);
	osc_rank_runs_release(&runs);
	/* run 3 [140, 170) overlaps run 2 without either holding the other */
	add_run(&j.ranks[0], 140, 30, 5, 1);
	cr_assert_eq(osc_rank_runs_parse(&j, "all", &runs, &err), OSC_OK);
	cr_expect_eq(osc_rank_table(&j, &runs, 0, &t, &err), OSC_USAGE);
	cr_expect(strstr(err.message, "runs 2 (range) and 3 (range) overlap"), "%s", err.message);
	cr_expect_str_eq(err.subject, "r0.json");
	cr_expect_eq(t.nr, 0);
	cr_expect_float_eq(t.k, OSC_STRAGGLER_K, 1e-12, "the title's k stays");
	osc_rank_table_release(&t);
	osc_rank_runs_release(&runs);
	/* without run 2 the rest nest or do not touch */
	cr_assert_eq(osc_rank_runs_parse(&j, "[0, 1, 3]", &runs, &err), OSC_OK);
	cr_assert_eq(osc_rank_table(&j, &runs, 0, &t, &err), OSC_OK);
	cr_expect_eq(t.rows[0].wall, 130);
	cr_expect_eq(t.rows[0].busy, 65);
	osc_rank_table_release(&t);
	osc_rank_runs_release(&runs);
	osc_job_release(&j);
}

Test(ranks, distribution_across_ranks)
{
	struct osc_job j;
	struct osc_rank_runs runs;
	struct osc_rank_dist d;
	struct osc_error err;
	char buf[64];

	job_init(&j, 4);
	add_rank(&j, 0, 100, 40, 20, "a", 50, 60);
	add_rank(&j, 1, 100, 40, 30, "a", 50, 70);
	add_rank(&j, 2, 100, 60, 10, "a", 50, 70);
	add_rank(&j, 3, 130, 40, 20, "b", 50, 60);
	cr_assert_eq(osc_rank_runs_parse(&j, NULL, &runs, &err), OSC_OK);
	osc_rank_dist(&j, &runs, OSC_LEVEL_OP, &d);
	cr_expect_eq(d.measure, OSC_MEASURE_DEVICE, "device time when the job has device events");
	cr_assert_eq(d.nr, 2);
	/* a: 60, 70, 70, 0 (absent on rank 3) -> total 200, median 65, min 0 on rank 3 */
	cr_expect_str_eq(d.rows[0].key, "a");
	cr_expect_eq(d.rows[0].ranks, 3);
	cr_expect_eq(d.rows[0].count, 6);
	cr_expect_float_eq(d.rows[0].total, 200, 1e-9);
	cr_expect_float_eq(d.rows[0].median, 65, 1e-9);
	cr_expect_float_eq(d.rows[0].mean, 50, 1e-9);
	cr_expect_eq(d.rows[0].min_rank, 3);
	cr_expect_eq(d.rows[0].max_rank, 1, "the lowest rank of equal maxima");
	cr_expect_float_eq(d.rows[0].spread_pct, 100.0 * 70 / 65, 1e-9);
	/* b: 0, 0, 0, 60: a zero median has no spread */
	cr_expect_str_eq(d.rows[1].key, "b");
	cr_expect(isnan(d.rows[1].spread_pct));
	cr_expect_str_eq(osc_rank_dist_cell(&j, &d, 1, 10, buf, sizeof(buf)), "");
	cr_expect_str_eq(osc_rank_dist_cell(&j, &d, 0, 6, buf, sizeof(buf)), "3");
	osc_rank_dist_release(&d);
	osc_rank_dist(&j, &runs, OSC_LEVEL_KERNEL, &d);
	cr_expect_eq(d.measure, OSC_MEASURE_HOST, "a kernel's own time");
	cr_expect_eq(d.nr, 1);
	cr_expect_float_eq(d.rows[0].total, 260, 1e-9);
	osc_rank_dist_release(&d);
	osc_rank_runs_release(&runs);
	osc_job_release(&j);
}

Test(ranks, split_percentages_of_each_rank)
{
	struct osc_job j;
	struct osc_rank_runs runs;
	struct osc_rank_split s;
	struct osc_error err;

	job_init(&j, 2);
	add_rank(&j, 5, 100, 40, 20, "a", 50, 60);
	add_rank(&j, 7, 100, 40, 30, "a", 25, 70);
	cr_assert_eq(osc_rank_runs_parse(&j, NULL, &runs, &err), OSC_OK);
	osc_rank_split(&j, &runs, OSC_LEVEL_OP, &s);
	cr_assert_eq(s.nr, 2);
	cr_expect_eq(s.rows[1].index, 1);
	cr_expect_float_eq(s.rows[1].self_pct, 100, 1e-9, "of its own rank's host busy time");
	cr_expect_float_eq(s.rows[0].dev_pct, 100, 1e-9);
	osc_rank_split_release(&s);
	osc_rank_runs_release(&runs);
	/* a selection beyond a rank's runs names the rank's file */
	cr_expect_eq(osc_rank_runs_parse(&j, "3", &runs, &err), OSC_RANGE);
	cr_expect_str_eq(err.subject, "r5.json");
	osc_job_release(&j);
}

/* Three summaries x, y, z; x's rank from its file name, the others' unknown. */
static void three(struct osc_summary s[3], int64_t x_rank)
{
	for (int i = 0; i < 3; i++) {
		osc_summary_init(&s[i]);
		s[i].path = strdup(i == 0 ? "x" : i == 1 ? "y" : "z");
	}
	s[0].rank = (struct osc_rank){ .source = OSC_RANK_FILE_NAME, .rank = x_rank };
}

static void release_three(struct osc_summary s[3])
{
	for (int i = 0; i < 3; i++)
		osc_summary_release(&s[i]);
}

/* The index of info's column named title. */
static size_t info_column(const char *title)
{
	size_t n;
	const struct osc_column *c = osc_job_info_columns(&n);

	for (size_t i = 0; i < n; i++)
		if (!strcmp(c[i].title, title))
			return i;
	cr_assert_fail("no column %s", title);
	return n;
}

Test(ranks, info_covers_nested_runs_once)
{
	struct osc_job j;
	char buf[128];
	/* NVTX-like runs: [1000, 1100) holds [1050, 1120)'s start; [2000, 2010) alone */
	const struct osc_sum_run extra[] = { { .ts = 1050, .wall = 70 }, { .ts = 2000, .wall = 10 } };

	job_init(&j, 2);
	add_rank(&j, 0, 100, 40, 20, "aten::mm", 60, 50);
	j.ranks[0].runs[0].ts = 1000;
	for (size_t i = 0; i < 2; i++)
		osc_summary_add_run(&j.ranks[0], &extra[i]);
	add_rank(&j, 2, 100, 40, 20, "aten::mm", 60, 50);
	j.ranks[1].rank.world_size = 8;
	/* the union: 1000 .. 1120 and 2000 .. 2010, 130 ns; not 180 */
	cr_assert_str_eq(osc_job_info_cell(&j, 0, info_column("runs_wall_us"), buf, sizeof(buf)),
			 "0.130");
	cr_assert_str_eq(osc_job_info_cell(&j, 0, info_column("runs"), buf, sizeof(buf)), "3");
	cr_assert_str_eq(osc_job_world_text(&j, buf, sizeof(buf)),
			 "2 of world size 4; world sizes differ: 4 (1 rank), 8 (1 rank)");
	j.ranks[1].rank.world_size = 4;
	cr_assert_str_eq(osc_job_world_text(&j, buf, sizeof(buf)), "2 of world size 4; missing 1, 3");
	osc_job_release(&j);
}

Test(ranks, order_by_source_and_duplicates)
{
	struct osc_summary s[3];
	struct osc_error err;

	three(s, 2); /* y and z take their places among the inputs, 1 and 2: z is x's rank */
	cr_expect_eq(osc_job_order(s, 3, &err), OSC_USAGE);
	cr_expect(strstr(err.message, "rank 2"));
	cr_expect(strstr(err.message, "one trace per rank"));
	release_three(s);
	three(s, 9);
	cr_expect_eq(osc_job_order(s, 3, &err), OSC_OK);
	cr_expect_str_eq(s[0].path, "y");
	cr_expect_eq(s[0].rank.rank, 1);
	cr_expect_eq(s[0].rank.source, OSC_RANK_INPUT_ORDER);
	cr_expect_str_eq(s[1].path, "z");
	cr_expect_str_eq(s[2].path, "x");
	cr_expect_eq(s[2].rank.source, OSC_RANK_FILE_NAME);
	release_three(s);
}

Test(ranks, expand_a_directory_in_natural_order)
{
	char dir[] = "/tmp/opscope-job-XXXXXX", path[256];
	const char *names[] = { "rank10.json", "rank2.json.gz", "rank1.json", "notes.txt",
				".hidden.json", "s.csv" };
	const char *in[1];
	char **paths;
	size_t nr;
	struct osc_error err;

	cr_assert(mkdtemp(dir));
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		FILE *f;

		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		f = fopen(path, "w");
		fputs("{}", f);
		fclose(f);
	}
	snprintf(path, sizeof(path), "%s/sub.json", dir);
	mkdir(path, 0700); /* a directory named like a trace is no input */
	in[0] = dir;
	cr_assert_eq(osc_job_expand(in, 1, &paths, &nr, &err), OSC_OK);
	cr_assert_eq(nr, 4);
	cr_expect(strstr(paths[0], "/rank1.json"));
	cr_expect(strstr(paths[1], "/rank2.json.gz"));
	cr_expect(strstr(paths[2], "/rank10.json"));
	cr_expect(strstr(paths[3], "/s.csv"));
	for (size_t i = 0; i < nr; i++) {
		unlink(paths[i]);
		free(paths[i]);
	}
	free(paths);
	snprintf(path, sizeof(path), "%s/notes.txt", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/.hidden.json", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/sub.json", dir);
	rmdir(path);
	cr_expect_eq(osc_job_expand(in, 1, &paths, &nr, &err), OSC_EMPTY, "nothing left");
	cr_expect_str_eq(err.subject, dir);
	rmdir(dir);
}
