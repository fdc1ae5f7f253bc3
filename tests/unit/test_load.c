/* test_load.c - chrome-trace loading: shapes, formats, kinds, B/E, gzip, errors. */
#define _XOPEN_SOURCE 700 /* nftw */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <ftw.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>
#include <zlib.h>

#include "opscope/load/load.h"
#include "../../src/core/base/mapguard.h"

static struct osc_trace t;
static struct osc_error err;

static void setup(void)
{
	osc_trace_init(&t);
}

static void teardown(void)
{
	osc_trace_release(&t);
}

TestSuite(load, .init = setup, .fini = teardown);

static enum osc_status load_str(const char *text)
{
	osc_trace_release(&t);
	osc_trace_init(&t);
	return osc_load_buffer("test.json", text, strlen(text), NULL, &t, &err);
}

static void load_ok(const char *text)
{
	enum osc_status st = load_str(text);
	char line[1024];

	osc_error_format(&err, line, sizeof(line));
	cr_assert_eq(st, OSC_OK, "load failed: %s", line);
}

static const struct osc_event *find(const char *name)
{
	for (size_t i = 0; i < t.nr_events; i++)
		if (!strcmp(osc_trace_str(&t, t.events[i].name), name))
			return &t.events[i];
	cr_assert_fail("no event named %s", name);
	return NULL;
}

/* The op of e, an event of t. */
static osc_str OP(const struct osc_event *e)
{
	return osc_trace_op(&t, (size_t)(e - t.events));
}

static const char *S(osc_str id)
{
	return osc_trace_str(&t, id);
}

/* ---- ORT -------------------------------------------------------------- */

static const char ort_text[] =
	"[\n"
	"{\"cat\" : \"Session\",\"pid\" :20385,\"tid\" :20385,\"dur\" :2210,\"ts\" :3,\"ph\" : \"X\","
	"\"name\" :\"model_loading_uri\",\"args\" : {}},\n"
	"{\"cat\" : \"Node\",\"pid\" :20385,\"tid\" :20385,\"dur\" :1,\"ts\" :100,\"ph\" : \"X\","
	"\"name\" :\"conv1_fence_before\",\"args\" : {\"op_name\" : \"Conv\"}},\n"
	"{\"cat\" : \"Node\",\"pid\" :20385,\"tid\" :20385,\"dur\" :366,\"ts\" :101,\"ph\" : \"X\","
	"\"name\" :\"conv1_kernel_time\",\"args\" : {\"provider\" : \"CPUExecutionProvider\","
	"\"op_name\" : \"Conv\",\"input_type_shape\" : [{\"float\":[1,3,224,224]},"
	"{\"float\":[16,3,3,3]},{\"float\":[16]}]}},\n"
	"{\"cat\" : \"Node\",\"pid\" :20385,\"tid\" :20385,\"dur\" :5,\"ts\" :470,\"ph\" : \"X\","
	"\"name\" :\"add \"x\" 1_kernel_time\",\"args\" : {\"op_name\" : \"Add\","
	"\"input_type_shape\" : [{\"float\":[2]},{\"float\":[]}]}},\n"
	"{\"cat\" : \"Session\",\"pid\" :20385,\"tid\" :20385,\"dur\" :400,\"ts\" :99,\"ph\" : \"X\","
	"\"name\" :\"SequentialExecutor::Execute\",\"args\" : {}},\n"
	"{\"cat\" : \"Session\",\"pid\" :20385,\"tid\" :20385,\"dur\" :500,\"ts\" :90,\"ph\" : \"X\","
	"\"name\" :\"model_run\",\"args\" : {}}\n"
	"]\n";

Test(load, ort_array)
{
	const struct osc_event *e;

	load_ok(ort_text);
	cr_assert_eq(t.format, OSC_FORMAT_ORT);
	cr_assert_eq(osc_trace_nr_written(&t), 6);
	cr_assert_eq(t.ph_counts['X'], 6);
	cr_assert_eq(find("model_run")->kind, OSC_KIND_RUN);
	cr_assert_eq(find("SequentialExecutor::Execute")->kind, OSC_KIND_EXECUTOR);
	cr_assert_eq(find("model_loading_uri")->kind, OSC_KIND_SESSION);
	cr_assert_eq(find("conv1_fence_before")->kind, OSC_KIND_FENCE);
	e = find("conv1_kernel_time");
	cr_assert_eq(e->kind, OSC_KIND_HOST_OP);
	cr_assert_str_eq(S(OP(e)), "Conv");
	cr_assert_str_eq(S(osc_trace_provider(&t, (size_t)(e - t.events))),
			 "CPUExecutionProvider");
	cr_assert_str_eq(S(e->shape), "float(1x3x224x224),float(16x3x3x3),float(16)");
	cr_assert_eq(e->ts, 101000);
	cr_assert_eq(e->dur, 366000);
	cr_assert_str_eq(S(t.threads[e->thread].pid), "20385");
	/* The unescaped quotes in the name are kept and counted. */
	e = find("add \"x\" 1_kernel_time");
	cr_assert_str_eq(S(e->shape), "float(2),float()");
	cr_assert_eq(t.warnings[OSC_WARN_UNESCAPED_QUOTE].count, 2);
	/* Sorted: model_run (ts 90) first. */
	cr_assert_str_eq(S(t.events[1].name), "model_run");
	cr_assert_str_eq(t.meta_json, "");
}

/* ---- Kineto ----------------------------------------------------------- */

static const char kineto_text[] =
	"{\n"
	"  \"schemaVersion\": 1,\n"
	"  \"deviceProperties\": [ {\"id\": 0, \"name\": \"NVIDIA A100\"} ],\n"
	"  \"traceEvents\": [\n"
	"  {\n"
	"    \"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::logit_backward\",\n"
	"    \"pid\": 4037, \"tid\": 23695,\n"
	"    \"ts\": 1712195495505583.123, \"dur\": 27.0,\n"
	"    \"args\": {\n"
	"      \"External id\": 41538, \"Input Dims\": [[2048, 1], [2048, 1], []],\n"
	"      \"Input type\": [\"float\", \"float\", \"Scalar\"]\n"
	"    }\n"
	"  },\n"
	"  {\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#551\", \"pid\": 4037,"
	"   \"tid\": 23695, \"ts\": 1712195495505000, \"dur\": 1000},\n"
	"  {\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 4037,"
	"   \"tid\": 4037, \"ts\": 1712195495505590, \"dur\": 9.0,"
	"   \"args\": {\"External id\": 7, \"cbid\": 211, \"correlation\": 7041582}},\n"
	"  {\"ph\": \"s\", \"id\": 7041582, \"pid\": 4037, \"tid\": 4037, \"ts\": 1712195495505590,"
	"   \"cat\": \"ac2g\", \"name\": \"ac2g\"},\n"
	"  {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"void vectorized_elementwise_kernel<4>()\","
	"   \"pid\": 0, \"tid\": 7, \"ts\": 1712195495505600, \"dur\": 4.0,"
	"   \"args\": {\"External id\": 7, \"device\": 0, \"stream\": 7, \"correlation\": 7041582,"
	"   \"registers per thread\": 16, \"shared memory\": 41744, \"grid\": [16, 1, 1],"
	"   \"block\": [544, 1, 1], \"est. achieved occupancy %\": 4.5}},\n"
	"  {\"ph\": \"f\", \"id\": 7041582, \"pid\": 0, \"tid\": 7, \"ts\": 1712195495505600,"
	"   \"cat\": \"ac2g\", \"name\": \"ac2g\", \"bp\": \"e\"},\n"
	"  {\"ph\": \"X\", \"cat\": \"gpu_memcpy\", \"name\": \"Memcpy DtoD (Device -> Device)\","
	"   \"pid\": 0, \"tid\": 7, \"ts\": 1712195495505700, \"dur\": 17.0,"
	"   \"args\": {\"device\": 0, \"stream\": 7, \"correlation\": 9, \"bytes\": 16777216}},\n"
	"  {\"ph\": \"M\", \"name\": \"process_name\", \"pid\": 4037, \"tid\": 0,"
	"   \"args\": {\"name\": \"trainer\"}},\n"
	"  {\"ph\": \"M\", \"name\": \"process_sort_index\", \"pid\": 4037, \"tid\": 0,"
	"   \"args\": {\"sort_index\": 5}},\n"
	"  {\"ph\": \"M\", \"name\": \"thread_name\", \"pid\": 0, \"tid\": 7,"
	"   \"args\": {\"name\": \"stream 7 \"}},\n"
	"  {\"ph\": \"X\", \"cat\": \"Trace\", \"name\": \"PyTorch Profiler (0)\", \"pid\": \"Spans\","
	"   \"tid\": \"PyTorch Profiler\", \"ts\": 1712195495500000, \"dur\": 3367344.0}\n"
	"  ],\n"
	"  \"displayTimeUnit\": \"ms\",\n"
	"  \"distributedInfo\": {\"rank\": 0}\n"
	"}\n";

Test(load, kineto_object)
{
	const struct osc_event *e;
	const struct osc_kernel *k;

	load_ok(kineto_text);
	cr_assert_eq(t.format, OSC_FORMAT_KINETO);
	cr_assert_eq(osc_trace_nr_written(&t), 8);
	cr_assert_eq(t.nr_metadata, 3);
	cr_assert_eq(t.ph_counts['M'], 3);
	e = find("aten::logit_backward");
	cr_assert_eq(e->ts, 1712195495505583123LL);
	cr_assert_eq(e->dur, 27000);
	cr_assert_eq(e->kind, OSC_KIND_HOST_OP);
	cr_assert_eq(osc_trace_id_value(&t, e->ext), 41538);
	cr_assert_str_eq(S(OP(e)), "aten::logit_backward");
	cr_assert_str_eq(S(e->shape), "float(2048x1),float(2048x1),Scalar()");
	cr_assert_str_eq(S(t.threads[e->thread].process_name), "trainer");
	cr_assert_eq(t.threads[e->thread].process_sort, 5);
	cr_assert_eq(find("ProfilerStep#551")->kind, OSC_KIND_RUN);
	e = find("cudaLaunchKernel");
	cr_assert_eq(e->kind, OSC_KIND_RUNTIME);
	cr_assert_eq(osc_trace_id_value(&t, e->corr_id), 7041582);
	cr_assert_eq(e->kernel, OSC_NONE);
	e = find("void vectorized_elementwise_kernel<4>()");
	cr_assert_eq(e->kind, OSC_KIND_KERNEL);
	cr_assert_eq(osc_trace_id_value(&t, e->corr_id), 7041582);
	cr_assert_neq(e->kernel, OSC_NONE);
	k = &t.kernels[e->kernel];
	cr_assert_eq(k->grid[0], 16);
	cr_assert_eq(k->grid[2], 1);
	cr_assert_eq(k->block[0], 544);
	cr_assert_eq(k->stream, 7);
	cr_assert_eq(k->device, 0);
	cr_assert_eq(k->registers, 16);
	cr_assert_eq(k->shared_mem, 41744);
	cr_assert_float_eq(k->occupancy, 4.5f, 1e-6);
	cr_assert_eq(k->bytes, -1);
	cr_assert_str_eq(S(t.threads[e->thread].thread_name), "stream 7 ");
	e = find("Memcpy DtoD (Device -> Device)");
	cr_assert_eq(e->kind, OSC_KIND_MEMCPY);
	cr_assert_eq(t.kernels[e->kernel].bytes, 16777216);
	cr_assert_eq(t.kernels[e->kernel].grid[0], -1);
	/* Flows are kept apart, with their id, in model order among the events. */
	for (size_t i = 0; i < t.nr_events; i++)
		cr_assert_neq(t.events[i].kind, OSC_KIND_FLOW);
	cr_assert_eq(t.nr_flows, 2);
	for (size_t i = 0; i < t.nr_flows; i++) {
		const struct osc_flow *f = &t.flows[i];

		cr_assert_eq(osc_trace_id_value(&t, f->id), 7041582);
		cr_assert(osc_flow_ph(f) == OSC_PH_FLOW_START || osc_flow_ph(f) == OSC_PH_FLOW_END);
		cr_assert_str_eq(S(osc_trace_flow_name(&t, f)->cat), "ac2g");
	}
	cr_assert_lt(t.flows[0].at, t.flows[1].at);
	/* String pid next to numeric ones. */
	e = find("PyTorch Profiler (0)");
	cr_assert_str_eq(S(t.threads[e->thread].pid), "Spans");
	cr_assert_eq(e->kind, OSC_KIND_OTHER);
	/* Top-level keys other than traceEvents, in order, minified. */
	cr_assert_str_eq(t.meta_json, "{\"schemaVersion\":1,\"deviceProperties\":[{\"id\":0,"
				      "\"name\":\"NVIDIA A100\"}],\"displayTimeUnit\":\"ms\","
				      "\"distributedInfo\":{\"rank\":0}}");
	/* args are kept minified. */
	for (uint32_t i = 0; i < t.nr_events; i++)
		if (osc_trace_id_value(&t, t.events[i].ext) == 41538)
			cr_assert_str_eq(osc_trace_args(&t, i),
					 "{\"External id\":41538,\"Input Dims\":[[2048,1],[2048,1],[]],"
					 "\"Input type\":[\"float\",\"float\",\"Scalar\"]}");
}

