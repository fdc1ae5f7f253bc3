/* test_correlate.c - device events to launches to host ops, with the method used. */
#include <criterion/criterion.h>

#include "opscope/base/threads.h"
#include "tree_fixture.h"

/* The device link of the first event named name. */
static const struct osc_dev_link *dev(const struct tx_analysis *a, const char *name)
{
	uint32_t d = a->corr.dev_of[fx_find(&a->t, name)];

	cr_assert_neq(d, OSC_NONE, "'%s' is not a device event", name);
	return &a->corr.devs[d];
}

/* Name of the host op a device event was given, "-" for none. */
static const char *host_of(const struct tx_analysis *a, const char *name)
{
	uint32_t n = dev(a, name)->node;

	return n == OSC_NONE ? "-" : osc_trace_str(&a->t, a->t.events[a->c.nodes[n].event].name);
}

static void expect_link(const struct tx_analysis *a, const char *name, const char *host,
			enum osc_link method, enum osc_link host_method)
{
	const struct osc_dev_link *d = dev(a, name);

	cr_expect_str_eq(host_of(a, name), host, "%s: host %s, want %s", name, host_of(a, name),
			 host);
	cr_expect_eq(d->method, method, "%s: method %s, want %s", name,
		     osc_link_name(d->method), osc_link_name(method));
	cr_expect_eq(d->host_method, host_method, "%s: host method %s, want %s", name,
		     osc_link_name(d->host_method), osc_link_name(host_method));
}

/*
 * Kineto, thread 0 host, thread 1 stream:
 *   conv [0,100) ext 7
 *   ├─ conv_impl [5,95) ext 8
 *   │     cudaLaunchKernel [10,20) corr 1 ext 7   -> conv by External id,
 *   │                                               not the innermost window
 *   │     cudaLaunchKernel [30,40) corr 2 (no ext) -> conv_impl by window
 *   relu [200,250)
 *         cudaLaunchKernel [210,215) corr 3 ext 99 (no op has 99) -> relu by window
 *   stream: k1 [50,60) corr 1, k2 [60,70) corr 2, k3 [300,310) corr 3,
 *           k4 [400,410) corr 42 (no launch), m1 memcpy [500,501) corr 1? no: corr 4
 *   cudaMemcpyAsync [450,455) corr 4 outside every op
 */
static const struct tx_event kineto[] = {
	TX("conv", HOST_OP, 0, 0, 100, 0, 7, NULL),
	TX("conv_impl", HOST_OP, 0, 5, 90, 0, 8, NULL),
	TX("launch1", RUNTIME, 0, 10, 10, 1, 7, NULL),
	TX("launch2", RUNTIME, 0, 30, 10, 2, 0, NULL),
	TX("relu", HOST_OP, 0, 200, 50, 0, 0, NULL),
	TX("launch3", RUNTIME, 0, 210, 5, 3, 99, NULL),
	TX("memcpy_call", RUNTIME, 0, 450, 5, 4, 0, NULL),
	TX("k1", KERNEL, 1, 50, 10, 1, 0, NULL),
	TX("k2", KERNEL, 1, 60, 10, 2, 0, NULL),
	TX("k3", KERNEL, 1, 300, 10, 3, 0, NULL),
	TX("k4", KERNEL, 1, 400, 10, 42, 0, NULL),
	TX("m1", MEMCPY, 1, 500, 1, 4, 0, NULL),
};

Test(correlate, kineto_correlation_external_id_window)
{
	struct tx_analysis a;

	tx_analyse(&a, OSC_FORMAT_KINETO, kineto, FX_LEN(kineto));
	cr_assert_eq(a.corr.nr_devs, 5);
	cr_assert_eq(a.corr.nr_launches, 4);
	expect_link(&a, "k1", "conv", OSC_LINK_CORRELATION, OSC_LINK_EXTERNAL_ID);
	expect_link(&a, "k2", "conv_impl", OSC_LINK_CORRELATION, OSC_LINK_WINDOW);
	expect_link(&a, "k3", "relu", OSC_LINK_CORRELATION, OSC_LINK_WINDOW);
	expect_link(&a, "k4", "-", OSC_LINK_NONE, OSC_LINK_NONE);
	expect_link(&a, "m1", "-", OSC_LINK_CORRELATION, OSC_LINK_NONE);
	cr_expect_eq(a.corr.by_method[OSC_LINK_CORRELATION], 4);
	cr_expect_eq(a.corr.by_method[OSC_LINK_NONE], 1);
	cr_expect_eq(a.corr.no_host, 1, "m1's launch is outside every op");
	/* k4's id 42 is above every launch's (1 to 4); m1's launch is in no op */
	cr_expect_eq(dev(&a, "k1")->unattributed, OSC_UNATTRIBUTED_NONE);
	cr_expect_eq(dev(&a, "k4")->unattributed, OSC_UNATTRIBUTED_NOT_IN_TRACE);
	cr_expect_eq(dev(&a, "m1")->unattributed, OSC_UNATTRIBUTED_OUTSIDE_OPS);
	cr_expect_eq(a.corr.by_unattributed[OSC_UNATTRIBUTED_NONE], 3);
	cr_expect_eq(a.corr.by_unattributed[OSC_UNATTRIBUTED_NOT_IN_TRACE], 1);
	cr_expect_eq(a.corr.by_unattributed[OSC_UNATTRIBUTED_OUTSIDE_OPS], 1);
	/* delay: kernel start - launch start; queue: after the launch ended and the stream freed */
	cr_expect_eq(dev(&a, "k1")->delay, 40);
	cr_expect_eq(dev(&a, "k1")->queue, 30);
	cr_expect_eq(dev(&a, "k2")->delay, 30);
	cr_expect_eq(dev(&a, "k2")->queue, 0, "k2 waited for k1, not in the queue");
	cr_expect_eq(dev(&a, "k4")->delay, 0);
	tx_release(&a);
}

