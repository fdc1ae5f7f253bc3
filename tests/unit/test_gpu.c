/*
 * test_gpu.c - the GPU breakdown (gpu.h) on a hand-made trace, every figure
 * worked out by hand below. Times in ns; the kernel-wait threshold is 30.
 *
 *   run [0,1000), host op "op" [0,1000) on thread 0 (it launches everything)
 *   stream 1: k1 [100,200) launched at 50, k2 [300,400) at 250,
 *             k3 [410,500) at 260, k4 [600,650) at 270
 *   stream 2: ncclAllReduce [150,350) at 60, a memcpy [700,800) at 280
 *
 * stream 1: busy 340; idle 660 = leading 100 (other) + [200,300) host wait
 *   100 (k2 launched at 250, after k1 ended) + [400,410) kernel wait 10
 *   + [500,600) other 100 (k4 launched at 270, before k3 ended) + trailing
 *   [650,1000) 350 (other): other 550.
 * stream 2: busy 300; idle 700, all other (150 + 350 + 200).
 * device: busy = [100,400) + [410,500) + [600,650) + [700,800) = 540, idle
 *   460 = other 100 + kernel 10 + other 100 + other 50 + other 200;
 *   compute 340, comm 200, memcpy 100; comm ∩ compute = [150,200) +
 *   [300,350) = 100, so exposed comm 100 (50 % overlap); exposed memcpy 100.
 * gaps of the device, longest first: [500,600) before k4, [650,700) before
 *   the memcpy, [400,410) before k3; "op" was running at each.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "opscope/analysis/gpu.h"
#include "tree_fixture.h"

static const struct tx_event ev[] = {
	TX("ProfilerStep#1", RUN, 0, 0, 1000, 0, 0, NULL),
	TX("op", HOST_OP, 0, 0, 1000, 0, 0, NULL),
	TX("cudaLaunchKernel", RUNTIME, 0, 50, 1, 1, 0, NULL),
	TX("cudaLaunchKernel", RUNTIME, 0, 60, 1, 5, 0, NULL),
	TX("cudaLaunchKernel", RUNTIME, 0, 250, 1, 2, 0, NULL),
	TX("cudaLaunchKernel", RUNTIME, 0, 260, 1, 3, 0, NULL),
	TX("cudaLaunchKernel", RUNTIME, 0, 270, 1, 4, 0, NULL),
	TX("cudaMemcpyAsync", RUNTIME, 0, 280, 1, 6, 0, NULL),
	TX("k1", KERNEL, 1, 100, 100, 1, 0, NULL),
	TX("k2", KERNEL, 1, 300, 100, 2, 0, NULL),
	TX("k3", KERNEL, 1, 410, 90, 3, 0, NULL),
	TX("k4", KERNEL, 1, 600, 50, 4, 0, NULL),
	TX("ncclAllReduce", KERNEL, 2, 150, 200, 5, 0, NULL),
	TX("Memcpy HtoD", MEMCPY, 2, 700, 100, 6, 0, NULL),
};

struct fixture {
	struct osc_trace t;
	struct osc_runs runs;
	struct osc_gpu g;
};

static void breakdown(struct fixture *f, size_t gaps)
{
	struct osc_gpu_query q = { .runs = &f->runs, .kernel_wait = 30, .nr_gaps = gaps };

	tx_build(&f->t, OSC_FORMAT_KINETO, ev, FX_LEN(ev));
	osc_runs_detect(&f->t, &f->runs);
	osc_gpu_breakdown(&f->t, &q, &f->g);
}

static void release(struct fixture *f)
{
	osc_gpu_release(&f->g);
	osc_runs_release(&f->runs);
	osc_trace_release(&f->t);
}

/* The row of the run (or the selection: OSC_NONE) for thread tid ("all": the device). */
static const struct osc_gpu_row *row(const struct fixture *f, uint32_t run, const char *tid)
{
	for (size_t i = 0; i < f->g.nr; i++) {
		const struct osc_gpu_row *r = &f->g.rows[i];
		const char *name = r->thread == OSC_NONE ? "all"
				   : osc_trace_str(&f->t, f->t.threads[r->thread].tid);

		if (r->run == run && !strcmp(name, tid))
			return r;
	}
	cr_assert_fail("no row for run %u, stream %s", run, tid);
	return NULL;
}

