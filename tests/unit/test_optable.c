/* test_optable.c - the per-op-instance table (Neural Engine's per-op CSV). */
#include <criterion/criterion.h>
#include <string.h>

#include "opscope/load/load.h"
#include "opscope/analysis/optable.h"

/*
 * Two iterations of two ops, in Neural Engine's trace format:
 *   Iteration0 [0, 200):   Add_1 (InnerProduct) 60 us, Softmax_2 20 us
 *   Iteration1 [200, 400): Add_1 80 us,               Softmax_2 30 us
 */
static const char trace_json[] =
	"{\"traceEvents\":["
	"{\"name\":\"model_inference\",\"cat\":\"inference\",\"ph\":\"X\",\"pid\":0,\"tid\":0,"
	"\"ts\":0,\"dur\":400},"
	"{\"name\":\"Iteration0\",\"cat\":\"iteration\",\"ph\":\"X\",\"pid\":0,\"tid\":0,"
	"\"ts\":0,\"dur\":200},"
	"{\"name\":\"Iteration1\",\"cat\":\"iteration\",\"ph\":\"X\",\"pid\":0,\"tid\":0,"
	"\"ts\":200,\"dur\":200},"
	"{\"name\":\"Add_1\",\"cat\":\"InnerProduct\",\"ph\":\"X\",\"pid\":0,\"tid\":0,"
	"\"ts\":10,\"dur\":60,\"args\":{\"input_tensor_name\":\"a:0,w:0,b:0\","
	"\"input_type\":\"u8,s8,fp32\",\"input_shape\":\"16*32,32*64,64\","
	"\"output_tensor_name\":\"Add_1:0\",\"output_type\":\"s8\",\"output_shape\":\"16*64\","
	"\"weight_sparse_ratio\":\"0.90\",\"attributes\":\"append_op:gelu_tanh;src1_perm:1,0\"}},"
	"{\"name\":\"Softmax_2\",\"cat\":\"Softmax\",\"ph\":\"X\",\"pid\":0,\"tid\":0,"
	"\"ts\":80,\"dur\":20,\"args\":{\"input_tensor_name\":\"Add_1:0\",\"input_type\":\"fp32\","
	"\"input_shape\":\"16*64\",\"output_tensor_name\":\"Softmax_2:0\","
	"\"output_type\":\"fp32\",\"output_shape\":\"16*64\"}},"
	"{\"name\":\"Add_1\",\"cat\":\"InnerProduct\",\"ph\":\"X\",\"pid\":0,\"tid\":0,"
	"\"ts\":210,\"dur\":80,\"args\":{\"input_tensor_name\":\"a:0,w:0,b:0\","
	"\"input_type\":\"u8,s8,fp32\",\"input_shape\":\"16*32,32*64,64\","
	"\"output_tensor_name\":\"Add_1:0\",\"output_type\":\"s8\",\"output_shape\":\"16*64\","
	"\"weight_sparse_ratio\":\"0.90\",\"attributes\":\"append_op:gelu_tanh;src1_perm:1,0\"}},"
	"{\"name\":\"Softmax_2\",\"cat\":\"Softmax\",\"ph\":\"X\",\"pid\":0,\"tid\":0,"
	"\"ts\":300,\"dur\":30,\"args\":{\"input_tensor_name\":\"Add_1:0\",\"input_type\":\"fp32\","
	"\"input_shape\":\"16*64\",\"output_tensor_name\":\"Softmax_2:0\","
	"\"output_type\":\"fp32\",\"output_shape\":\"16*64\"}}"
	"]}";

static struct osc_trace t;
static struct osc_runs runs;

static void setup(void)
{
	struct osc_error err;

	osc_trace_init(&t);
	cr_assert_eq(osc_load_buffer("ne.json", trace_json, sizeof(trace_json) - 1, NULL, &t, &err),
		     OSC_OK, "%s", err.message);
	cr_assert_eq(t.format, OSC_FORMAT_NEURAL_ENGINE);
	osc_runs_detect(&t, &runs);
	cr_assert_eq(runs.nr, 2);
}

static void teardown(void)
{
	osc_runs_release(&runs);
	osc_trace_release(&t);
}

TestSuite(optable, .init = setup, .fini = teardown);

/* Row r's cells, comma-joined in column order. */
static void expect_row(const struct osc_optable *o, size_t r, const char *want)
{
	char line[1024] = "", buf[256];
	size_t nr;

	osc_optable_columns(&nr);
	for (size_t c = 0; c < nr; c++) {
		strcat(line, c ? "," : "");
		strcat(line, osc_optable_cell(o, r, c, buf, sizeof(buf)));
	}
	cr_expect_str_eq(line, want);
}

/* By hand from optable.h's definitions: shapes with x, lists with ';', mean latency in ms. */
Test(optable, one_row_per_op_instance_with_neural_engine_fields)
{
	struct osc_optable o;

	osc_optable_build(&t, &runs, NULL, NULL, &o);
	cr_assert_eq(o.nr, 2);
	expect_row(&o, 0, "InnerProduct,gelu_tanh,Add_1,a:0;w:0;b:0,16x32;32x64;64,u8;s8;fp32,"
			  "Add_1:0,16x64,s8,32x64,0.90,TRUE,2,0.070000");
	expect_row(&o, 1, "Softmax,,Softmax_2,Add_1:0,16x64,fp32,Softmax_2:0,16x64,fp32,,,FALSE,2,"
			  "0.025000");
	osc_optable_release(&o);
}

Test(optable, runs_and_filter_choose_the_events)
{
	struct osc_optable o;
	struct osc_runsel sel;
	struct osc_filter f;
	struct osc_error err;
	char buf[64];

	cr_assert_eq(osc_runsel_parse("1", runs.nr, runs.warmup, &sel, &err), OSC_OK);
	osc_optable_build(&t, &runs, &sel, NULL, &o);
	cr_assert_eq(o.nr, 2);
	cr_expect_str_eq(osc_optable_cell(&o, 0, OSC_OPTABLE_COUNT, buf, sizeof(buf)), "1");
	cr_expect_str_eq(osc_optable_cell(&o, 0, OSC_OPTABLE_LATENCY, buf, sizeof(buf)),
			 "0.080000");
	cr_expect_str_eq(osc_optable_cell(&o, 1, OSC_OPTABLE_LATENCY, buf, sizeof(buf)),
			 "0.030000");
	osc_optable_release(&o);
	osc_filter_init(&f);
	osc_filter_add_pattern(&f, "Soft*");
	osc_optable_build(&t, &runs, &sel, &f, &o);
	cr_assert_eq(o.nr, 1);
	cr_expect_str_eq(osc_optable_cell(&o, 0, OSC_OPTABLE_NAME, buf, sizeof(buf)), "Softmax_2");
	osc_optable_release(&o);
	osc_filter_release(&f);
	osc_runsel_release(&sel);
}