/*
 * The merged tree carries the device time: own and subtree.
 *   conv        dev 10 (k1)  dev_total 20   launch 10, launch_total 20
 *   └─ conv_impl dev 10 (k2)
 *   relu        dev 10 (k3)
 *   <unattributed>  k4 + m1 = 11, and the memcpy call's 5
 */
/*
 * Why a device event has no op (unattributed.h): ids below every launch's
 * (the launches have 100 and 103) were launched before the trace, ids among
 * them that no launch has are not in the trace, no id at all is no link.
 */
Test(correlate, unattributed_reasons)
{
	static const struct tx_event ev[] = {
		TX("early", KERNEL, 1, 0, 5, 7, 0, NULL),
		TX("earlier", KERNEL, 1, 5, 5, 99, 0, NULL),
		TX("op", HOST_OP, 0, 10, 100, 0, 0, NULL),
		TX("launch", RUNTIME, 0, 20, 5, 100, 0, NULL),
		TX("launch_late", RUNTIME, 0, 30, 5, 103, 0, NULL),
		TX("k", KERNEL, 1, 40, 5, 100, 0, NULL),
		TX("lost", KERNEL, 1, 50, 5, 101, 0, NULL),
		TX("bare", KERNEL, 1, 60, 5, 0, 0, NULL),
		TX("late", KERNEL, 1, 70, 5, 103, 0, NULL),
	};
	static const struct {
		const char *name;
		enum osc_unattributed why;
	} want[] = {
		{ "early", OSC_UNATTRIBUTED_BEFORE_TRACE },
		{ "earlier", OSC_UNATTRIBUTED_BEFORE_TRACE },
		{ "k", OSC_UNATTRIBUTED_NONE },
		{ "lost", OSC_UNATTRIBUTED_NOT_IN_TRACE },
		{ "bare", OSC_UNATTRIBUTED_NO_LINK },
		{ "late", OSC_UNATTRIBUTED_NONE },
	};
	struct tx_analysis a;

	tx_analyse(&a, OSC_FORMAT_KINETO, ev, FX_LEN(ev));
	for (size_t i = 0; i < FX_LEN(want); i++) {
		enum osc_unattributed got = dev(&a, want[i].name)->unattributed;

		cr_expect_eq(got, want[i].why, "%s: %s, want %s", want[i].name,
			     osc_unattributed_name(got), osc_unattributed_name(want[i].why));
	}
	cr_expect_eq(a.corr.by_unattributed[OSC_UNATTRIBUTED_BEFORE_TRACE], 2);
	cr_expect_eq(a.corr.by_unattributed[OSC_UNATTRIBUTED_NOT_IN_TRACE], 1);
	cr_expect_eq(a.corr.by_unattributed[OSC_UNATTRIBUTED_NO_LINK], 1);
	cr_expect_eq(a.corr.by_unattributed[OSC_UNATTRIBUTED_NONE], 2);
	cr_expect_str_eq(osc_unattributed_name(OSC_UNATTRIBUTED_BEFORE_TRACE),
			 "launched before the trace");
	cr_expect_str_eq(osc_unattributed_name(OSC_UNATTRIBUTED_COUNT), "unknown");
	tx_release(&a);
}

Test(correlate, merged_device_time)
{
	struct tx_analysis a;
	uint32_t conv, impl, un;

	tx_analyse(&a, OSC_FORMAT_KINETO, kineto, FX_LEN(kineto));
	conv = tx_mnode(&a, "conv");
	impl = tx_mnode(&a, "conv$$conv_impl");
	un = a.m.unattributed;
	cr_assert_neq(un, OSC_NONE);
	cr_expect_eq(un, a.m.nr - 1, "the synthetic root comes last");
	cr_expect_eq(a.m.nodes[conv].dev, 10);
	cr_expect_eq(a.m.nodes[conv].dev_total, 20);
	cr_expect_eq(a.m.nodes[conv].kernels_total, 2);
	cr_expect_eq(a.m.nodes[conv].launch, 10);
	cr_expect_eq(a.m.nodes[conv].launch_total, 20);
	cr_expect_eq(a.m.nodes[impl].dev, 10);
	cr_expect_eq(a.m.nodes[un].dev, 11);
	cr_expect_eq(a.m.nodes[un].kernels, 2);
	cr_expect_eq(a.m.nodes[un].launch, 5);
	cr_expect_str_eq(osc_mnode_name(&a.m, &a.t, un), "<unattributed>");
	cr_expect_eq(a.m.dev_first[un + 1] - a.m.dev_first[un], 2);
	tx_release(&a);
}