Test(load, kineto_2021_names)
{
	load_ok("[{\"ph\":\"X\",\"cat\":\"Operator\",\"name\":\"aten::add\",\"pid\":1,\"tid\":\"1890023232\","
		"\"ts\":10,\"dur\":4,\"args\":{\"Input dims\":[[1]],\"Input type\":[],\"external id\":3}},"
		"{\"ph\":\"X\",\"cat\":\"Runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,"
		"\"ts\":11,\"dur\":1,\"args\":{\"correlation\":5}},"
		"{\"ph\":\"X\",\"cat\":\"Kernel\",\"name\":\"k\",\"pid\":0,\"tid\":\"stream 7\","
		"\"ts\":12,\"dur\":1,\"args\":{\"correlation\":5,\"grid\":[2,4,64]}},"
		"{\"ph\":\"X\",\"cat\":\"Memset\",\"name\":\"Memset (Device)\",\"pid\":0,\"tid\":\"stream 7\","
		"\"ts\":13,\"dur\":1}]");
	cr_assert_eq(t.format, OSC_FORMAT_KINETO);
	cr_assert_eq(find("aten::add")->kind, OSC_KIND_HOST_OP);
	cr_assert_eq(osc_trace_id_value(&t, find("aten::add")->ext), 3);
	cr_assert_str_eq(S(find("aten::add")->shape), "(1)");
	cr_assert_eq(find("cudaLaunchKernel")->kind, OSC_KIND_RUNTIME);
	cr_assert_eq(find("k")->kind, OSC_KIND_KERNEL);
	cr_assert_eq(t.kernels[find("k")->kernel].grid[2], 64);
	cr_assert_eq(find("Memset (Device)")->kind, OSC_KIND_MEMSET);
}

/* ---- other formats ----------------------------------------------------- */

Test(load, pytorch_legacy)
{
	load_ok("[{\"name\": \"aten::zeros\", \"ph\": \"X\", \"ts\": 244, \"dur\": 46, \"tid\": 1,"
		" \"pid\": \"CPU functions\", \"args\": {}},"
		" {\"name\": \"ProfilerStep#1\", \"ph\": \"X\", \"ts\": 321, \"dur\": 179751, \"tid\": 1,"
		" \"pid\": \"CPU functions\", \"args\": {}},"
		" {\"name\": \"aten::conv2d\", \"ph\": \"X\", \"ts\": 465, \"dur\": 10514, \"tid\": 1,"
		" \"pid\": \"CPU functions\", \"args\": {}}]");
	cr_assert_eq(t.format, OSC_FORMAT_PYTORCH_LEGACY);
	cr_assert_eq(find("ProfilerStep#1")->kind, OSC_KIND_RUN);
	cr_assert_eq(find("aten::conv2d")->kind, OSC_KIND_HOST_OP);
	cr_assert_str_eq(S(t.threads[0].pid), "CPU functions");
}

Test(load, neural_engine)
{
	load_ok("{\"traceEvents\": ["
		"{\"name\":\"model_inference\",\"cat\":\"inference\",\"ph\":\"X\",\"pid\":1,\"tid\":1,"
		"\"ts\":0,\"dur\":17138},"
		"{\"name\":\"Iteration4\",\"cat\":\"iteration\",\"ph\":\"X\",\"pid\":1,\"tid\":1,"
		"\"ts\":0,\"dur\":8726},"
		"{\"name\":\"Add_284\",\"cat\":\"InnerProduct\",\"ph\":\"X\",\"pid\":1,\"tid\":1,"
		"\"ts\":12028,\"dur\":44,\"args\":{\"reshape_time\":\"0.004ms\","
		"\"input_type\":\"fp32,fp32,f32,\",\"input_shape\":\"64*1024,256*1024,256\"}}]}");
	cr_assert_eq(t.format, OSC_FORMAT_NEURAL_ENGINE);
	cr_assert_eq(find("model_inference")->kind, OSC_KIND_SESSION);
	cr_assert_eq(find("Iteration4")->kind, OSC_KIND_RUN);
	cr_assert_eq(find("Add_284")->kind, OSC_KIND_HOST_OP);
	cr_assert_str_eq(S(OP(find("Add_284"))), "InnerProduct");
	cr_assert_str_eq(S(find("Add_284")->shape), "fp32(64x1024),fp32(256x1024),f32(256)");
}

/* speedscope simple.json: B/E nest around X events; tdur is not dur. */
Test(load, generic_chrome_begin_end)
{
	const struct osc_event *e;

	load_ok("[\n"
		"  {\"pid\": 0, \"tid\": 0, \"ph\": \"B\", \"name\": \"alpha\", \"ts\": 0},\n"
		"  {\"pid\": 0, \"tid\": 0, \"ph\": \"B\", \"name\": \"beta\", \"ts\": 1, \"args\": {\"k\": 1}},\n"
		"  {\"pid\": 0, \"tid\": 0, \"ph\": \"X\", \"name\": \"gamma\", \"ts\": 2, \"dur\": 5,"
		" \"args\": {\"detail\": \"foobar\"}},\n"
		"  {\"pid\": 0, \"tid\": 0, \"ph\": \"X\", \"name\": \"epsilon\", \"ts\": 7, \"tdur\": 4},\n"
		"  {\"pid\": 0, \"tid\": 0, \"ph\": \"E\", \"name\": \"beta\", \"ts\": 13},\n"
		"  {\"pid\": 0, \"tid\": 0, \"ph\": \"E\", \"name\": \"alpha\", \"ts\": 14}\n"
		"]\n");
	cr_assert_eq(t.format, OSC_FORMAT_CHROME);
	cr_assert_eq(osc_trace_nr_written(&t), 4);
	cr_assert_eq(t.ph_counts['B'], 2);
	cr_assert_eq(t.ph_counts['E'], 2);
	e = find("alpha");
	cr_assert_eq(e->dur, 14000);
	cr_assert(e->flags & OSC_EVF_FROM_BE);
	cr_assert_eq(e->kind, OSC_KIND_HOST_OP);
	cr_assert_eq(e->ph, OSC_PH_COMPLETE);
	e = find("beta");
	cr_assert_eq(e->ts, 1000);
	cr_assert_eq(e->dur, 12000);
	cr_assert_str_eq(osc_trace_args(&t, (uint32_t)(e - t.events)), "{\"k\":1}");
	cr_assert_eq(find("epsilon")->dur, 0);
	cr_assert(find("epsilon")->flags & OSC_EVF_NO_DUR);
	cr_assert_eq(find("gamma")->flags & OSC_EVF_FROM_BE, 0);
	cr_assert_eq(t.warnings[OSC_WARN_UNMATCHED_BEGIN].count, 0);
	cr_assert_str_eq(S(t.events[0].name), "alpha");
}

/* speedscope out-of-order.json: pairs listed out of ts order still nest. */
Test(load, begin_end_out_of_order)
{
	load_ok("[{\"pid\":0,\"tid\":0,\"ph\":\"B\",\"name\":\"B\",\"ts\":1},"
		"{\"pid\":0,\"tid\":0,\"ph\":\"E\",\"name\":\"B\",\"ts\":9},"
		"{\"pid\":0,\"tid\":0,\"ph\":\"B\",\"name\":\"A\",\"ts\":0},"
		"{\"pid\":0,\"tid\":0,\"ph\":\"E\",\"name\":\"A\",\"ts\":10},"
		"{\"pid\":0,\"tid\":0,\"ph\":\"B\",\"name\":\"C\",\"ts\":2},"
		"{\"pid\":0,\"tid\":0,\"ph\":\"E\",\"name\":\"C\",\"ts\":8}]");
	cr_assert_eq(osc_trace_nr_written(&t), 3);
	cr_assert_eq(find("A")->dur, 10000);
	cr_assert_eq(find("B")->dur, 8000);
	cr_assert_eq(find("C")->dur, 6000);
}

/* speedscope not-enough-end-events.json plus a stray E on another thread. */
Test(load, begin_end_unmatched)
{
	load_ok("[{\"pid\":0,\"tid\":0,\"ph\":\"B\",\"name\":\"A\",\"args\":{\"x\":1},\"ts\":0},\n"
		"{\"pid\":0,\"tid\":0,\"ph\":\"B\",\"name\":\"A\",\"args\":{\"x\":2},\"ts\":1},\n"
		"{\"pid\":0,\"tid\":0,\"ph\":\"X\",\"name\":\"A\",\"args\":{\"x\":1},\"ts\":10,\"dur\":1},\n"
		"{\"pid\":0,\"tid\":1,\"ph\":\"E\",\"name\":\"Z\",\"ts\":3}]");
	cr_assert_eq(osc_trace_nr_written(&t), 1);
	cr_assert_eq(t.warnings[OSC_WARN_UNMATCHED_BEGIN].count, 2);
	cr_assert_eq(t.warnings[OSC_WARN_UNMATCHED_END].count, 1);
	cr_assert_gt(t.warnings[OSC_WARN_UNMATCHED_END].first_offset, 100);
}

/* The event named name that starts at ts µs. */
static const struct osc_event *find_at(const char *name, int64_t ts_us)
{
	for (size_t i = 0; i < t.nr_events; i++)
		if (!strcmp(S(t.events[i].name), name) && t.events[i].ts == ts_us * 1000)
			return &t.events[i];
	cr_assert_fail("no event named %s at %lld us", name, (long long)ts_us);
	return NULL;
}

/*
 * speedscope zero-duration-events.json: at one ts a B opens before the E of
 * its name closes, even when the file lists that E first.
 *   A [0, 10)
 *     B [1, 1)
 *     C [2, 2)   E C comes before B C in the file
 *     D [3, 3)   an X of dur 0
 */
Test(load, begin_end_zero_duration)
{
	load_ok("[{\"pid\":0,\"tid\":0,\"ph\":\"B\",\"name\":\"A\",\"ts\":0},"
		"{\"pid\":0,\"tid\":0,\"ph\":\"B\",\"name\":\"B\",\"ts\":1},"
		"{\"pid\":0,\"tid\":0,\"ph\":\"E\",\"name\":\"B\",\"ts\":1},"
		"{\"pid\":0,\"tid\":0,\"ph\":\"E\",\"name\":\"C\",\"ts\":2},"
		"{\"pid\":0,\"tid\":0,\"ph\":\"B\",\"name\":\"C\",\"ts\":2},"
		"{\"pid\":0,\"tid\":0,\"ph\":\"X\",\"name\":\"D\",\"ts\":3,\"dur\":0},"
		"{\"pid\":0,\"tid\":0,\"ph\":\"E\",\"name\":\"A\",\"ts\":10}]");
	cr_assert_eq(osc_trace_nr_written(&t), 4);
	cr_assert_eq(find("A")->dur, 10000);
	cr_assert_eq(find_at("B", 1)->dur, 0);
	cr_assert_eq(find_at("C", 2)->dur, 0);
	cr_assert_eq(t.warnings[OSC_WARN_UNMATCHED_BEGIN].count, 0);
	cr_assert_eq(t.warnings[OSC_WARN_UNMATCHED_END].count, 0);
	cr_assert_eq(t.warnings[OSC_WARN_END_NAME_DIFFERS].count, 0);
}

/*
 * speedscope too-many-end-events.json: two E events at 5 name no open B;
 * they close nothing (counted), so alpha and beta keep their own ends.
 */
Test(load, begin_end_extra_ends)
{
	load_ok("[{\"pid\":0,\"tid\":0,\"ph\":\"B\",\"name\":\"alpha\",\"ts\":0},"
		"{\"pid\":0,\"tid\":0,\"ph\":\"B\",\"name\":\"beta\",\"ts\":1},"
		"{\"pid\":0,\"tid\":0,\"ph\":\"E\",\"name\":\"beta\",\"ts\":13},"
		"{\"pid\":0,\"tid\":0,\"ph\":\"E\",\"name\":\"alpha\",\"ts\":14},"
		"{\"pid\":0,\"tid\":0,\"ph\":\"E\",\"name\":\"gamma\",\"ts\":5},"
		"{\"pid\":0,\"tid\":0,\"ph\":\"E\",\"name\":\"delta\",\"ts\":5}]");
	cr_assert_eq(osc_trace_nr_written(&t), 2);
	cr_assert_eq(find("alpha")->dur, 14000);
	cr_assert_eq(find("beta")->dur, 12000);
	cr_assert_eq(t.warnings[OSC_WARN_UNMATCHED_END].count, 2);
	cr_assert_eq(t.warnings[OSC_WARN_END_NAME_DIFFERS].count, 0);
	cr_assert_eq(t.warnings[OSC_WARN_UNMATCHED_BEGIN].count, 0);
}

/*
 * The stack rule: an E closes the innermost open B whatever name it carries
 * (counted when it names another open B); an E without a name closes it
 * silently, and of two E events at one ts the one naming the innermost B
 * closes it first.
 *   thread 0: B A@0 B B@1 E "A"@5 E "B"@8 -> B [1, 5), A [0, 8), 2 counted
 *   thread 1: B x@0 E (no name)@3        -> x [0, 3)
 *   thread 2: B p@0 B q@2 E p@6 E q@6    -> q [2, 6), p [0, 6), none counted
 */