Test(gpu, device_and_streams)
{
	struct fixture f;
	const struct osc_gpu_row *d, *s1, *s2;

	breakdown(&f, 0);
	cr_assert_eq(f.g.nr, 6, "run: device + 2 streams; selection: the same");
	d = row(&f, 0, "all");
	cr_expect_eq(d->wall, 1000);
	cr_expect_eq(d->busy, 540);
	cr_expect_eq(d->cat[OSC_GPU_COMPUTE], 340);
	cr_expect_eq(d->cat[OSC_GPU_COMM], 200);
	cr_expect_eq(d->cat[OSC_GPU_MEMCPY], 100);
	cr_expect_eq(d->cat[OSC_GPU_MEMSET], 0);
	cr_expect_eq(d->overlap, 100);
	cr_expect_eq(d->exposed_comm, 100);
	cr_expect_eq(d->exposed_memcpy, 100);
	cr_expect_eq(d->wait[OSC_GPU_WAIT_HOST], 0);
	cr_expect_eq(d->wait[OSC_GPU_WAIT_KERNEL], 10);
	cr_expect_eq(d->wait[OSC_GPU_WAIT_OTHER], 450);
	cr_expect_eq(d->events, 6);
	s1 = row(&f, 0, "1");
	cr_expect_eq(s1->busy, 340);
	cr_expect_eq(s1->wait[OSC_GPU_WAIT_HOST], 100);
	cr_expect_eq(s1->wait[OSC_GPU_WAIT_KERNEL], 10);
	cr_expect_eq(s1->wait[OSC_GPU_WAIT_OTHER], 550);
	cr_expect_eq(s1->events, 4);
	s2 = row(&f, 0, "2");
	cr_expect_eq(s2->busy, 300);
	cr_expect_eq(s2->wait[OSC_GPU_WAIT_OTHER], 700);
	cr_expect_eq(s2->cat[OSC_GPU_COMM], 200);
	cr_expect_eq(row(&f, OSC_NONE, "all")->busy, 540, "one run: the selection is that run");
	release(&f);
}

Test(gpu, longest_gaps_with_the_host_op)
{
	struct fixture f;
	static const struct { int64_t ts, dur; enum osc_gpu_wait why; const char *next; } want[] = {
		{ 500, 100, OSC_GPU_WAIT_OTHER, "k4" },
		{ 650, 50, OSC_GPU_WAIT_OTHER, "Memcpy HtoD" },
		{ 400, 10, OSC_GPU_WAIT_KERNEL, "k3" },
	};

	breakdown(&f, 5);
	cr_assert_eq(f.g.nr_gaps, 3, "edges are not listed");
	for (size_t i = 0; i < 3; i++) {
		const struct osc_gpu_gap *g = &f.g.gaps[i];

		cr_expect_eq(g->ts, want[i].ts, "gap %zu", i);
		cr_expect_eq(g->dur, want[i].dur, "gap %zu", i);
		cr_expect_eq(g->why, want[i].why, "gap %zu", i);
		cr_expect_str_eq(osc_trace_str(&f.t, f.t.events[g->next].name), want[i].next);
		cr_assert_neq(g->op, OSC_NONE);
		cr_expect_str_eq(osc_trace_str(&f.t, f.t.events[g->op].name), "op");
	}
	release(&f);
}