/*
 * Of a node's runtime calls, launch_work sums those that started device work:
 *   conv [0,100)
 *      cudaLaunchKernel [10,20) corr 1 -> k1
 *      cudaDeviceSynchronize [30,50) corr 2, nothing on the device
 */
static const struct tx_event sync_call[] = {
	TX("conv", HOST_OP, 0, 0, 100, 0, 0, NULL),
	TX("launch", RUNTIME, 0, 10, 10, 1, 0, NULL),
	TX("sync", RUNTIME, 0, 30, 20, 2, 0, NULL),
	TX("k1", KERNEL, 1, 50, 10, 1, 0, NULL),
};

Test(correlate, merged_launch_time_that_started_device_work)
{
	struct tx_analysis a;
	uint32_t conv;

	tx_analyse(&a, OSC_FORMAT_KINETO, sync_call, FX_LEN(sync_call));
	conv = tx_mnode(&a, "conv");
	cr_expect_eq(a.m.nodes[conv].launches, 2);
	cr_expect_eq(a.m.nodes[conv].launch, 30);
	cr_expect_eq(a.m.nodes[conv].launch_work, 10, "the synchronize started nothing");
	tx_release(&a);
}

/*
 * A graph replay: one cudaGraphLaunch (corr 5) starts three kernels; a flow
 * links a kernel without correlation id:
 *   step [0,100)
 *      cudaGraphLaunch [10,20) corr 5
 *      cudaLaunchKernel [30,40)           flow s at 31 id 77
 *   stream: g1 [50,52) g2 [52,54) g3 [54,56) corr 5; f1 [60,61) no corr, flow f id 77
 */
Test(correlate, graph_replay_and_flow)
{
	static const struct tx_event ev[] = {
		TX("step", HOST_OP, 0, 0, 100, 0, 0, NULL),
		TX("cudaGraphLaunch", RUNTIME, 0, 10, 10, 5, 0, NULL),
		TX("cudaLaunchKernel", RUNTIME, 0, 30, 10, 0, 0, NULL),
		TS(0, 31, 77),
		TX("g1", KERNEL, 1, 50, 2, 5, 0, NULL),
		TX("g2", KERNEL, 1, 52, 2, 5, 0, NULL),
		TX("g3", KERNEL, 1, 54, 2, 5, 0, NULL),
		TX("f1", KERNEL, 1, 60, 1, 0, 0, NULL),
		TF(1, 60, 77),
	};
	struct tx_analysis a;

	tx_analyse(&a, OSC_FORMAT_KINETO, ev, FX_LEN(ev));
	expect_link(&a, "g1", "step", OSC_LINK_GRAPH, OSC_LINK_WINDOW);
	expect_link(&a, "g2", "step", OSC_LINK_GRAPH, OSC_LINK_WINDOW);
	expect_link(&a, "g3", "step", OSC_LINK_GRAPH, OSC_LINK_WINDOW);
	expect_link(&a, "f1", "step", OSC_LINK_FLOW, OSC_LINK_WINDOW);
	cr_expect_eq(a.corr.launches[dev(&a, "g1")->launch].nr_device, 3);
	cr_expect_eq(a.corr.by_method[OSC_LINK_GRAPH], 3);
	cr_expect_eq(a.corr.by_method[OSC_LINK_FLOW], 1);
	cr_expect_eq(dev(&a, "g3")->delay, 44);
	tx_release(&a);
}

/*
 * ORT: Kernel events name their node's op_name; the node whose window is
 * nearest wins (never the last in the file); correlation_id first:
 *   Conv_0_kernel_time [0,50) op Conv      Conv_1_kernel_time [100,150) op Conv
 *   Relu_0_kernel_time [160,170) op Relu corr 9
 *   kA [120,125) Conv -> Conv_1 (inside)   kB [60,62) Conv -> Conv_0 (gap 10 < 40)
 *   kC [300,301) Relu corr 9 -> Relu_0 by correlation
 *   kD [90,91) Gemm -> unattributed
 */