Test(load, begin_end_stack_rule)
{
	load_ok("[{\"pid\":0,\"tid\":0,\"ph\":\"B\",\"name\":\"A\",\"ts\":0},"
		"{\"pid\":0,\"tid\":0,\"ph\":\"B\",\"name\":\"B\",\"ts\":1},"
		"{\"pid\":0,\"tid\":0,\"ph\":\"E\",\"name\":\"A\",\"ts\":5},"
		"{\"pid\":0,\"tid\":0,\"ph\":\"E\",\"name\":\"B\",\"ts\":8},"
		"{\"pid\":0,\"tid\":1,\"ph\":\"B\",\"name\":\"x\",\"ts\":0},"
		"{\"pid\":0,\"tid\":1,\"ph\":\"E\",\"ts\":3},"
		"{\"pid\":0,\"tid\":2,\"ph\":\"B\",\"name\":\"p\",\"ts\":0},"
		"{\"pid\":0,\"tid\":2,\"ph\":\"B\",\"name\":\"q\",\"ts\":2},"
		"{\"pid\":0,\"tid\":2,\"ph\":\"E\",\"name\":\"p\",\"ts\":6},"
		"{\"pid\":0,\"tid\":2,\"ph\":\"E\",\"name\":\"q\",\"ts\":6}]");
	cr_assert_eq(osc_trace_nr_written(&t), 5);
	cr_assert_eq(find("B")->dur, 4000);
	cr_assert_eq(find("A")->dur, 8000);
	cr_assert_eq(find("x")->dur, 3000);
	cr_assert_eq(find("q")->dur, 4000);
	cr_assert_eq(find("p")->dur, 6000);
	cr_assert_eq(t.warnings[OSC_WARN_END_NAME_DIFFERS].count, 2);
	cr_assert_gt(t.warnings[OSC_WARN_END_NAME_DIFFERS].first_offset, 90);
	cr_assert_eq(t.warnings[OSC_WARN_UNMATCHED_END].count, 0);
	cr_assert_eq(t.warnings[OSC_WARN_UNMATCHED_BEGIN].count, 0);
}

Test(load, mixed_pid_tid_types)
{
	load_ok("[{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":2,\"ts\":1,\"dur\":1},"
		"{\"ph\":\"X\",\"name\":\"b\",\"pid\":\"1\",\"tid\":\"2\",\"ts\":2,\"dur\":1},"
		"{\"ph\":\"X\",\"name\":\"c\",\"pid\":\"Traces\",\"tid\":-1,\"ts\":3,\"dur\":1},"
		"{\"ph\":\"i\",\"name\":\"d\",\"pid\":\"Traces\",\"tid\":\"PyTorch Profiler\",\"ts\":3,"
		"\"s\":\"g\"}]");
	cr_assert_eq(find("a")->thread, find("b")->thread);
	cr_assert_neq(find("a")->thread, find("c")->thread);
	cr_assert_str_eq(S(t.threads[find("c")->thread].tid), "-1");
	cr_assert_eq(find("d")->ph, OSC_PH_INSTANT);
	cr_assert_eq(t.threads[find("a")->thread].nr_events, 2);
}

Test(load, odd_fields)
{
	load_ok("[{\"ph\":\"X\",\"name\":\"nodur\",\"ts\":1},"
		"{\"ph\":\"X\",\"name\":\"neg\",\"ts\":2,\"dur\":-5},"
		"{\"ph\":\"X\",\"name\":\"nots\",\"dur\":5},"
		"{\"name\":\"noph\",\"ts\":5},"
		"{\"ph\":\"X\",\"name\":\"strts\",\"ts\":\"11550183666\",\"dur\":\"1.5\"},"
		"{\"ph\":\"C\",\"name\":\"mem\",\"ts\":3,\"args\":{\"v\":1}},"
		"{\"ph\":\"X\",\"name\":\"bad\xff\",\"ts\":4,\"dur\":1,\"args\":{\"s\":\"\xfe\"}},"
		"7]");
	cr_assert_eq(osc_trace_nr_written(&t), 5);
	cr_assert(find("nodur")->flags & OSC_EVF_NO_DUR);
	cr_assert_eq(find("neg")->dur, 0);
	cr_assert(find("neg")->flags & OSC_EVF_NEG_DUR);
	cr_assert_eq(t.warnings[OSC_WARN_NEGATIVE_DUR].count, 1);
	cr_assert_eq(t.warnings[OSC_WARN_BAD_EVENT].count, 3);
	cr_assert_eq(find("strts")->ts, 11550183666000LL);
	cr_assert_eq(find("strts")->dur, 1500);
	cr_assert_eq(find("mem")->ph, OSC_PH_COUNTER);
	const struct osc_event *e = find("bad\xef\xbf\xbd");
	cr_assert_str_eq(osc_trace_args(&t, (uint32_t)(e - t.events)), "{\"s\":\"\xef\xbf\xbd\"}");
	cr_assert_eq(t.warnings[OSC_WARN_BAD_UTF8].count, 2);
}

Test(load, big_numbers_saturate)
{
	load_ok("[{\"ph\":\"X\",\"name\":\"a\",\"ts\":99999999999999999999,\"dur\":1,"
		"\"args\":{\"Comms Id\": 10159970886766084423, \"correlation\": 10159970886766084423}}]");
	cr_assert_eq(t.events[0].ts, INT64_MAX);
	cr_assert_eq(t.warnings[OSC_WARN_BIG_NUMBER].count, 2);
	cr_assert_str_eq(osc_trace_args(&t, 0),
			 "{\"Comms Id\":10159970886766084423,\"correlation\":10159970886766084423}");
}

Test(load, only_metadata_is_a_trace)
{
	load_ok("{\"traceEvents\": [{\"name\": \"process_name\", \"ph\": \"M\", \"cat\": \"__metadata\","
		" \"pid\": 7512, \"ts\": \"11550183666\", \"tid\": \"-1\", \"args\": {\"name\": \"hermes\"}}],"
		" \"samples\": [{\"ts\": \"1\", \"sf\": 1}], \"stackFrames\": {\"1\": {\"name\": \"f\"}}}");
	cr_assert_eq(osc_trace_nr_written(&t), 0);
	cr_assert_eq(t.nr_metadata, 1);
	cr_assert(strstr(t.meta_json, "\"stackFrames\":{\"1\":{\"name\":\"f\"}}"));
}

Test(load, trailing_data_is_a_warning)
{
	load_ok("[{\"ph\":\"X\",\"name\":\"a\",\"ts\":1,\"dur\":1}]\n garbage");
	cr_assert_eq(osc_trace_nr_written(&t), 1);
	cr_assert_eq(t.warnings[OSC_WARN_TRAILING_DATA].count, 1);
	cr_assert_eq(t.warnings[OSC_WARN_TRAILING_DATA].first_offset, 40);
}

/* ---- truncation -------------------------------------------------------- */

static const char trunc_text[] = "[{\"ph\":\"X\",\"name\":\"a\",\"ts\":1,\"dur\":9},\n"
				 "{\"ph\":\"B\",\"name\":\"b\",\"ts\":2},\n"
				 "{\"ph\":\"E\",\"name\":\"b\",\"ts\":3},\n"
				 "{\"ph\":\"X\",\"name\":\"c\\u00e9\",\"ts\":4,\"dur\":1}]";

Test(load, truncated_at_every_offset)
{
	size_t len = strlen(trunc_text);

	for (size_t n = 0; n < len; n++) {
		char *buf = malloc(n + 1);
		size_t complete = 0;
		enum osc_status st;

		memcpy(buf, trunc_text, n);
		for (size_t i = 0; i < n; i++)
			complete += trunc_text[i] == '}';
		osc_trace_release(&t);
		osc_trace_init(&t);
		st = osc_load_buffer("cut.json", buf, n, NULL, &t, &err);
		if (n == 0) {
			cr_assert_eq(st, OSC_EMPTY);
		} else if (!complete) {
			cr_assert_eq(st, OSC_TRUNCATED, "n=%zu st=%d", n, st);
			cr_assert_eq(err.offset, (int64_t)n);
		} else {
			cr_assert_eq(st, OSC_OK, "n=%zu", n);
			cr_assert_eq(t.warnings[OSC_WARN_TRUNCATED].count, 1, "n=%zu", n);
			/* B and E make one event once both are in. */
			size_t want = complete >= 3 ? complete - 1 : 1;
			cr_assert_eq(osc_trace_nr_written(&t), want, "n=%zu: %zu events", n, osc_trace_nr_written(&t));
		}
		free(buf);
	}
}

/* The speedscope partial files: no closing bracket, maybe a trailing comma. */
Test(load, partial_arrays_keep_everything)
{
	const char *tails[] = { "", ",", ",\n  \n" };

	for (int i = 0; i < 3; i++) {
		char text[256];

		snprintf(text, sizeof(text),
			 "[\n {\"pid\":0,\"tid\":0,\"ph\":\"X\",\"name\":\"a\",\"ts\":0,\"dur\":1},\n"
			 " {\"pid\":0,\"tid\":0,\"ph\":\"X\",\"name\":\"b\",\"ts\":2,\"dur\":1}%s",
			 tails[i]);
		load_ok(text);
		cr_assert_eq(osc_trace_nr_written(&t), 2);
		cr_assert_eq(t.warnings[OSC_WARN_TRUNCATED].count, 1);
	}
}

/* ---- errors ------------------------------------------------------------ */

struct err_case {
	const char *text;
	size_t len; /* 0: strlen */
	enum osc_status st;
	int64_t offset;
	const char *field;
};

Test(load, error_cases)
{
	static const struct err_case cases[] = {
		{ "", 0, OSC_EMPTY, 0, "" },
		{ " \n\t ", 0, OSC_EMPTY, 4, "" },
		{ "\x7f" "ELF\x02\x01\x01\x00\x00", 9, OSC_BINARY, 7, "" }, /* the first NUL */
		{ "[{\"ph\":\"X\",\"x\":\x00}]", 18, OSC_BINARY, 15, "" },
		{ "hello world", 0, OSC_NOT_JSON, 0, "" },
		{ "  <html>", 0, OSC_NOT_JSON, 2, "" },
		{ "{\"a\":1}", 0, OSC_NOT_TRACE, 7, "traceEvents" },   /* its end */
		{ "{\"traceEvents\":5}", 0, OSC_NOT_TRACE, 15, "traceEvents" }, /* the value */
		{ "[1,2]", 0, OSC_NOT_TRACE, 1, "" },                 /* the first element */
		{ "[{\"a\":1}]", 0, OSC_NOT_TRACE, 1, "" },
		{ "42", 0, OSC_NOT_TRACE, 0, "" },
		{ "[{\"ph\":\"X\",\"ts\":1", 0, OSC_TRUNCATED, 17, "" },
		{ "{\"deviceProperties\": [1, 2", 0, OSC_TRUNCATED, 26, "" },
		{ "[ hello ]", 0, OSC_NOT_JSON, 2, "traceEvents" },
		{ "[{\"ph\":\"X\",\"ts\":1} {\"ph\":\"X\",\"ts\":2}]", 0, OSC_NOT_JSON, 19,
		  "traceEvents" },
		{ "[{\"ph\":\"X\",\"ts\":1 \"dur\":2}]", 0, OSC_NOT_JSON, 18, "traceEvents" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct err_case *c = &cases[i];
		size_t len = c->len ? c->len : strlen(c->text);
		enum osc_status st;

		osc_trace_release(&t);
		osc_trace_init(&t);
		st = osc_load_buffer("bad.json", c->text, len, NULL, &t, &err);
		cr_assert_eq(st, c->st, "case %zu: status %d, want %d (%s)", i, st, c->st,
			     err.message);
		cr_assert_eq(err.code, c->st);
		cr_assert_eq(err.offset, c->offset, "case %zu: offset %lld", i,
			     (long long)err.offset);
		cr_assert_str_eq(err.field, c->field, "case %zu", i);
		cr_assert_str_eq(err.subject, "bad.json");
		cr_assert_eq(osc_trace_nr_written(&t), 0);
	}
}

Test(load, file_errors)
{
	char line[1024];

	char dir[] = "/tmp/opscope-test-XXXXXX", path[128];
	FILE *f;

	cr_assert_eq(osc_load("/nonexistent/x.json", NULL, &t, &err), OSC_IO);
	cr_assert_str_eq(err.subject, "/nonexistent/x.json");
	cr_assert_str_eq(err.message, "no such file");
	cr_assert_not_null(mkdtemp(dir));
	cr_assert_eq(osc_load(dir, NULL, &t, &err), OSC_IO);
	cr_assert_str_eq(err.message, "is a directory: opscope takes one trace file");
	osc_error_format(&err, line, sizeof(line));
	snprintf(path, sizeof(path), "%s: is a directory: opscope takes one trace file", dir);
	cr_assert_str_eq(line, path);
	/* with a trace in it, the directory's error names it; a near name is suggested */
	snprintf(path, sizeof(path), "%s/run.json.gz", dir);
	cr_assert_not_null(f = fopen(path, "w"));
	fclose(f);
	cr_assert_eq(osc_load(dir, NULL, &t, &err), OSC_IO);
	snprintf(line, sizeof(line), "is a directory: opscope takes one trace file, e.g. %s/%s",
		 dir, "run.json.gz");
	cr_assert_str_eq(err.message, line);
	for (int i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, i ? "rnu.json.gz" : "run.json");
		cr_assert_eq(osc_load(path, NULL, &t, &err), OSC_IO);
		snprintf(line, sizeof(line), "no such file (did you mean %s/run.json.gz?)", dir);
		cr_assert_str_eq(err.message, line);
	}
	snprintf(path, sizeof(path), "%s/run.json.gz", dir);
	unlink(path);
	rmdir(dir);
}