/*
 * Launch statistics, short below 95 ns: k3 (90) and k4 (50) are short, of
 * five kernels (the memcpy is no kernel); k3 started at 410, its launch at
 * 260 for 1 ns: delay 150, call 1, queue 410 - max(261, k2's end 400) = 10.
 */
Test(gpu, launch_statistics)
{
	struct fixture f;
	struct osc_launches l;
	const struct osc_launch_row *k3 = NULL;
	struct osc_launch_query q = { .runs = &f.runs, .short_ns = 95 };

	breakdown(&f, 0);
	osc_gpu_launches(&f.t, &q, &l);
	cr_assert_eq(l.nr, 5);
	cr_expect_eq(l.count, 5);
	cr_expect_eq(l.nr_short, 2);
	cr_expect_eq(l.short_total, 140);
	cr_expect_eq(l.total, 540);
	cr_expect_str_eq(osc_trace_str(&f.t, l.rows[0].name), "ncclAllReduce", "by total");
	for (size_t i = 0; i < l.nr; i++)
		if (!strcmp(osc_trace_str(&f.t, l.rows[i].name), "k3"))
			k3 = &l.rows[i];
	cr_assert_not_null(k3);
	cr_expect_eq(k3->nr_short, 1);
	cr_expect_float_eq(k3->delay[0], 150, 1e-9);
	cr_expect_float_eq(k3->call[0], 1, 1e-9);
	cr_expect_float_eq(k3->queue[0], 10, 1e-9);
	osc_launches_release(&l);
	release(&f);
}

/* Per op: "op" launched all five kernels, so one row holds them all. */
Test(gpu, launch_statistics_per_op)
{
	struct fixture f;
	struct osc_launches l;
	struct osc_launch_query q = { .runs = &f.runs, .short_ns = 95, .per_op = true };

	breakdown(&f, 0);
	osc_gpu_launches(&f.t, &q, &l);
	cr_assert_eq(l.nr, 1);
	cr_expect_str_eq(osc_trace_str(&f.t, l.rows[0].name), "op");
	cr_expect_eq(l.rows[0].count, 5);
	cr_expect_eq(l.rows[0].nr_short, 2);
	cr_expect_eq(l.rows[0].total, 540);
	cr_expect_eq(l.rows[0].nr_launched, 5);
	osc_launches_release(&l);
	release(&f);
}

/* Short only: k3 (90 ns) then k4 (50 ns); the totals still count all five kernels. */
Test(gpu, launch_statistics_short_only)
{
	struct fixture f;
	struct osc_launches l;
	struct osc_launch_query q = { .runs = &f.runs, .short_ns = 95, .short_only = true };

	breakdown(&f, 0);
	osc_gpu_launches(&f.t, &q, &l);
	cr_assert_eq(l.nr, 2);
	cr_expect_str_eq(osc_trace_str(&f.t, l.rows[0].name), "k3");
	cr_expect_str_eq(osc_trace_str(&f.t, l.rows[1].name), "k4");
	cr_expect_eq(l.rows[0].short_total, 90);
	cr_expect_eq(l.count, 5);
	cr_expect_eq(l.total, 540);
	osc_launches_release(&l);
	release(&f);
}

/* The one copy is a "Memcpy HtoD" [700,800): 100 ns host to device, nothing else. */
Test(gpu, memcpy_by_direction)
{
	struct fixture f;
	const struct osc_gpu_row *d;

	breakdown(&f, 0);
	d = row(&f, 0, "all");
	cr_expect_eq(d->copy[OSC_GPU_COPY_HTOD], 100);
	cr_expect_eq(d->copy[OSC_GPU_COPY_DTOH], 0);
	cr_expect_eq(d->copy[OSC_GPU_COPY_DTOD], 0);
	cr_expect_eq(d->copy[OSC_GPU_COPY_OTHER], 0);
	cr_expect_eq(row(&f, 0, "1")->copy[OSC_GPU_COPY_HTOD], 0, "stream 1 copies nothing");
	release(&f);
}