Test(correlate, ort_op_name_nearest)
{
	static const struct tx_event ev[] = {
		TX("Conv_1_kernel_time", HOST_OP, 0, 100, 50, 0, 0, "Conv"),
		TX("Conv_0_kernel_time", HOST_OP, 0, 0, 50, 0, 0, "Conv"),
		TX("Relu_0_kernel_time", HOST_OP, 0, 160, 10, 9, 0, "Relu"),
		TX("kA", KERNEL, 1, 120, 5, 0, 0, "Conv"),
		TX("kB", KERNEL, 1, 60, 2, 0, 0, "Conv"),
		TX("kC", KERNEL, 1, 300, 1, 9, 0, "Relu"),
		TX("kD", KERNEL, 1, 90, 1, 0, 0, "Gemm"),
	};
	struct tx_analysis a;

	tx_analyse(&a, OSC_FORMAT_ORT, ev, FX_LEN(ev));
	expect_link(&a, "kA", "Conv_1_kernel_time", OSC_LINK_OP_NAME, OSC_LINK_NONE);
	expect_link(&a, "kB", "Conv_0_kernel_time", OSC_LINK_OP_NAME, OSC_LINK_NONE);
	expect_link(&a, "kC", "Relu_0_kernel_time", OSC_LINK_CORRELATION, OSC_LINK_NONE);
	expect_link(&a, "kD", "-", OSC_LINK_NONE, OSC_LINK_NONE);
	tx_release(&a);
}

/*
 * ORT's parallel executor runs nodes of one op_name at once on several
 * threads. The nearest window is the one holding the kernel, not the last to
 * start before it:
 *   conv_a [0,50) tid 1        conv_b [10,20) tid 3      (op Conv)
 *   k [30,31) Conv -> conv_a (holds 30), not conv_b (ended 10 before)
 */
Test(correlate, ort_op_name_overlapping_nodes)
{
	static const struct tx_event ev[] = {
		TX("conv_a", HOST_OP, 1, 0, 50, 0, 0, "Conv"),
		TX("conv_b", HOST_OP, 3, 10, 10, 0, 0, "Conv"),
		TX("k", KERNEL, 2, 30, 1, 0, 0, "Conv"),
	};
	struct tx_analysis a;

	tx_analyse(&a, OSC_FORMAT_ORT, ev, FX_LEN(ev));
	expect_link(&a, "k", "conv_a", OSC_LINK_OP_NAME, OSC_LINK_NONE);
	tx_release(&a);
}

/*
 * Ties go to the earlier node in model order (here file order):
 *   first [60,60)  second [60,60)   (op Relu, zero length: they hold nothing)
 *   k_after [70,71) -> first (both 10 away)
 *   k_on [60,61)    -> first (both 0 away)
 */
Test(correlate, ort_op_name_tie_zero_length)
{
	static const struct tx_event ev[] = {
		TX("first", HOST_OP, 0, 60, 0, 0, 0, "Relu"),
		TX("second", HOST_OP, 0, 60, 0, 0, 0, "Relu"),
		TX("k_after", KERNEL, 1, 70, 1, 0, 0, "Relu"),
		TX("k_on", KERNEL, 1, 60, 1, 0, 0, "Relu"),
	};
	struct tx_analysis a;

	tx_analyse(&a, OSC_FORMAT_ORT, ev, FX_LEN(ev));
	expect_link(&a, "k_after", "first", OSC_LINK_OP_NAME, OSC_LINK_NONE);
	expect_link(&a, "k_on", "first", OSC_LINK_OP_NAME, OSC_LINK_NONE);
	tx_release(&a);
}

/*
 * Three nodes at the same distance, two before the kernel and one after,
 * listed in reverse: the earliest in model order wins. A node ending at the
 * kernel's start is 0 away, like the one starting there:
 *   add_a [0,10) tid 0   add_b [5,10) tid 1   add_c [30,40) tid 0   (op Add)
 *   k_add [20,21) -> add_a (10 from each)
 *   mul_p [100,120)  mul_q [120,140)                                (op Mul)
 *   k_mul [120,121) -> mul_p (0 from each)
 */
Test(correlate, ort_op_name_three_way_tie)
{
	static const struct tx_event ev[] = {
		TX("add_c", HOST_OP, 0, 30, 10, 0, 0, "Add"),
		TX("add_b", HOST_OP, 1, 5, 5, 0, 0, "Add"),
		TX("add_a", HOST_OP, 0, 0, 10, 0, 0, "Add"),
		TX("mul_q", HOST_OP, 0, 120, 20, 0, 0, "Mul"),
		TX("mul_p", HOST_OP, 0, 100, 20, 0, 0, "Mul"),
		TX("k_add", KERNEL, 2, 20, 1, 0, 0, "Add"),
		TX("k_mul", KERNEL, 2, 120, 1, 0, 0, "Mul"),
	};
	struct tx_analysis a;

	tx_analyse(&a, OSC_FORMAT_ORT, ev, FX_LEN(ev));
	expect_link(&a, "k_add", "add_a", OSC_LINK_OP_NAME, OSC_LINK_NONE);
	expect_link(&a, "k_mul", "mul_p", OSC_LINK_OP_NAME, OSC_LINK_NONE);
	tx_release(&a);
}

/*
 * A long node holds the kernel behind several short ones that start later
 * and end before it, and one that starts after it:
 *   long [0,1000) tid 0
 *   s1 [100,110) s2 [200,210) s3 [300,310) s4 [600,610) tid 1     (op Gemm)
 *   k_mid [500,501) -> long (0; s4 is 100 away, s3 190)
 *   k_end [999,1000) -> long
 *   k_out [1005,1006) -> long (5 after its end; s4 395)
 */