/* ---- gzip -------------------------------------------------------------- */

static size_t gzip(const void *in, size_t n, unsigned char *out, size_t cap)
{
	z_stream zs;

	memset(&zs, 0, sizeof(zs));
	cr_assert_eq(deflateInit2(&zs, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), Z_OK);
	zs.next_in = (unsigned char *)in;
	zs.avail_in = (uInt)n;
	zs.next_out = out;
	zs.avail_out = (uInt)cap;
	cr_assert_eq(deflate(&zs, Z_FINISH), Z_STREAM_END);
	n = zs.total_out;
	deflateEnd(&zs);
	return n;
}

/*
 * Both inflaters (OPSCOPE_INFLATE; without ISA-L built in, "isal" is zlib
 * again): a gzip test runs once with each and must see the same.
 */
static const char *const inflaters[] = { "zlib", "isal" };
#define NR_INFLATERS (sizeof(inflaters) / sizeof(inflaters[0]))

static void use_inflater(size_t i)
{
	cr_assert_eq(setenv("OPSCOPE_INFLATE", inflaters[i], 1), 0);
}

static void gzip_members(void)
{
	static unsigned char gz[1 << 16];
	size_t half = strlen(kineto_text) / 2, n;

	osc_trace_release(&t);
	osc_trace_init(&t);

	n = gzip(kineto_text, strlen(kineto_text), gz, sizeof(gz));
	cr_assert_eq(osc_load_buffer("k.json.gz", gz, n, NULL, &t, &err), OSC_OK);
	cr_assert_str_eq(t.compression, "gzip");
	cr_assert_eq(osc_trace_nr_written(&t), 8);
	cr_assert_eq(t.file_bytes, n);
	cr_assert_eq(t.input_bytes, strlen(kineto_text));

	/* Two members, split in the middle of an event. */
	n = gzip(kineto_text, half, gz, sizeof(gz));
	n += gzip(kineto_text + half, strlen(kineto_text) - half, gz + n, sizeof(gz) - n);
	osc_trace_release(&t);
	osc_trace_init(&t);
	cr_assert_eq(osc_load_buffer("k2.json.gz", gz, n, NULL, &t, &err), OSC_OK);
	cr_assert_eq(osc_trace_nr_written(&t), 8);
	cr_assert_eq(find("aten::logit_backward")->ts, 1712195495505583123LL);
	/* An empty member between them, and junk after the last: a warning. */
	n = gzip(kineto_text, half, gz, sizeof(gz));
	n += gzip("", 0, gz + n, sizeof(gz) - n);
	n += gzip(kineto_text + half, strlen(kineto_text) - half, gz + n, sizeof(gz) - n);
	memcpy(gz + n, "junk after it", 13);
	osc_trace_release(&t);
	osc_trace_init(&t);
	cr_assert_eq(osc_load_buffer("k3.json.gz", gz, n + 13, NULL, &t, &err), OSC_OK);
	cr_assert_eq(osc_trace_nr_written(&t), 8);
	cr_assert_eq(t.warnings[OSC_WARN_TRAILING_COMPRESSED].count, 1);
	cr_assert_eq(t.warnings[OSC_WARN_TRAILING_COMPRESSED].first_offset, (int64_t)n);
	cr_assert_eq(t.warnings[OSC_WARN_TRAILING_DATA].count, 0);
	cr_assert_eq(t.input_bytes, strlen(kineto_text));
}

Test(load, gzip_buffer_and_members)
{
	for (size_t i = 0; i < NR_INFLATERS; i++) {
		use_inflater(i);
		gzip_members();
	}
}

/* The error of a load that must fail, as one line. */
static void load_gz_error(const void *gz, size_t n, enum osc_status want, char *line, size_t size)
{
	osc_trace_release(&t);
	osc_trace_init(&t);
	cr_assert_eq(osc_load_buffer("bad.json.gz", gz, n, NULL, &t, &err), want);
	osc_error_format(&err, line, size);
}

static void gzip_cut_and_corrupt(char lines[3][1024])
{
	static unsigned char gz[1 << 16];
	size_t n = gzip(kineto_text, strlen(kineto_text), gz, sizeof(gz));

	osc_trace_release(&t);
	osc_trace_init(&t);

	/* Cut near the end: a cut file, its complete events kept with a warning. */
	cr_assert_eq(osc_load_buffer("cut.json.gz", gz, n - 12, NULL, &t, &err), OSC_OK);
	cr_assert_gt(t.nr_events, 0);
	cr_assert_eq(t.warnings[OSC_WARN_GZIP_CUT].count, 1);
	/* Cut right after the header: nothing to keep. */
	osc_trace_release(&t);
	osc_trace_init(&t);
	enum osc_status st = osc_load_buffer("cut.json.gz", gz, 12, NULL, &t, &err);
	cr_assert(st == OSC_GZIP || st == OSC_TRUNCATED, "status %d", st);
	/* A wrong CRC: all of it decodes, but it is not what was compressed. */
	gz[n - 8] ^= 0xff;
	load_gz_error(gz, n, OSC_GZIP, lines[0], sizeof(lines[0]));
	cr_assert(strstr(lines[0], "incorrect data check"), "%s", lines[0]);
	gz[n - 8] ^= 0xff;
	/* A wrong length. */
	gz[n - 2] ^= 0x01;
	load_gz_error(gz, n, OSC_GZIP, lines[1], sizeof(lines[1]));
	cr_assert(strstr(lines[1], "incorrect length check"), "%s", lines[1]);
	gz[n - 2] ^= 0x01;
	/* Not deflate data at all after a good header. */
	memset(gz + 10, 0xff, 64);
	load_gz_error(gz, n, OSC_GZIP, lines[2], sizeof(lines[2]));
	n = gzip(kineto_text, strlen(kineto_text), gz, sizeof(gz));
	/* Corrupt data. */
	gz[n / 2] ^= 0xff;
	gz[n / 2 + 1] ^= 0x55;
	osc_trace_release(&t);
	osc_trace_init(&t);
	st = osc_load_buffer("bad.json.gz", gz, n, NULL, &t, &err);
	cr_assert(st == OSC_OK || st == OSC_GZIP || st == OSC_NOT_JSON, "status %d", st);
}

/*
 * Cut anywhere, a gzip file keeps the same bytes with both inflaters (ISA-L
 * alone stops a few bits short of the cut): the same events, input size
 * and warnings. Under ASan, where each load's 2 MiB blocks are mapped and
 * poisoned again, every 29th cut rather than every 3rd.
 */
Test(load, gzip_cut_anywhere_same_bytes, .timeout = 240)
{
#if defined(__SANITIZE_ADDRESS__)
	const size_t step = 29;
#else
	const size_t step = 3;
#endif
	const char *root = getenv("OPSCOPE_SOURCE_ROOT");
	char path[4096];
	FILE *f;
	static char text[1 << 18];
	static unsigned char gz[1 << 17];
	size_t len, n;

	snprintf(path, sizeof(path), "%s/samples/ort-cnn-opt.json", root ? root : ".");
	f = fopen(path, "rb");
	cr_assert_not_null(f, "%s", path);
	len = fread(text, 1, sizeof(text), f);
	fclose(f);
	n = gzip(text, len, gz, sizeof(gz));
	for (size_t cut = 11; cut < n; cut += step) {
		uint64_t bytes[NR_INFLATERS];
		uint32_t events[NR_INFLATERS];
		enum osc_status st[NR_INFLATERS];

		for (size_t i = 0; i < NR_INFLATERS; i++) {
			use_inflater(i);
			osc_trace_release(&t);
			osc_trace_init(&t);
			st[i] = osc_load_buffer("cut.json.gz", gz, cut, NULL, &t, &err);
			bytes[i] = t.input_bytes;
			events[i] = osc_trace_nr_written(&t);
		}
		cr_assert_eq(st[0], st[1], "cut at %zu", cut);
		cr_assert_eq(bytes[0], bytes[1], "cut at %zu", cut);
		cr_assert_eq(events[0], events[1], "cut at %zu", cut);
	}
}

/* Cut, bad CRC, bad length, not deflate: the same rule and line from both inflaters. */
Test(load, gzip_truncated)
{
	char lines[NR_INFLATERS][3][1024];

	for (size_t i = 0; i < NR_INFLATERS; i++) {
		use_inflater(i);
		gzip_cut_and_corrupt(lines[i]);
	}
	/* at the same compressed byte, with the same words (zlib's) */
	for (int k = 0; k < 2; k++)
		cr_assert_str_eq(lines[0][k], lines[1][k]);
	cr_assert(strstr(lines[1][2], "bad.json.gz"), "%s", lines[1][2]);
}

/* ---- zstd -------------------------------------------------------------- */

#ifdef OPSCOPE_HAVE_ZSTD
#include <zstd.h>

/* One zstd frame of in[0..n) with a checksum into out. */
static size_t zstd(const void *in, size_t n, unsigned char *out, size_t cap)
{
	ZSTD_CCtx *c = ZSTD_createCCtx();
	size_t r;

	ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, 1);
	r = ZSTD_compress2(c, out, cap, in, n);
	ZSTD_freeCCtx(c);
	cr_assert(!ZSTD_isError(r));
	return r;
}

Test(load, zstd_buffer_frames_cut_and_checksum)
{
	static unsigned char z[1 << 16];
	size_t half = strlen(kineto_text) / 2, n;
	enum osc_status st;

	n = zstd(kineto_text, strlen(kineto_text), z, sizeof(z));
	cr_assert_eq(osc_load_buffer("k.json.zst", z, n, NULL, &t, &err), OSC_OK);
	cr_assert_str_eq(t.compression, "zstd");
	cr_assert_eq(osc_trace_nr_written(&t), 8);
	cr_assert_eq(t.file_bytes, n);
	cr_assert_eq(t.input_bytes, strlen(kineto_text));
	/* Two frames, split in the middle of an event, then bytes that are no frame. */
	n = zstd(kineto_text, half, z, sizeof(z));
	n += zstd(kineto_text + half, strlen(kineto_text) - half, z + n, sizeof(z) - n);
	memcpy(z + n, "junk", 4);
	osc_trace_release(&t);
	osc_trace_init(&t);
	cr_assert_eq(osc_load_buffer("k2.json.zst", z, n + 4, NULL, &t, &err), OSC_OK);
	cr_assert_eq(osc_trace_nr_written(&t), 8);
	cr_assert_eq(find("aten::logit_backward")->ts, 1712195495505583123LL);
	cr_assert_eq(t.warnings[OSC_WARN_TRAILING_COMPRESSED].count, 1);
	cr_assert_eq(t.warnings[OSC_WARN_TRAILING_COMPRESSED].first_offset, (int64_t)n);
	/* Cut before the end of the second frame: a cut file. */
	osc_trace_release(&t);
	osc_trace_init(&t);
	cr_assert_eq(osc_load_buffer("cut.json.zst", z, n - 6, NULL, &t, &err), OSC_OK);
	cr_assert_eq(t.warnings[OSC_WARN_GZIP_CUT].count, 1);
	cr_assert_gt(t.nr_events, 0);
	/* A wrong checksum (the frame's last 4 bytes): an error naming it. */
	n = zstd(kineto_text, strlen(kineto_text), z, sizeof(z));
	z[n - 1] ^= 0xff;
	osc_trace_release(&t);
	osc_trace_init(&t);
	st = osc_load_buffer("sum.json.zst", z, n, NULL, &t, &err);
	cr_assert_eq(st, OSC_GZIP);
	cr_assert(strstr(err.message, "checksum"), "%s", err.message);
}

/* A skippable frame (RFC 8878) of n bytes of payload at out. */
static size_t skippable(unsigned char *out, uint8_t nibble, uint32_t n)
{
	static const unsigned char magic[4] = { 0x50, 0x2a, 0x4d, 0x18 };

	memcpy(out, magic, 4);
	out[0] |= nibble;
	for (int i = 0; i < 4; i++)
		out[4 + i] = (unsigned char)(n >> (8 * i));
	memset(out + 8, 0xee, n);
	return 8 + n;
}

/* pzstd's layout: each frame after a skippable frame, the file's first too. */
Test(load, zstd_skippable_frames)
{
	static unsigned char z[1 << 16];
	size_t half = strlen(kineto_text) / 2, n;

	n = skippable(z, 0, 4);
	n += zstd(kineto_text, half, z + n, sizeof(z) - n);
	n += skippable(z + n, 0xf, 17);
	n += zstd(kineto_text + half, strlen(kineto_text) - half, z + n, sizeof(z) - n);
	cr_assert_eq(osc_load_buffer("p.json.zst", z, n, NULL, &t, &err), OSC_OK, "%s",
		     err.message);
	cr_assert_str_eq(t.compression, "zstd");
	cr_assert_eq(osc_trace_nr_written(&t), 8);
	cr_assert_eq(t.input_bytes, strlen(kineto_text));
	for (int w = 0; w < OSC_WARN_COUNT; w++)
		cr_assert_eq(t.warnings[w].count, 0, "%s", osc_warn_text((enum osc_warn)w));
	/* Bytes after the last frame: warned at their offset in the compressed file. */
	memcpy(z + n, "junk", 4);
	osc_trace_release(&t);
	osc_trace_init(&t);
	cr_assert_eq(osc_load_buffer("j.json.zst", z, n + 4, NULL, &t, &err), OSC_OK);
	cr_assert_eq(t.warnings[OSC_WARN_TRAILING_COMPRESSED].count, 1);
	cr_assert_eq(t.warnings[OSC_WARN_TRAILING_COMPRESSED].first_offset, (int64_t)n);
	cr_assert_eq(t.warnings[OSC_WARN_TRAILING_DATA].count, 0);
}