Test(correlate, ort_op_name_long_node_behind_short_ones)
{
	static const struct tx_event ev[] = {
		TX("long", HOST_OP, 0, 0, 1000, 0, 0, "Gemm"),
		TX("s1", HOST_OP, 1, 100, 10, 0, 0, "Gemm"),
		TX("s2", HOST_OP, 1, 200, 10, 0, 0, "Gemm"),
		TX("s3", HOST_OP, 1, 300, 10, 0, 0, "Gemm"),
		TX("s4", HOST_OP, 1, 600, 10, 0, 0, "Gemm"),
		TX("k_mid", KERNEL, 2, 500, 1, 0, 0, "Gemm"),
		TX("k_end", KERNEL, 2, 999, 1, 0, 0, "Gemm"),
		TX("k_out", KERNEL, 2, 1005, 1, 0, 0, "Gemm"),
	};
	struct tx_analysis a;

	tx_analyse(&a, OSC_FORMAT_ORT, ev, FX_LEN(ev));
	expect_link(&a, "k_mid", "long", OSC_LINK_OP_NAME, OSC_LINK_NONE);
	expect_link(&a, "k_end", "long", OSC_LINK_OP_NAME, OSC_LINK_NONE);
	expect_link(&a, "k_out", "long", OSC_LINK_OP_NAME, OSC_LINK_NONE);
	tx_release(&a);
}

/*
 * A kernel before every node of its op_name goes to the first to start, the
 * longer of two equal starts (model order); a node of another op_name that
 * holds it does not count:
 *   any [0,1000) (op Add)   g_short [100,110)  g_long [100,200)  (op Gemm)
 *   k [50,51) Gemm -> g_long;  k_none [50,51) MatMul -> none
 */
Test(correlate, ort_op_name_kernel_before_every_node)
{
	static const struct tx_event ev[] = {
		TX("any", HOST_OP, 0, 0, 1000, 0, 0, "Add"),
		TX("g_short", HOST_OP, 1, 100, 10, 0, 0, "Gemm"),
		TX("g_long", HOST_OP, 2, 100, 100, 0, 0, "Gemm"),
		TX("k", KERNEL, 3, 50, 1, 0, 0, "Gemm"),
		TX("k_none", KERNEL, 3, 50, 1, 0, 0, "MatMul"),
	};
	struct tx_analysis a;

	tx_analyse(&a, OSC_FORMAT_ORT, ev, FX_LEN(ev));
	expect_link(&a, "k", "g_long", OSC_LINK_OP_NAME, OSC_LINK_NONE);
	expect_link(&a, "k_none", "-", OSC_LINK_NONE, OSC_LINK_NONE);
	tx_release(&a);
}

/* OP_NAME by its definition: every node of the op, one by one. */
static uint32_t nearest_by_scan(const struct tx_analysis *a, const struct osc_event *k)
{
	uint32_t best = OSC_NONE;
	int64_t best_d = 0;

	for (uint32_t n = 0; n < a->c.nr; n++) {
		const struct osc_event *e = &a->t.events[a->c.nodes[n].event];
		int64_t d = 0;

		if (osc_trace_op(&a->t, a->c.nodes[n].event) !=
		    osc_trace_op(&a->t, (size_t)(k - a->t.events)))
			continue;
		if (k->ts < e->ts)
			d = e->ts - k->ts;
		else if (k->ts > e->ts + e->dur)
			d = k->ts - (e->ts + e->dur);
		if (best == OSC_NONE || d < best_d) {
			best = n;
			best_d = d;
		}
	}
	return best;
}

/* A number in [0, m) from a 64-bit LCG. */
static int rnd(uint64_t *seed, int m)
{
	*seed = *seed * 6364136223846793005ULL + 1442695040888963407ULL;
	return (int)(*seed >> 33) % m;
}

/*
 * Random ORT traces with many overlaps, equal starts, zero lengths and ties
 * (a few op names, times on a coarse grid): each kernel's node is the one
 * the definition gives.
 */