/* A frame whose window is past zstd's default limit (2^27), as `zstd --long` writes. */
Test(load, zstd_long_window)
{
	static unsigned char z[1 << 16];
	ZSTD_CCtx *c = ZSTD_createCCtx();
	ZSTD_inBuffer ib = { kineto_text, strlen(kineto_text), 0 };
	ZSTD_outBuffer ob = { z, sizeof(z), 0 };

	/* streamed without a pledged size, the header keeps the 2^28 window */
	ZSTD_CCtx_setParameter(c, ZSTD_c_windowLog, 28);
	cr_assert(!ZSTD_isError(ZSTD_compressStream2(c, &ob, &ib, ZSTD_e_continue)));
	cr_assert_eq(ZSTD_compressStream2(c, &ob, &ib, ZSTD_e_end), 0);
	ZSTD_freeCCtx(c);
	cr_assert_eq(ZSTD_getFrameContentSize(z, ob.pos), ZSTD_CONTENTSIZE_UNKNOWN,
		     "the frame says its size: its window may be cut to it");
	cr_assert_eq(osc_load_buffer("long.json.zst", z, ob.pos, NULL, &t, &err), OSC_OK, "%s",
		     err.message);
	cr_assert_eq(osc_trace_nr_written(&t), 8);
}
#endif

/* xz, bzip2, lz4 and zip are named, with the command that opens them. */
Test(load, other_compressors_are_named)
{
	static const char *const heads[] = { "\xfd\x37zXZ\0\0\0\0", "BZh91AY&SY", "PK\x03\x04\0\0" };
	static const char *const names[] = { "xz-compressed", "bzip2-compressed", "zip-compressed" };

	for (size_t i = 0; i < 3; i++) {
		cr_assert_eq(osc_load_buffer("x", heads[i], 10, NULL, &t, &err), OSC_BINARY);
		cr_assert(strstr(err.message, names[i]) && strstr(err.message, "| opscope -"), "%s",
			  err.message);
		osc_trace_release(&t);
		osc_trace_init(&t);
	}
}

/* A tar archive (say, of a profiler's log folder) is named, with how to read a member. */
Test(load, tar_archive_is_named)
{
	static char tar[1024];

	strcpy(tar, "log/trace.json");
	memcpy(tar + 257, "ustar\0" "00", 8);
	cr_assert_eq(osc_load_buffer("log.tar", tar, sizeof(tar), NULL, &t, &err), OSC_BINARY);
	cr_assert(strstr(err.message, "tar archive") && strstr(err.message, "tar -xOf"), "%s",
		  err.message);
	cr_assert_eq(err.offset, 257);
}

/* A gzip file through osc_load (mapped, sniffed by magic, not by name). */
Test(load, gzip_file_without_gz_name)
{
	static unsigned char gz[1 << 16];
	char path[] = "/tmp/opscope-test-XXXXXX";
	int fd = mkstemp(path);
	size_t n = gzip(ort_text, strlen(ort_text), gz, sizeof(gz));

	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, gz, n), (ssize_t)n);
	close(fd);
	cr_assert_eq(osc_load(path, NULL, &t, &err), OSC_OK);
	unlink(path);
	cr_assert_str_eq(t.compression, "gzip");
	cr_assert_eq(t.format, OSC_FORMAT_ORT);
	cr_assert_eq(osc_trace_nr_written(&t), 6);
	cr_assert_str_eq(t.path, path);
}

/* ---- progress and cancel ------------------------------------------------ */

static char *big_trace(size_t events, size_t *len)
{
	size_t cap = events * 120 + 16, n = 0;
	char *s = malloc(cap);

	s[n++] = '[';
	for (size_t i = 0; i < events; i++)
		n += (size_t)snprintf(s + n, cap - n,
				      "%s{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::op%zu\","
				      "\"pid\":1,\"tid\":1,\"ts\":%zu,\"dur\":1}",
				      i ? ",\n" : "", i % 50, i);
	s[n++] = ']';
	*len = n;
	return s;
}

static void count_progress(const struct osc_load_progress *p, void *userdata)
{
	size_t *calls = userdata;

	cr_assert_leq(p->bytes_read, p->bytes_total);
	(*calls)++;
}

Test(load, progress_and_cancel)
{
	size_t len, calls = 0;
	char *s = big_trace(200000, &len);
	volatile int cancel = 0;
	struct osc_load_opts opts = { .progress = count_progress, .userdata = &calls,
				      .cancel = &cancel };

	cr_assert_gt(len, 12u << 20);
	cr_assert_eq(osc_load_buffer("big.json", s, len, &opts, &t, &err), OSC_OK);
	cr_assert_eq(osc_trace_nr_written(&t), 200000);
	cr_assert_geq(calls, 3);
	cancel = 1;
	osc_trace_release(&t);
	osc_trace_init(&t);
	cr_assert_eq(osc_load_buffer("big.json", s, len, &opts, &t, &err), OSC_CANCELLED);
	cr_assert_eq(osc_trace_nr_written(&t), 0);
	free(s);
}

struct progress_log {
	uint64_t read[256];
	size_t nr;
};

static void log_progress(const struct osc_load_progress *p, void *userdata)
{
	struct progress_log *log = userdata;

	cr_assert_leq(p->bytes_read, p->bytes_total);
	if (log->nr < 256)
		log->read[log->nr++] = p->bytes_read;
}

/* A mapped file is read at once: its progress follows the parse, up to the whole. */
Test(load, progress_of_a_mapped_file_follows_the_parse)
{
	size_t len;
	char *s = big_trace(200000, &len);
	char path[] = "/tmp/opscope-progress-XXXXXX";
	int fd = mkstemp(path);
	struct progress_log log = { .nr = 0 };
	struct osc_load_opts opts = { .progress = log_progress, .userdata = &log };

	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, s, len), (ssize_t)len);
	close(fd);
	cr_assert_eq(osc_load(path, &opts, &t, &err), OSC_OK);
	unlink(path);
	free(s);
	cr_assert_geq(log.nr, 3);
	cr_expect_lt(log.read[0], len, "the first report is not the whole file");
	for (size_t i = 1; i < log.nr; i++)
		cr_expect_geq(log.read[i], log.read[i - 1]);
	cr_expect_eq(log.read[log.nr - 1], len);
}

/* ---- a file that shrinks while it is mapped -------------------------------- */

struct shrink {
	const char *path;
	off_t to;
	bool done;
};

/* A profiler running again into the file: it is cut while the load reads it. */
static void shrink_file(const struct osc_load_progress *p, void *userdata)
{
	struct shrink *s = userdata;

	(void)p;
	if (!s->done)
		cr_assert_eq(truncate(s->path, s->to), 0);
	s->done = true;
}

static char *write_temp(const char *text, size_t len)
{
	static char path[64];
	int fd;

	snprintf(path, sizeof(path), "/tmp/opscope-shrink-XXXXXX");
	fd = mkstemp(path);
	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, text, len), (ssize_t)len);
	close(fd);
	return path;
}

/* SIGBUS on the mapping is caught: one error naming the file and its new size. */
Test(load, file_shrinking_while_loaded_is_an_error)
{
	size_t len;
	/* Under 8 MB: parsed on one thread, which reads on past the cut. */
	char *s = big_trace(75000, &len);
	char *path = write_temp(s, len);
	struct shrink sh = { .path = path, .to = 1 << 20 };
	struct osc_load_opts opts = { .progress = shrink_file, .userdata = &sh };
	char line[1024];

	free(s);
	cr_assert_lt(len, 8u << 20);
	cr_assert_gt(len, 5u << 20);
	cr_assert_eq(osc_load(path, &opts, &t, &err), OSC_IO);
	unlink(path);
	cr_assert(sh.done);
	cr_assert_eq(osc_trace_nr_written(&t), 0);
	osc_error_format(&err, line, sizeof(line));
	cr_assert(strstr(line, "shrank"), "%s", line);
	cr_assert_eq(err.offset, 1 << 20, "%s", line);
	cr_assert_str_eq(err.subject, path);
}

/*
 * The SIGBUS itself: a read of a mapped page past the file's end (what a
 * file cut while mapped gives) reads zeros and is noted, instead of killing
 * the process.
 */
Test(load, a_read_past_the_end_of_a_watched_mapping_is_caught)
{
	long page = sysconf(_SC_PAGESIZE);
	char *path = write_temp("x", 1);
	int fd = open(path, O_RDONLY);
	volatile const char *map;
	struct osc_mapguard *g;
	uint64_t size;

	cr_assert_geq(fd, 0);
	map = mmap(NULL, (size_t)page * 4, PROT_READ, MAP_PRIVATE, fd, 0);
	cr_assert_neq((void *)map, MAP_FAILED);
	g = osc_mapguard_watch((const void *)map, (size_t)page * 4, fd);
	close(fd);
	unlink(path);
	cr_assert_eq(map[0], 'x');
	/* A mapping longer than its file: the kernel sends SIGBUS for this read. */
	cr_assert_eq(map[page * 2], 0, "past the end: zeros, not SIGBUS");
	cr_assert(osc_mapguard_shrunk(g, &size));
	cr_assert_eq(size, 1);
	cr_assert(osc_mapguard_changed(g));
	osc_mapguard_free(g);
	munmap((void *)map, (size_t)page * 4);
}

/* Args read later from a file that shrank are not read (no SIGBUS) and said to be lost. */
Test(load, args_of_a_file_that_shrank_after_the_load)
{
	char *path = write_temp(ort_text, strlen(ort_text));
	const struct osc_event *conv;

	cr_assert_eq(osc_load(path, NULL, &t, &err), OSC_OK);
	conv = find("conv1_kernel_time");
	cr_assert(strstr(osc_trace_args(&t, (uint32_t)(conv - t.events)), "input_type_shape"));
	cr_assert_not(osc_trace_args_lost(&t));
	cr_assert_eq(truncate(path, 0), 0);
	cr_assert(osc_trace_args_lost(&t));
	cr_assert_str_eq(osc_trace_args(&t, (uint32_t)(conv - t.events)), "");
	/* Rewritten longer: still not the file that was loaded (callers ask). */
	FILE *f = fopen(path, "w");
	for (int i = 0; i < 4; i++)
		fputs(ort_text, f);
	fclose(f);
	cr_assert(osc_trace_args_lost(&t));
	unlink(path);
}

/* ---- the real traces ----------------------------------------------------- */

static size_t nr_loaded;

static int load_one(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
	size_t n = strlen(path);
	struct osc_trace tr;
	struct osc_error e;
	char line[1024];

	(void)sb;
	(void)ftw;
	if (type != FTW_F || !((n > 5 && !strcmp(path + n - 5, ".json")) ||
			       (n > 8 && !strcmp(path + n - 8, ".json.gz"))))
		return 0;
	osc_trace_init(&tr);
	enum osc_status st = osc_load(path, NULL, &tr, &e);
	osc_error_format(&e, line, sizeof(line));
	cr_expect_eq(st, OSC_OK, "%s", line);
	/* only-begin-events.json keeps nothing: its B events are all unmatched. */
	cr_expect(osc_trace_nr_written(&tr) + tr.nr_metadata +
			  tr.warnings[OSC_WARN_UNMATCHED_BEGIN].count > 0,
		  "%s: nothing loaded", path);
	uint64_t phases = 0;
	for (int i = 0; i < 256; i++)
		phases += tr.ph_counts[i];
	cr_expect_geq(phases, osc_trace_nr_written(&tr), "%s", path);
	if (strstr(path, "hta/trace_filter/sampled_rank-0.json.gz")) {
		cr_expect_eq(tr.ph_counts['X'], 4811);
		cr_expect_eq(tr.ph_counts['M'], 44);
		cr_expect_eq(osc_trace_nr_written(&tr), 4811);
		cr_expect_eq(tr.nr_metadata, 44);
		cr_expect_eq(tr.format, OSC_FORMAT_KINETO);
	}
	if (strstr(path, "hta/trace_diff/control.json.gz")) {
		cr_expect_eq(osc_trace_nr_written(&tr), 74937 + 24692 + 9450 + 2);
		cr_expect_eq(tr.nr_metadata, 42);
	}
	if (strstr(path, "ort-riscv/resnet_inference_gemmini.json")) {
		cr_expect_eq(tr.format, OSC_FORMAT_ORT);
		cr_expect_eq(osc_trace_nr_written(&tr), 235);
	}
	if (strstr(path, "generated/torch-"))
		cr_expect_eq(tr.format, OSC_FORMAT_PYTORCH_LEGACY);
	if (strstr(path, "generated/ort-"))
		cr_expect_eq(tr.format, OSC_FORMAT_ORT);
	if (strstr(path, "speedscope/simple-partial"))
		cr_expect_eq(tr.warnings[OSC_WARN_TRUNCATED].count, 1);
	if (strstr(path, "speedscope/only-begin-events.json"))
		cr_expect_eq(tr.warnings[OSC_WARN_UNMATCHED_BEGIN].count, 3);
	osc_trace_release(&tr);
	nr_loaded++;
	return 0;
}