Test(correlate, ort_op_name_random_against_scan)
{
	static const char *const ops[] = { "Conv", "Relu", "Add" };
	uint64_t seed = 42;
	struct tx_event ev[64];

	for (int round = 0; round < 300; round++) {
		size_t n = 0, nodes = 1 + (size_t)rnd(&seed, 30);
		size_t kernels = 1 + (size_t)rnd(&seed, 20);
		struct tx_analysis a;

		for (; n < nodes + kernels; n++) {
			bool node = n < nodes;
			int thread = node ? rnd(&seed, 4) : 9;
			int64_t ts = node ? 5 * rnd(&seed, 20)
					  : 5 * rnd(&seed, 24) - 10 + rnd(&seed, 2);
			int64_t dur = !node ? 1 : rnd(&seed, 4) ? 5 * rnd(&seed, 12) : 0;
			const char *op = ops[rnd(&seed, (int)FX_LEN(ops))];

			ev[n] = (struct tx_event)TX(node ? "node" : "kernel", HOST_OP, thread, ts,
						    dur, 0, 0, op);
			if (!node)
				ev[n].kind = OSC_KIND_KERNEL;
		}
		tx_analyse(&a, OSC_FORMAT_ORT, ev, n);
		cr_assert_eq(a.corr.nr_devs, kernels);
		for (size_t d = 0; d < a.corr.nr_devs; d++) {
			const struct osc_dev_link *l = &a.corr.devs[d];
			const struct osc_event *k = &a.t.events[l->event];
			uint32_t want = nearest_by_scan(&a, k);
			enum osc_link method = want == OSC_NONE ? OSC_LINK_NONE : OSC_LINK_OP_NAME;

			cr_assert_eq(l->node, want, "round %d: kernel at %lld (%s): %u, want %u",
				     round, (long long)k->ts, osc_trace_str(&a.t, osc_trace_op(&a.t, l->event)),
				     l->node, want);
			cr_assert_eq(l->method, method);
		}
		tx_release(&a);
	}
}

/* Real traces: every device event has exactly one link record, counts add up. */
static void check_real(const char *rel, uint64_t min_graph)
{
	struct tx_analysis a;
	struct osc_error err;
	uint64_t sum = 0, devices = 0, in_tree = 0;

	fx_load(&a.t, rel);
	osc_catsel_parse(&a.host, &a.t, NULL, OSC_CATSEL_HOST_DEFAULT, "host", &err);
	osc_catsel_parse(&a.launch, &a.t, NULL, OSC_CATSEL_LAUNCH_DEFAULT, "launch", &err);
	osc_catsel_parse(&a.device, &a.t, NULL, OSC_CATSEL_DEVICE_DEFAULT, "device", &err);
	osc_calltree_build(&a.t, &a.host, &a.c);
	osc_correlate(&a.t, &a.c, &a.launch, &a.device, &a.corr);
	osc_mtree_build(&a.t, &a.c, &a.corr, NULL, NULL, OSC_STR_NONE, &a.m);
	for (size_t i = 0; i < a.t.nr_events; i++)
		devices += osc_kind_is_device(a.t.events[i].kind) &&
			   a.t.events[i].ph == OSC_PH_COMPLETE;
	cr_expect_eq(a.corr.nr_devs, devices, "%s", rel);
	for (int m = 0; m < OSC_LINK_COUNT; m++)
		sum += a.corr.by_method[m];
	cr_expect_eq(sum, a.corr.nr_devs);
	cr_expect_geq(a.corr.by_method[OSC_LINK_GRAPH], min_graph, "%s", rel);
	for (size_t n = 0; n < a.m.nr; n++)
		if (a.m.nodes[n].parent == OSC_NONE)
			in_tree += a.m.nodes[n].kernels_total;
	cr_expect_eq(in_tree, a.corr.nr_devs, "%s: every device event is in the tree", rel);
	tx_release(&a);
}

Test(correlate, real_kineto)
{
	check_real("samples/kineto-sampled-rank0.json.gz", 0);
}

Test(correlate, real_rocm)
{
	check_real("samples/rocm-torch-compile-triton.json.gz", 0);
}

Test(correlate, real_graph_replay)
{
	check_real("../shared/traces/tracelens/sglang_decode/sglang_Qwen3-8B_decode.json.gz", 500);
}

/*
 * A graph replayed from Python, as vLLM and SGLang do: no cpu_op around the
 * launch, so its kernels would be unattributed; the innermost python frame
 * around it becomes an op and takes them. A frame that launches nothing
 * stays out, and so does one around a launch that an op holds.
 *   forward [0,100)           python            (outer frame: not innermost)
 *   └─ replay [10,40)         python            <- becomes an op
 *      └─ cudaGraphLaunch [20,30) corr 7 -> k1 [50,60), k2 [60,75)
 *   log [100,110)             python, launches nothing
 *   step [200,300)            python
 *   └─ aten::mm [210,250)     cpu_op
 *      └─ cudaLaunchKernel [220,225) corr 8 -> k3 [260,270)
 */
Test(correlate, graph_replay_frame_becomes_op)
{
	static const struct tx_event ev[] = {
		TX("forward", PYTHON, 0, 0, 100, 0, 0, NULL),
		TX("replay", PYTHON, 0, 10, 30, 0, 0, NULL),
		TX("cudaGraphLaunch", RUNTIME, 0, 20, 10, 7, 0, NULL),
		TX("k1", KERNEL, 1, 50, 10, 7, 0, NULL),
		TX("k2", KERNEL, 1, 60, 15, 7, 0, NULL),
		TX("log", PYTHON, 0, 100, 10, 0, 0, NULL),
		TX("step", PYTHON, 0, 200, 100, 0, 0, NULL),
		TX("aten::mm", HOST_OP, 0, 210, 40, 0, 0, NULL),
		TX("cudaLaunchKernel", RUNTIME, 0, 220, 5, 8, 0, NULL),
		TX("k3", KERNEL, 1, 260, 10, 8, 0, NULL),
	};
	struct osc_trace t;
	struct osc_catsel ops = { .kinds = OSC_CATSEL_HOST_DEFAULT };
	struct osc_catsel launch = { .kinds = OSC_CATSEL_LAUNCH_DEFAULT };
	struct osc_catsel device = { .kinds = OSC_CATSEL_DEVICE_DEFAULT };
	struct osc_calltree c;
	struct osc_correlation corr;
	uint32_t replay, k;
	char buf[128];

	tx_build(&t, OSC_FORMAT_KINETO, ev, FX_LEN(ev));
	osc_host_analysis(&t, &ops, &launch, &device, &c, &corr);
	cr_assert_not_null(ops.also);
	cr_expect_eq(c.nr, 2, "aten::mm and the replay frame");
	replay = c.node_of[fx_find(&t, "replay")];
	cr_assert_neq(replay, OSC_NONE);
	cr_expect_eq(c.node_of[fx_find(&t, "forward")], OSC_NONE);
	cr_expect_eq(c.node_of[fx_find(&t, "log")], OSC_NONE);
	cr_expect_eq(c.node_of[fx_find(&t, "step")], OSC_NONE);
	for (k = 0; k < corr.nr_devs; k++) {
		const char *name = osc_trace_str(&t, t.events[corr.devs[k].event].name);

		cr_expect_neq(corr.devs[k].node, OSC_NONE, "%s is attributed", name);
		cr_expect_eq(corr.devs[k].unattributed, OSC_UNATTRIBUTED_NONE, "%s: %s", name,
			     osc_unattributed_name(corr.devs[k].unattributed));
		if (name[1] != '3')
			cr_expect_eq(corr.devs[k].node, replay, "%s", name);
	}
	cr_expect_eq(corr.no_host, 0);
	cr_expect_str_eq(osc_catsel_describe(&ops, buf, sizeof(buf)),
			 "kind op + frames launching device work");
	osc_correlation_release(&corr);
	osc_calltree_release(&c);
	osc_catsel_release(&ops);
	osc_trace_release(&t);
}

/*
 * osc_host_analysis ties the first correlation to the tree with the frames
 * (relink) instead of correlating again: the result must be what a fresh
 * osc_correlate on that tree gives, link for link.
 */
static void expect_relink_is_fresh(const char *rel)
{
	struct osc_trace t;
	struct osc_catsel ops = { .kinds = OSC_CATSEL_HOST_DEFAULT };
	struct osc_catsel launch = { .kinds = OSC_CATSEL_LAUNCH_DEFAULT };
	struct osc_catsel device = { .kinds = OSC_CATSEL_DEVICE_DEFAULT };
	struct osc_calltree c;
	struct osc_correlation got, want;

	fx_load(&t, rel);
	osc_host_analysis(&t, &ops, &launch, &device, &c, &got);
	cr_assert_not_null(ops.also, "%s has frames launching device work", rel);
	osc_correlate(&t, &c, &launch, &device, &want);
	cr_assert_eq(got.nr_launches, want.nr_launches);
	cr_assert_eq(got.nr_devs, want.nr_devs);
	for (size_t l = 0; l < got.nr_launches; l++) {
		cr_assert_eq(got.launches[l].node, want.launches[l].node, "%s launch %zu", rel, l);
		cr_assert_eq(got.launches[l].method, want.launches[l].method, "%s launch %zu", rel, l);
	}
	for (size_t d = 0; d < got.nr_devs; d++) {
		cr_assert_eq(got.devs[d].node, want.devs[d].node, "%s device %zu", rel, d);
		cr_assert_eq(got.devs[d].method, want.devs[d].method, "%s device %zu", rel, d);
		cr_assert_eq(got.devs[d].host_method, want.devs[d].host_method, "%s device %zu",
			     rel, d);
		cr_assert_eq(got.devs[d].unattributed, want.devs[d].unattributed,
			     "%s device %zu", rel, d);
	}
	cr_expect_eq(memcmp(got.by_unattributed, want.by_unattributed,
			    sizeof(got.by_unattributed)), 0);
	cr_expect_eq(got.no_host, want.no_host);
	cr_expect_eq(memcmp(got.by_method, want.by_method, sizeof(got.by_method)), 0);
	osc_correlation_release(&got);
	osc_correlation_release(&want);
	osc_calltree_release(&c);
	osc_catsel_release(&ops);
	osc_trace_release(&t);
}

Test(correlate, relinked_frames_equal_a_fresh_correlation)
{
	expect_relink_is_fresh("samples/kineto-sampled-rank0.json.gz");
	expect_relink_is_fresh("tests/data/measures-frames.json");
	/* last: skips the test when ../shared is absent */
	expect_relink_is_fresh("../shared/traces/tracelens/sglang_decode/sglang_Qwen3-8B_decode.json.gz");
}