/* Call fn on every file under the source tree's dir; a missing dir skips the test. */
static void walk_files(const char *dir, int (*fn)(const char *, const struct stat *, int,
						   struct FTW *))
{
	const char *root = getenv("OPSCOPE_SOURCE_ROOT");
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", root ? root : ".", dir);
	if (access(path, R_OK) != 0)
		cr_skip_test("%s is absent", path);
	cr_assert_eq(nftw(path, fn, 16, FTW_PHYS), 0);
}

Test(load, shared_traces, .timeout = 120)
{
	walk_files("../shared/traces", load_one);
	cr_assert_gt(nr_loaded, 30);
}

/*
 * The 2021 Kineto sample writes "external id" on device events and
 * "External id" on ops: every event whose args hold either has its ext_id.
 */
Test(load, kineto_2021_external_id_spellings, .timeout = 60)
{
	const char *root = getenv("OPSCOPE_SOURCE_ROOT");
	char path[4096];
	size_t lower = 0, upper = 0;

	snprintf(path, sizeof(path), "%s/samples/kineto-2021-resnet50.json.gz", root ? root : ".");
	if (access(path, R_OK) != 0)
		cr_skip_test("%s is absent", path);
	cr_assert_eq(osc_load(path, NULL, &t, &err), OSC_OK, "%s", err.message);
	for (uint32_t i = 0; i < t.nr_events; i++) {
		const char *args = osc_trace_args(&t, i);
		bool lo = strstr(args, "\"external id\":") != NULL;
		bool up = strstr(args, "\"External id\":") != NULL;

		lower += lo;
		upper += up;
		cr_assert_eq(lo || up, t.events[i].ext != OSC_ID_NONE, "event %u: %s", i, args);
	}
	cr_assert_gt(lower, 10000);
	cr_assert_gt(upper, 10000);
}

/* ---- parallel parsing, crashers, truncated real traces ------------------ */

/*
 * A trace big enough to be cut into shards, with the things a cut must not
 * break: args holding pretty-printed arrays of objects (cut candidates inside
 * an event), B/E pairs across shards, metadata late in the file, kernels,
 * escapes, non-ASCII and repaired quotes (args copied, not referenced),
 * ids beyond 31 bits (each shard codes its own, osc_trace_id).
 */
static char *shard_trace(size_t events, size_t *len)
{
	size_t cap = events * 400 + 4096, n = 0;
	char *s = malloc(cap);

	n += (size_t)snprintf(s + n, cap - n, "{\"schemaVersion\":1,\"traceEvents\":[\n");
	for (size_t i = 0; i < events; i++) {
		const char *sep = i ? ",\n  " : "  ";

		switch (i % 7) {
		case 0: /* a provider only late in the file (has_providers from a later shard) */
			n += (size_t)snprintf(s + n, cap - n,
				"%s{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::op%zu\",\"pid\":1,"
				"\"tid\":%zu,\"ts\":%zu.5,\"dur\":3,\"args\":{\"External id\":%lld,\n"
				"    \"l\":[{\"a\":1},\n    {\"b\":\"x\"}]%s}}", sep, i % 13, i % 3, i,
				i % 2 ? (long long)i : -(long long)i, /* ids past 31 bits too */
				i + 7 >= events ? ",\"provider\":\"CPUExecutionProvider\"" : "");
			break;
		case 1: /* begins, every other one with an op and a provider of its own */
			n += (size_t)snprintf(s + n, cap - n,
				"%s{\"ph\":\"B\",\"name\":\"range\",\"pid\":2,\"tid\":1,\"ts\":%zu,"
				"\"args\":{\"k\":%zu%s%zu%s}}", sep, i, i,
				i % 2 ? ",\"op_name\":\"Range" : ",\"n\":\"", i % 5,
				i % 2 ? "\",\"provider\":\"RangeProvider\"" : "\"");
			break;
		case 2:
			n += (size_t)snprintf(s + n, cap - n,
				"%s{\"ph\":\"E\",\"pid\":2,\"tid\":1,\"ts\":%zu}", sep, i + 100);
			break;
		case 3:
			n += (size_t)snprintf(s + n, cap - n,
				"%s{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\\u00e9%zu\",\"pid\":0,"
				"\"tid\":7,\"ts\":%zu,\"dur\":2,\"args\":{\"grid\":[1,2,3],"
				"\"block\":[4,1,1],\"stream\":7,\"correlation\":%llu,\"s\":\"\xc3\xa9\"}}",
				sep, i % 5, i,
				i % 2 ? (unsigned long long)i : 5000000000ull + i % 1000);
			break;
		case 4:
			n += (size_t)snprintf(s + n, cap - n,
				"%s{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":1,\"tid\":%zu,"
				"\"args\":{\"name\":\"thread %zu\"}}", sep, i % 3, i);
			break;
		case 5:
			n += (size_t)snprintf(s + n, cap - n,
				"%s{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"say \"hi\" %zu\",\"pid\":1,"
				"\"tid\":0,\"ts\":%zu,\"dur\":1,\"args\":{\"q\":\"a \"b\" c\"}}", sep,
				i % 4, i);
			break;
		default:
			/* flows start with a range (after it: the range lasts) and end
			   with a mark (after it: the mark comes first in the file) */
			if (i % 28 == 13 || i % 28 == 27)
				n += (size_t)snprintf(s + n, cap - n,
					"%s{\"ph\":\"%s\",\"cat\":\"ac2g\",\"name\":\"ac2g\",\"pid\":2,"
					"\"tid\":1,\"ts\":%zu,\"id\":%zu%s}", sep,
					i % 28 == 13 ? "s" : "f", i % 28 == 13 ? i - 12 : i - 7, i / 28,
					i % 56 == 13 ? ",\"args\":{\"n\":1}" : "");
			else
				n += (size_t)snprintf(s + n, cap - n,
					"%s{\"ph\":\"i\",\"name\":\"mark\",\"pid\":\"Traces\","
					"\"tid\":\"x\",\"ts\":%zu,\"s\":\"g\"}", sep, i);
			break;
		}
	}
	n += (size_t)snprintf(s + n, cap - n, "\n],\"traceName\":\"t\"}");
	*len = n;
	return s;
}

/* shard_trace(events) as text (*len bytes), and loaded from memory into plain. */
static char *shard_trace_loaded(size_t events, size_t *len, struct osc_trace *plain)
{
	char *s = shard_trace(events, len);

	osc_trace_init(plain);
	cr_assert_eq(osc_load_buffer("p.json", s, *len, NULL, plain, &err), OSC_OK);
	return s;
}

static void expect_same_model(const struct osc_trace *a, const struct osc_trace *b)
{
	char *own = NULL;
	size_t own_alloc = 0;

	cr_assert_eq(a->nr_events, b->nr_events);
	cr_assert_eq(a->nr_flows, b->nr_flows);
	for (size_t i = 0; i < a->nr_flows; i++) {
		const struct osc_flow *x = &a->flows[i], *y = &b->flows[i];

		cr_assert_eq(x->ts, y->ts, "flow %zu", i);
		cr_assert_eq(x->at, y->at, "flow %zu", i);
		cr_assert_eq(osc_flow_ph(x), osc_flow_ph(y), "flow %zu", i);
		cr_assert_eq(x->thread, y->thread, "flow %zu", i);
		cr_assert_eq(osc_trace_id_value(a, x->id), osc_trace_id_value(b, y->id));
		cr_assert_str_eq(osc_trace_str(a, osc_trace_flow_name(a, x)->name),
				 osc_trace_str(b, osc_trace_flow_name(b, y)->name));
		cr_assert_str_eq(osc_trace_str(a, osc_trace_flow_name(a, x)->cat),
				 osc_trace_str(b, osc_trace_flow_name(b, y)->cat));
		cr_assert_str_eq(osc_trace_flow_args(a, (uint32_t)i), osc_trace_flow_args(b, (uint32_t)i));
	}
	cr_assert_eq(a->nr_kernels, b->nr_kernels);
	cr_assert_eq(a->nr_threads, b->nr_threads);
	cr_assert_eq(a->nr_metadata, b->nr_metadata);
	cr_assert_eq(a->format, b->format);
	cr_assert_eq(a->has_providers, b->has_providers);
	cr_assert_str_eq(a->meta_json, b->meta_json);
	for (int w = 0; w < OSC_WARN_COUNT; w++) {
		cr_assert_eq(a->warnings[w].count, b->warnings[w].count, "warning %d", w);
		cr_assert_eq(a->warnings[w].first_offset, b->warnings[w].first_offset, "w %d", w);
	}
	for (size_t i = 0; i < a->nr_threads; i++) {
		const struct osc_thread *x = &a->threads[i], *y = &b->threads[i];

		cr_assert_str_eq(osc_trace_str(a, x->pid), osc_trace_str(b, y->pid));
		cr_assert_str_eq(osc_trace_str(a, x->tid), osc_trace_str(b, y->tid));
		cr_assert_str_eq(osc_trace_str(a, x->thread_name), osc_trace_str(b, y->thread_name));
		cr_assert_eq(x->nr_events, y->nr_events);
	}
	for (size_t i = 0; i < a->nr_events; i++) {
		const struct osc_event *x = &a->events[i], *y = &b->events[i];
		char *args;

		cr_assert_eq(x->ts, y->ts, "event %zu", i);
		cr_assert_eq(x->dur, y->dur, "event %zu", i);
		cr_assert_eq(osc_trace_id_value(a, x->corr_id), osc_trace_id_value(b, y->corr_id));
		cr_assert_eq(osc_trace_id_value(a, x->ext), osc_trace_id_value(b, y->ext));
		cr_assert_eq(x->thread, y->thread);
		cr_assert_eq(x->kind, y->kind);
		cr_assert_eq(x->flags, y->flags);
		cr_assert_eq(x->kernel == OSC_NONE, y->kernel == OSC_NONE);
		if (x->kernel != OSC_NONE) {
			const struct osc_kernel *ka = &a->kernels[x->kernel];
			const struct osc_kernel *kb = &b->kernels[y->kernel];

			cr_assert_arr_eq(ka, kb, sizeof(*ka), "event %zu", i);
		}
		cr_assert_str_eq(osc_trace_str(a, x->name), osc_trace_str(b, y->name));
		cr_assert_str_eq(osc_trace_str(a, x->cat), osc_trace_str(b, y->cat));
		cr_assert_str_eq(osc_trace_str(a, osc_trace_op(a, i)), osc_trace_str(b, osc_trace_op(b, i)));
		cr_assert_str_eq(osc_trace_str(a, x->shape), osc_trace_str(b, y->shape));
		cr_assert_str_eq(osc_trace_str(a, osc_trace_provider(a, i)),
				 osc_trace_str(b, osc_trace_provider(b, i)));
		/* a copy: a's next render reuses its buffer */
		args = strdup(osc_trace_args(a, (uint32_t)i));
		cr_assert_str_eq(args, osc_trace_args(b, (uint32_t)i), "event %zu", i);
		/* the threads' reader renders the same text into its own buffer */
		cr_assert_str_eq(args, osc_trace_args_into(a, (uint32_t)i, &own, &own_alloc),
				 "event %zu", i);
		free(args);
	}
	free(own);
}

/* Mapped and parsed on all cores (args by reference) == inflated in one pass. */
Test(load, parallel_matches_sequential, .timeout = 120)
{
	size_t len, zlen, ranges;
	char *s = shard_trace(120000, &len);
	unsigned char *z = malloc(len + 1024);
	char path[] = "/tmp/opscope-par-XXXXXX";
	int fd = mkstemp(path);
	struct osc_trace seq;

	cr_assert_gt(len, 10u << 20);
	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, s, len), (ssize_t)len);
	close(fd);
	zlen = gzip(s, len, z, len + 1024);
	cr_assert_eq(osc_load(path, NULL, &t, &err), OSC_OK, "%s", err.message);
	cr_assert_not_null(t.args_src);
	osc_trace_init(&seq);
	cr_assert_eq(osc_load_buffer("seq.json.gz", z, zlen, NULL, &seq, &err), OSC_OK);
	cr_assert_null(seq.args_src);
	cr_assert_gt(t.warnings[OSC_WARN_UNESCAPED_QUOTE].count, 0);
	cr_assert(t.has_providers);
	/* the begins' own ops, matched to their ends after the shards merge */
	ranges = 0;
	for (size_t i = 0; i < t.nr_events; i++)
		ranges += !strncmp(S(osc_trace_op(&t, i)), "Range", 5);
	cr_assert_gt(ranges, 1000);
	/* each op's External id and each kernel's correlation, as written (their
	   ts say which event of shard_trace they are) */
	for (size_t i = 0; i < t.nr_events; i++) {
		const struct osc_event *e = &t.events[i];
		long long n = (long long)(e->ts / 1000);

		if (e->kind == OSC_KIND_HOST_OP && e->ts % 1000 == 500)
			cr_assert_eq(osc_trace_id_value(&t, e->ext), n % 2 ? n : -n, "op %lld", n);
		if (e->kind == OSC_KIND_KERNEL)
			cr_assert_eq(osc_trace_id_value(&t, e->corr_id),
				     n % 2 ? n : 5000000000ll + n % 1000, "kernel %lld", n);
	}
	expect_same_model(&t, &seq);
	osc_trace_release(&seq);
	unlink(path);
	free(s);
	free(z);
}