/*
 * Many steps k (op k, its launch, its kernel), linked in every way at once,
 * so the links are listed on several cores (65,536 events a share):
 *   thread 0: op k [200k, 200k+100) ext k+1
 *             launch k [200k+10, +10): corr 2k+1; ext k+1 when k % 3 == 0 (the
 *             op by External id), else none (by window); k % 5 == 4: no corr
 *             but a flow start inside it (id k+1)
 *   thread 1: kernel k [200k+50, +10): corr 2k+1, or the flow's end
 *   thread 2: kernel k [200k+60, +5) corr 10^7+k when k % 7 == 0 (no launch
 *             has it: unattributed)
 */
static struct tx_event *many_steps(size_t steps, size_t *n)
{
	struct tx_event *ev = calloc(6 * steps, sizeof(*ev));

	*n = 0;
	for (size_t k = 0; k < steps; k++) {
		int64_t t0 = 200 * (int64_t)k, id = (int64_t)k + 1;
		bool flow = k % 5 == 4;

		ev[(*n)++] = (struct tx_event)TX("op", HOST_OP, 0, t0, 100, 0, id, NULL);
		ev[(*n)++] = (struct tx_event)TX("launch", RUNTIME, 0, t0 + 10, 10,
						 flow ? 0 : 2 * id - 1, k % 3 ? 0 : id, NULL);
		if (flow) {
			ev[(*n)++] = (struct tx_event)TS(0, t0 + 11, id);
			ev[(*n)++] = (struct tx_event)TF(1, t0 + 50, id);
		}
		ev[(*n)++] = (struct tx_event)TX("kernel", KERNEL, 1, t0 + 50, 10,
						 flow ? 0 : 2 * id - 1, 0, NULL);
		if (k % 7 == 0)
			ev[(*n)++] = (struct tx_event)TX("orphan", KERNEL, 2, t0 + 60, 5,
							 10000000 + (int64_t)k, 0, NULL);
	}
	return ev;
}

static void expect_same_links(const struct osc_trace *t, const struct osc_correlation *a,
			      const struct osc_correlation *b)
{
	cr_assert_eq(a->nr_launches, b->nr_launches);
	cr_assert_eq(a->nr_devs, b->nr_devs);
	cr_assert_eq(a->no_host, b->no_host);
	for (int m = 0; m < OSC_LINK_COUNT; m++)
		cr_assert_eq(a->by_method[m], b->by_method[m], "method %s", osc_link_name(m));
	for (size_t l = 0; l < a->nr_launches; l++) {
		const struct osc_launch_link *x = &a->launches[l], *y = &b->launches[l];

		cr_assert(x->event == y->event && x->node == y->node && x->method == y->method &&
				  x->nr_device == y->nr_device, "launch %zu differs", l);
	}
	for (size_t d = 0; d < a->nr_devs; d++) {
		const struct osc_dev_link *x = &a->devs[d], *y = &b->devs[d];

		cr_assert(x->event == y->event && x->launch == y->launch && x->node == y->node &&
				  x->method == y->method && x->host_method == y->host_method &&
				  x->delay == y->delay && x->queue == y->queue,
			  "device event %zu differs", d);
	}
	for (size_t i = 0; i < t->nr_events; i++)
		cr_assert(a->launch_of[i] == b->launch_of[i] && a->dev_of[i] == b->dev_of[i],
			  "event %zu", i);
}

Test(correlate, many_steps_on_one_core_and_on_all)
{
	size_t n, steps = 50000;
	struct tx_event *ev = many_steps(steps, &n);
	struct tx_analysis a;
	struct osc_correlation all;

	osc_threads_cap(1);
	tx_analyse(&a, OSC_FORMAT_KINETO, ev, n);
	osc_threads_cap(0);
	cr_assert_gt(a.t.nr_events, 2 * 65536, "enough events for two shares");
	/* each kernel is its step's op's, the way the step says */
	for (size_t d = 0; d < a.corr.nr_devs; d++) {
		const struct osc_dev_link *dl = &a.corr.devs[d];
		const struct osc_event *e = &a.t.events[dl->event];
		size_t k = (size_t)(e->ts / 200);

		if (e->name == fx_str(&a.t, "orphan")) {
			cr_assert_eq(dl->method, OSC_LINK_NONE);
			continue;
		}
		cr_assert_eq(dl->method, k % 5 == 4 ? OSC_LINK_FLOW : OSC_LINK_CORRELATION, "k %zu", k);
		cr_assert_eq(dl->host_method, k % 3 ? OSC_LINK_WINDOW : OSC_LINK_EXTERNAL_ID,
			     "k %zu", k);
		cr_assert_neq(dl->node, OSC_NONE);
		cr_assert_eq(a.t.events[a.c.nodes[dl->node].event].ts, 200 * (int64_t)k, "k %zu", k);
		cr_assert_eq(dl->delay, 40);
	}
	if (osc_threads() < 2) {
		tx_release(&a);
		free(ev);
		cr_skip_test("one CPU: the links are listed on one core only");
	}
	osc_correlate(&a.t, &a.c, &a.launch, &a.device, &all);
	expect_same_links(&a.t, &a.corr, &all);
	osc_correlation_release(&all);
	tx_release(&a);
	free(ev);
}