static void write_file(char *path, const void *data, size_t len)
{
	int fd = mkstemp(path);

	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, data, len), (ssize_t)len);
	close(fd);
}

/*
 * A gzip file is inflated on its own thread into anonymous memory that the
 * parser reads as it fills (the tail parsed on all cores once inflation
 * ends), copying args as they are and giving that memory back as it goes;
 * a buffer input streams through a buffer instead (args minified). Both
 * inflaters, all ways, give the plain file's model.
 */
Test(load, gzip_spooled_matches_plain, .timeout = 240)
{
	size_t len, zlen;
	char *s = shard_trace(120000, &len);
	unsigned char *z = malloc(len + 1024);
	char plain[] = "/tmp/opscope-plain-XXXXXX", gz[] = "/tmp/opscope-gz-XXXXXX";
	struct osc_trace spooled, streamed;

	zlen = gzip(s, len, z, len + 1024);
	write_file(plain, s, len);
	write_file(gz, z, zlen);
	cr_assert_eq(osc_load(plain, NULL, &t, &err), OSC_OK, "%s", err.message);
	cr_assert_not_null(t.args_src);
	for (size_t i = 0; i < NR_INFLATERS; i++) {
		use_inflater(i);
		osc_trace_init(&spooled);
		cr_assert_eq(osc_load(gz, NULL, &spooled, &err), OSC_OK, "%s", err.message);
		cr_assert_str_eq(spooled.compression, "gzip");
		cr_assert_eq(spooled.input_bytes, len);
		cr_assert_eq(spooled.file_bytes, zlen);
		cr_assert_null(spooled.args_src); /* args copied: the spool is gone */
		cr_assert_gt(spooled.nr_raw, 0);
		/* the file's pages come back when read; the copies are not touched */
		osc_trace_args_give_back(&t);
		osc_trace_args_give_back(&spooled);
		expect_same_model(&t, &spooled);
		osc_trace_release(&spooled);
		osc_trace_init(&streamed);
		cr_assert_eq(osc_load_buffer("buf.json.gz", z, zlen, NULL, &streamed, &err), OSC_OK);
		cr_assert_null(streamed.args_src);
		expect_same_model(&t, &streamed);
		osc_trace_release(&streamed);
	}
	unlink(plain);
	unlink(gz);
	free(s);
	free(z);
}

/*
 * Inflated bytes beyond the first reservation of memory (a file that
 * compresses 1000:1, mostly white space between events): the inflating
 * thread waits for room and the window moves; nothing is lost. Where the
 * memory cannot grow (here: address space limited, which ASan's shadow
 * cannot live with), the rest is handed over in blocks, the same.
 */
Test(load, gzip_spool_grows, .timeout = 240)
{
	const size_t pad = (size_t)300 << 20;
	size_t head = strlen(kineto_text) / 2, len = strlen(kineto_text) + pad, zlen;
	char *s = malloc(len), path[] = "/tmp/opscope-grow-XXXXXX";
	unsigned char *z = malloc(len / 100);
	struct osc_trace plain;

	/* the padding between two events */
	head = (size_t)(strstr(kineto_text + head, "},\n") + 3 - kineto_text);
	memcpy(s, kineto_text, head);
	memset(s + head, ' ', pad);
	memcpy(s + head + pad, kineto_text + head, strlen(kineto_text) - head);
	zlen = gzip(s, len, z, len / 100);
	free(s);
	write_file(path, z, zlen);
	osc_trace_init(&plain);
	cr_assert_eq(osc_load_buffer("k.json", kineto_text, strlen(kineto_text), NULL, &plain,
				     &err), OSC_OK);
	for (size_t i = 0; i < NR_INFLATERS; i++) {
		use_inflater(i);
		osc_trace_release(&t);
		osc_trace_init(&t);
		cr_assert_eq(osc_load(path, NULL, &t, &err), OSC_OK, "%s", err.message);
		cr_assert_eq(t.input_bytes, len);
		expect_same_model(&plain, &t);
	}
#if !defined(__SANITIZE_ADDRESS__)
	long vm_pages = 0;
	FILE *statm;

	osc_trace_release(&t); /* and its memory */
	osc_trace_init(&t);
	statm = fopen("/proc/self/statm", "r");
	cr_assert_not_null(statm);
	cr_assert_eq(fscanf(statm, "%ld", &vm_pages), 1);
	fclose(statm);
	/* room for the first 256 MB reservation, not for its growth */
	rlim_t as = (rlim_t)vm_pages * (rlim_t)sysconf(_SC_PAGESIZE) + ((rlim_t)400 << 20);

	cr_assert_eq(setrlimit(RLIMIT_AS, &(struct rlimit){ as, as }), 0);
	for (size_t i = 0; i < NR_INFLATERS; i++) {
		use_inflater(i);
		osc_trace_release(&t);
		osc_trace_init(&t);
		cr_assert_eq(osc_load(path, NULL, &t, &err), OSC_OK, "%s", err.message);
		cr_assert_eq(t.input_bytes, len);
		expect_same_model(&plain, &t);
	}
#endif
	osc_trace_release(&plain);
	unlink(path);
	free(z);
}

/*
 * Data after the trace in the same member: the parser is done while the
 * decoder still inflates into memory the trace keeps (args refer to it).
 */
Test(load, gzip_data_after_the_trace, .timeout = 120)
{
	const size_t junk = (size_t)64 << 20;
	size_t len = strlen(kineto_text) + junk, zlen;
	char *s = malloc(len), path[] = "/tmp/opscope-junk-XXXXXX";
	unsigned char *z = malloc(len / 100);

	memcpy(s, kineto_text, strlen(kineto_text));
	memset(s + strlen(kineto_text), 'x', junk);
	zlen = gzip(s, len, z, len / 100);
	write_file(path, z, zlen);
	for (size_t i = 0; i < NR_INFLATERS; i++) {
		use_inflater(i);
		osc_trace_release(&t);
		osc_trace_init(&t);
		cr_assert_eq(osc_load(path, NULL, &t, &err), OSC_OK, "%s", err.message);
		cr_assert_eq(osc_trace_nr_written(&t), 8);
		cr_assert_eq(t.warnings[OSC_WARN_TRAILING_DATA].count, 1);
		/* the args are read from the kept memory after the load */
		cr_assert(strstr(osc_trace_args(&t, (uint32_t)(find("aten::logit_backward") - t.events)),
				 "\"External id\":41538"));
	}
	unlink(path);
	free(s);
	free(z);
}

struct pipe_writer {
	int fd;
	const unsigned char *p;
	size_t n;
};

/* Write in small odd pieces, so gzip members straddle the reader's reads. */
static void *write_pieces(void *arg)
{
	struct pipe_writer *w = arg;

	for (size_t off = 0; off < w->n;) {
		size_t k = w->n - off < 4093 ? w->n - off : 4093;
		ssize_t r = write(w->fd, w->p + off, k);

		if (r <= 0)
			break;
		off += (size_t)r;
	}
	close(w->fd);
	return NULL;
}

/* Load standard input while a thread writes z[0..n) to it in pieces. */
static enum osc_status load_pipe(const unsigned char *z, size_t n)
{
	int fds[2];
	pthread_t th;
	struct pipe_writer w;
	enum osc_status st;

	cr_assert_eq(pipe(fds), 0);
	cr_assert_geq(dup2(fds[0], 0), 0);
	close(fds[0]);
	w = (struct pipe_writer){ fds[1], z, n };
	cr_assert_eq(pthread_create(&th, NULL, write_pieces, &w), 0);
	osc_trace_release(&t);
	osc_trace_init(&t);
	st = osc_load("-", NULL, &t, &err);
	/* a failed load stops reading: let the writer finish */
	while (read(0, (char[4096]){ 0 }, 4096) > 0)
		;
	pthread_join(th, NULL);
	return st;
}

/*
 * Many gzip members on standard input, read from a pipe in pieces that
 * split members (and their trailers) anywhere: the same model as the plain
 * text; a wrong CRC in the last member is found (its trailer straddles
 * reads) and said the same way by both inflaters.
 */
Test(load, gzip_members_on_a_pipe, .timeout = 120)
{
	size_t len, zlen = 0, step;
	struct osc_trace plain;
	char *s = shard_trace_loaded(20000, &len, &plain);
	unsigned char *z = malloc(len + 65536);

	step = len / 97 + 1;
	for (size_t off = 0; off < len; off += step)
		zlen += gzip(s + off, len - off < step ? len - off : step, z + zlen, len + 65536 - zlen);
	for (size_t i = 0; i < NR_INFLATERS; i++) {
		use_inflater(i);
		cr_assert_eq(load_pipe(z, zlen), OSC_OK, "%s", err.message);
		cr_assert_eq(t.input_bytes, len);
		cr_assert_eq(t.file_bytes, zlen);
		cr_assert_eq(t.warnings[OSC_WARN_TRAILING_DATA].count, 0);
		expect_same_model(&plain, &t);
		z[zlen - 8] ^= 0xff;
		cr_assert_eq(load_pipe(z, zlen), OSC_GZIP);
		cr_assert(strstr(err.message, "incorrect data check"), "%s", err.message);
		z[zlen - 8] ^= 0xff;
	}
	osc_trace_release(&plain);
	free(s);
	free(z);
}

/*
 * Plain text on standard input, read on a thread of its own while the
 * parser reads what came (the rest parsed on all cores once the writer is
 * done): the file's model, its bytes counted once.
 */
Test(load, plain_text_on_a_pipe, .timeout = 120)
{
	size_t len;
	struct osc_trace plain;
	char *s = shard_trace_loaded(120000, &len, &plain);

	for (int i = 0; i < 2; i++) {
		cr_assert_eq(load_pipe((const unsigned char *)s, len), OSC_OK, "%s", err.message);
		cr_assert_eq(t.input_bytes, len);
		cr_assert_eq(t.file_bytes, len);
		cr_assert_null(t.compression);
		cr_assert_gt(t.nr_raw, 0); /* args copied: the spool is gone */
		cr_assert_null(t.args_src);
		expect_same_model(&plain, &t);
	}
	osc_trace_release(&plain);
	free(s);
}

/*
 * Standard input redirected from a file is mapped like the file (args read
 * from it, nothing copied); read on from past its start (a file with 5
 * bytes before the trace), it streams from there (args copied). Both give
 * the file's model.
 */
Test(load, standard_input_from_a_file, .timeout = 60)
{
	size_t len;
	struct osc_trace plain;
	char *s = shard_trace_loaded(20000, &len, &plain);

	for (int at = 0; at <= 5; at += 5) {
		char path[] = "/tmp/opscope-stdin-XXXXXX";
		int fd = mkstemp(path);

		cr_assert_geq(fd, 0);
		cr_assert_eq(write(fd, "junk!", (size_t)at), at);
		cr_assert_eq(write(fd, s, len), (ssize_t)len);
		cr_assert_eq(lseek(fd, at, SEEK_SET), at);
		cr_assert_geq(dup2(fd, 0), 0);
		close(fd);
		osc_trace_release(&t);
		osc_trace_init(&t);
		cr_assert_eq(osc_load("-", NULL, &t, &err), OSC_OK, "%s", err.message);
		if (at)
			cr_assert_gt(t.nr_raw, 0);
		else
			cr_assert_not_null(t.args_src);
		expect_same_model(&plain, &t);
		unlink(path);
	}
	osc_trace_release(&plain);
	free(s);
}

/* Inputs the fuzzer once crashed on: they load or fail cleanly. */
static int load_crasher(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
	struct osc_trace tr;
	struct osc_error e;

	(void)sb;
	(void)ftw;
	if (type != FTW_F || strstr(path, "README"))
		return 0;
	osc_trace_init(&tr);
	if (osc_load(path, NULL, &tr, &e) == OSC_OK)
		for (uint32_t i = 0; i < tr.nr_events; i++)
			(void)osc_trace_args(&tr, i);
	osc_trace_release(&tr);
	return 0;
}

Test(load, crashers_replay)
{
	walk_files("tests/data/crashers", load_crasher);
}

/*
 * A real trace cut at many offsets: never a crash; a cut inside the events
 * loads with the TRUNCATED warning (or OSC_TRUNCATED before the first
 * complete event) and keeps more events the later the cut.
 */
static void truncate_trace(const char *path)
{
	FILE *f = fopen(path, "rb");
	size_t len, prev = 0;
	char *s;

	if (!f)
		return;
	fseek(f, 0, SEEK_END);
	len = (size_t)ftell(f);
	fseek(f, 0, SEEK_SET);
	s = malloc(len + 1);
	cr_assert_eq(fread(s, 1, len, f), len);
	fclose(f);
	osc_trace_release(&t);
	osc_trace_init(&t);
	cr_assert_eq(osc_load_buffer(path, s, len, NULL, &t, &err), OSC_OK);
	size_t full = osc_trace_nr_written(&t);

	for (size_t k = 1; k < 97; k++) {
		size_t n = len * k / 97 + k % 7;
		enum osc_status st;

		osc_trace_release(&t);
		osc_trace_init(&t);
		st = osc_load_buffer(path, s, n, NULL, &t, &err);
		if (st == OSC_TRUNCATED) {
			cr_assert_eq(prev, 0, "%s cut at %zu: nothing after %zu events", path, n, prev);
			continue;
		}
		cr_assert_eq(st, OSC_OK, "%s cut at %zu: %s", path, n, err.message);
		cr_assert_eq(t.warnings[OSC_WARN_TRUNCATED].count, 1, "%s cut at %zu", path, n);
		cr_assert_geq(osc_trace_nr_written(&t), prev, "%s cut at %zu", path, n);
		cr_assert_leq(osc_trace_nr_written(&t), full);
		prev = osc_trace_nr_written(&t);
	}
	cr_assert_gt(prev, 0, "%s", path);
	free(s);
}

Test(load, real_traces_cut_at_many_offsets, .timeout = 120)
{
	const char *root = getenv("OPSCOPE_SOURCE_ROOT");
	static const char *const files[] = {
		"ort-riscv/resnet_inference_gemmini.json",
		"generated/ort-bert-mini-dyn-opt.json",
	};
	char path[4096];
	size_t done = 0;

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(path, sizeof(path), "%s/../shared/traces/%s", root ? root : ".", files[i]);
		if (access(path, R_OK) == 0) {
			truncate_trace(path);
			done++;
		}
	}
	snprintf(path, sizeof(path), "%s/samples", root ? root : ".");
	if (!done)
		cr_skip_test("../shared/traces is absent");
}

/* ---- differential: the scanner against json-c ---------------------------- */

/*
 * A slow reference: json-c parses the whole file, and X events (not from B/E)
 * are put in the model order by a stable sort on (ts, -dur). Names, cats,
 * exact ts/dur and args must equal the fast loader's, and so must the counts
 * per phase letter. ts text is turned into ns here independently (digits,
 * not doubles); files with exponents or non-numeric ts are skipped for ts.
 */
#include <json-c/json.h>
#include <malloc.h>

struct ref_ev {
	int64_t ts, dur;
	size_t seq;
	json_object *o;
};

static bool ref_ns(json_object *v, int64_t *out)
{
	const char *s = v ? json_object_to_json_string(v) : NULL;
	int64_t ip = 0, frac = 0;
	int nd = 0, round = 0;
	bool neg = false;

	if (!v || !(json_object_is_type(v, json_type_int) || json_object_is_type(v, json_type_double)))
		return false;
	if (*s == '-')
		neg = *s++ == '-';
	for (; *s >= '0' && *s <= '9'; s++)
		ip = ip * 10 + (*s - '0');
	if (*s == '.')
		for (s++; *s >= '0' && *s <= '9'; s++, nd++) {
			if (nd < 3)
				frac = frac * 10 + (*s - '0');
			else if (nd == 3)
				round = *s >= '5';
		}
	if (*s)
		return false;
	for (; nd < 3; nd++)
		frac *= 10;
	*out = ip * 1000 + frac + round;
	if (neg)
		*out = -*out;
	return true;
}

static int cmp_ref(const void *pa, const void *pb)
{
	const struct ref_ev *a = pa, *b = pb;

	if (a->ts != b->ts)
		return a->ts < b->ts ? -1 : 1;
	if (a->dur != b->dur)
		return a->dur > b->dur ? -1 : 1;
	return (a->seq > b->seq) - (a->seq < b->seq);
}

static const char *jstr(json_object *o, const char *key)
{
	json_object *v = json_object_object_get(o, key);

	return v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
}

/*
 * Text of a shape element as the loader writes it: strings as they are,
 * integers in decimal; false for what the reference does not render
 * (doubles, whose json-c text may differ from the file's).
 */
static bool ref_text(json_object *v, char *out, size_t size)
{
	if (json_object_is_type(v, json_type_string))
		snprintf(out, size, "%s", json_object_get_string(v));
	else if (json_object_is_type(v, json_type_int))
		snprintf(out, size, "%lld", (long long)json_object_get_int64(v));
	else if (json_object_is_type(v, json_type_null) || json_object_is_type(v, json_type_boolean))
		snprintf(out, size, "%s", json_object_to_json_string(v));
	else
		return false;
	return true;
}

static void ref_cat(char *out, size_t size, const char *s)
{
	size_t n = strlen(out);

	snprintf(out + n, size - n, "%s", s);
}

/* [1,3,224,224] -> 1x3x224x224; nested arrays (up to depth 4) in brackets with commas. */
static bool ref_dims(json_object *v, int depth, char *out, size_t size)
{
	char item[256];

	if (!json_object_is_type(v, json_type_array)) {
		if (!ref_text(v, item, sizeof(item)))
			return false;
		ref_cat(out, size, item);
		return true;
	}
	for (size_t i = 0; i < json_object_array_length(v); i++) {
		json_object *e = json_object_array_get_idx(v, i);

		if (i)
			ref_cat(out, size, depth ? "," : "x");
		if (json_object_is_type(e, json_type_array) && depth < 4) {
			ref_cat(out, size, "[");
			if (!ref_dims(e, depth + 1, out, size))
				return false;
			ref_cat(out, size, "]");
		} else if (!ref_dims(e, depth, out, size)) {
			return false;
		}
	}
	return true;
}

/*
 * The input shapes of an event from its args, written independently of the
 * loader: ORT's input_type_shape ([{"float":[1,3]}] -> float(1x3)) and
 * Kineto's Input Dims with Input type. False when the event has neither or
 * holds what the reference does not render.
 */
static bool ref_shape(json_object *args, char *out, size_t size)
{
	json_object *its = json_object_object_get(args, "input_type_shape");
	json_object *dims = json_object_object_get(args, "Input Dims");
	json_object *types = json_object_object_get(args, "Input type");

	out[0] = '\0';
	if (!dims)
		dims = json_object_object_get(args, "Input dims");
	if (its && json_object_is_type(its, json_type_array)) {
		for (size_t i = 0; i < json_object_array_length(its); i++) {
			json_object *e = json_object_array_get_idx(its, i);

			if (i)
				ref_cat(out, size, ",");
			if (json_object_is_type(e, json_type_object) &&
			    json_object_object_length(e) == 1) {
				json_object_object_foreach(e, k, v) {
					ref_cat(out, size, k);
					ref_cat(out, size, "(");
					if (!ref_dims(v, 0, out, size))
						return false;
					ref_cat(out, size, ")");
				}
			} else if (!ref_dims(e, 0, out, size)) {
				return false;
			}
		}
		return true;
	}
	if (its || !dims || !json_object_is_type(dims, json_type_array))
		return false;
	for (size_t i = 0; i < json_object_array_length(dims); i++) {
		json_object *ty = types && json_object_is_type(types, json_type_array) ?
					  json_object_array_get_idx(types, i) : NULL;
		char text[256];

		if (i)
			ref_cat(out, size, ",");
		if (ty) {
			if (!ref_text(ty, text, sizeof(text)))
				return false;
			ref_cat(out, size, text);
		}
		ref_cat(out, size, "(");
		if (!ref_dims(json_object_array_get_idx(dims, i), 0, out, size))
			return false;
		ref_cat(out, size, ")");
	}
	return true;
}

static size_t nr_diffed, nr_shapes_diffed;
static char want_shape[1 << 20];

/* The X events of tr (not from B/E) against json-c's, ref[0..nref) in model order. */
static void expect_json_c_events(const char *path, const struct osc_trace *tr,
				 const struct ref_ev *ref, size_t nref)
{
	size_t j = 0;

	for (size_t i = 0; i < tr->nr_events; i++) {
		const struct osc_event *ev = &tr->events[i];
		json_object *args, *mine;
		const char *nm, *cat;

		if (ev->ph != OSC_PH_COMPLETE || (ev->flags & OSC_EVF_FROM_BE))
			continue;
		cr_assert_lt(j, nref, "%s: more X events than json-c finds", path);
		nm = jstr(ref[j].o, "name");
		cat = jstr(ref[j].o, "cat");
		cr_assert_eq(ev->ts, ref[j].ts, "%s: event %zu ts", path, i);
		cr_assert_eq(ev->dur, ref[j].dur, "%s: event %zu dur", path, i);
		if (nm)
			cr_assert_str_eq(osc_trace_str(tr, ev->name), nm, "%s: event %zu", path, i);
		if (cat)
			cr_assert_str_eq(osc_trace_str(tr, ev->cat), cat, "%s: event %zu", path, i);
		args = json_object_object_get(ref[j].o, "args");
		mine = json_tokener_parse(*osc_trace_args(tr, (uint32_t)i) ?
						  osc_trace_args(tr, (uint32_t)i) : "{}");
		cr_assert_not_null(mine, "%s: event %zu args", path, i);
		if (args && json_object_is_type(args, json_type_object))
			cr_assert(json_object_equal(args, mine), "%s: event %zu args %s", path, i,
				  osc_trace_args(tr, (uint32_t)i));
		json_object_put(mine);
		if (args && ref_shape(args, want_shape, sizeof(want_shape)) &&
		    strlen(want_shape) < sizeof(want_shape) - 1) {
			cr_assert_str_eq(osc_trace_str(tr, ev->shape), want_shape,
					 "%s: event %zu shape %s, want %s", path, i,
					 osc_trace_str(tr, ev->shape), want_shape);
			nr_shapes_diffed++;
		}
		j++;
	}
	cr_assert_eq(j, nref, "%s: %zu X events, json-c %zu", path, j, nref);
}

static int diff_one(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
	size_t n = strlen(path), len = 0, cap = 1 << 20, nref = 0;
	char *buf;
	gzFile gz;
	int r;
	json_object *root, *evs;
	struct ref_ev *ref;
	uint64_t ph[256] = { 0 };
	struct osc_trace first, tr;
	struct osc_error e;

	(void)ftw;
	if (type != FTW_F || !((n > 5 && !strcmp(path + n - 5, ".json")) ||
			       (n > 8 && !strcmp(path + n - 8, ".json.gz"))))
		return 0;
	(void)sb;
	gz = gzopen(path, "rb");
	buf = malloc(cap);
	while ((r = gzread(gz, buf + len, (unsigned)(cap - len))) > 0) {
		len += (size_t)r;
		if (len == cap)
			buf = realloc(buf, cap *= 2);
	}
	gzclose(gz);
#if defined(__SANITIZE_ADDRESS__)
	if (len > ((size_t)2 << 20)) { /* json-c under ASan is slow on big files */
		free(buf);
		return 0;
	}
#endif
	buf[len < cap ? len : cap - 1] = '\0';
	root = json_tokener_parse(buf);
	free(buf);
	if (!root) /* not strict JSON (partial or repaired files): the loader's own tests */
		return 0;
	evs = json_object_is_type(root, json_type_array) ? root :
	      json_object_object_get(root, "traceEvents");
	if (!evs || !json_object_is_type(evs, json_type_array)) {
		json_object_put(root);
		return 0;
	}
	ref = calloc(json_object_array_length(evs) + 1, sizeof(*ref));
	for (size_t i = 0; i < json_object_array_length(evs); i++) {
		json_object *o = json_object_array_get_idx(evs, i);
		const char *p = o ? jstr(o, "ph") : NULL;
		struct ref_ev *x = &ref[nref];

		if (!p || !*p)
			continue;
		ph[(unsigned char)*p]++;
		if (strcmp(p, "X") || !ref_ns(json_object_object_get(o, "ts"), &x->ts))
			continue;
		if (!ref_ns(json_object_object_get(o, "dur"), &x->dur) || x->dur < 0)
			x->dur = 0;
		x->seq = i;
		x->o = o;
		nref++;
	}
	qsort(ref, nref, sizeof(*ref), cmp_ref);
	/* With the first inflater against json-c, */
	use_inflater(0);
	osc_trace_init(&first);
	cr_assert_eq(osc_load(path, NULL, &first, &e), OSC_OK, "%s: %s", path, e.message);
	for (int c = 0; c < 256; c++)
		cr_expect_eq(first.ph_counts[c], ph[c], "%s: ph %c", path, c);
	expect_json_c_events(path, &first, ref, nref);
	/* and a gzip file with the others, each giving the same model. */
	for (size_t b = 1; b < (n > 3 && !strcmp(path + n - 3, ".gz") ? NR_INFLATERS : 1); b++) {
		use_inflater(b);
		osc_trace_init(&tr);
		cr_assert_eq(osc_load(path, NULL, &tr, &e), OSC_OK, "%s: %s", path, e.message);
		expect_same_model(&first, &tr);
		osc_trace_release(&tr);
	}
	osc_trace_release(&first);
	free(ref);
	json_object_put(root);
	nr_diffed++;
	return 0;
}

Test(load, differential_json_c, .timeout = 600)
{
	/* json-c's millions of small objects: without fast bins, glibc does not
	   merge them all again at each big free (a quarter of this test's time) */
	mallopt(M_MXFAST, 0);
	walk_files("../shared/traces", diff_one);
	cr_assert_gt(nr_diffed, 10);
	cr_assert_gt(nr_shapes_diffed, 1000);
}

/* The same on the bundled samples, which a clone without ../shared still has. */
Test(load, differential_json_c_samples, .timeout = 600)
{
	walk_files("samples", diff_one);
	cr_assert_geq(nr_diffed, 4);
	cr_assert_gt(nr_shapes_diffed, 100);
}
