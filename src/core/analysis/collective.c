/* collective.c - the collectives of one rank (collective.h). */
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "opscope/analysis/collective.h"
#include "opscope/analysis/nccl_kernel.h"
#include "opscope/analysis/trace_cache.h"
#include "opscope/base/alloc.h"
#include "opscope/base/sat.h"

/* c10d's dtype names (ScalarType) and their sizes, bytes. */
static const struct {
	const char *name;
	int size;
} dtypes[] = {
	{ "Float", 4 },     { "Double", 8 },   { "Half", 2 },     { "BFloat16", 2 },
	{ "Long", 8 },      { "Int", 4 },      { "Short", 2 },    { "Char", 1 },
	{ "Byte", 1 },      { "Bool", 1 },     { "ComplexFloat", 8 }, { "ComplexDouble", 16 },
	{ "Float8_e4m3fn", 1 }, { "Float8_e5m2", 1 }, { "Float8_e4m3fnuz", 1 },
	{ "Float8_e5m2fnuz", 1 },
};

static int dtype_size(const char *name)
{
	for (size_t i = 0; i < sizeof(dtypes) / sizeof(dtypes[0]); i++)
		if (!strcmp(name, dtypes[i].name))
			return dtypes[i].size;
	return 0;
}

/* Whether name (c10d's, leading '_' ignored, "_base" or "_coalesced" after) starts with what. */
static bool is(const char *name, const char *what)
{
	while (*name == '_')
		name++;
	return !strncasecmp(name, what, strlen(what));
}

double osc_busbw_factor(const char *name, int64_t n)
{
	if (n < 1)
		return NAN;
	if (is(name, "allreduce") || is(name, "all_reduce"))
		return 2.0 * (double)(n - 1) / (double)n;
	if (is(name, "allgather") || is(name, "all_gather") || is(name, "reduce_scatter") ||
	    is(name, "alltoall") || is(name, "all_to_all"))
		return (double)(n - 1) / (double)n;
	return 1;
}

static int64_t member_int(struct json_object *o, const char *key)
{
	struct json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_int))
		return -1;
	return json_object_get_int64(v);
}

static const char *member_str(struct json_object *o, const char *key)
{
	struct json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_string))
		return "";
	return json_object_get_string(v);
}

/* S of one call (see collective.h), NaN when unknown. */
static double call_bytes(const char *name, const char *dtype, int64_t in, int64_t out)
{
	int size = dtype_size(dtype);
	int64_t n = is(name, "allgather") || is(name, "all_gather") ? out : in;

	return size && n >= 0 ? (double)n * size : NAN;
}

bool osc_collective_args_read(const struct osc_trace *t, uint32_t ev, char **buf, size_t *alloc,
			      struct osc_collective_args *a)
{
	struct json_object *args = json_tokener_parse(osc_trace_args_into(t, ev, buf, alloc));
	const char *name = member_str(args, "Collective name");
	bool call = *name != '\0';

	if (call) {
		snprintf(a->name, sizeof(a->name), "%s", name);
		snprintf(a->dtype, sizeof(a->dtype), "%s", member_str(args, "dtype"));
		snprintf(a->group, sizeof(a->group), "%s", member_str(args, "Process Group Name"));
		a->group_size = member_int(args, "Group size");
		a->bytes = call_bytes(name, a->dtype, member_int(args, "In msg nelems"),
				      member_int(args, "Out msg nelems"));
	}
	json_object_put(args);
	return call;
}

uint32_t osc_collective_owner(const struct osc_calltree *tree, const uint32_t *mark, uint32_t n)
{
	for (; n != OSC_NONE; n = tree->nodes[n].parent)
		if (mark[n] != OSC_NONE)
			return mark[n];
	return OSC_NONE;
}

/* The row of call a with what its kernels say (k) in out, added when new. */
static struct osc_collective_row *row_of(struct osc_collectives *out, size_t *alloc,
					 const struct osc_collective_args *a,
					 const struct osc_nccl_kernel *k)
{
	const char *algo = k->algorithm ? k->algorithm : "", *proto = k->protocol ? k->protocol : "";
	struct osc_collective_row *r;

	for (size_t i = 0; i < out->nr; i++) {
		r = &out->rows[i];
		if (!strcmp(r->name, a->name) && !strcmp(r->dtype, a->dtype) &&
		    r->group == a->group_size &&
		    (r->bytes == a->bytes || (isnan(r->bytes) && isnan(a->bytes))) &&
		    !strcmp(r->algorithm, algo) && !strcmp(r->protocol, proto))
			return r;
	}
	OSC_GROW(out->rows, out->nr + 1, *alloc);
	r = &out->rows[out->nr++];
	memset(r, 0, sizeof(*r));
	snprintf(r->name, sizeof(r->name), "%s", a->name);
	snprintf(r->dtype, sizeof(r->dtype), "%s", a->dtype);
	r->group = a->group_size;
	r->bytes = a->bytes;
	snprintf(r->algorithm, sizeof(r->algorithm), "%s", algo);
	snprintf(r->protocol, sizeof(r->protocol), "%s", proto);
	return r;
}

/* A call being counted: its node and what c10d recorded. */
struct call {
	uint32_t node, event;
	struct osc_collective_args args;
};

/*
 * What the kernels of each of calls[0 .. nr) say (nccl_kernel.h), owners as
 * osc_collective_owner: an array of nr to free.
 */
static struct osc_nccl_kernel *kernels_of(const struct osc_trace *t, const struct call *calls,
					  size_t nr)
{
	const struct osc_calltree *tree = osc_trace_host_tree(t);
	const struct osc_correlation *corr = osc_trace_correlation(t);
	struct osc_nccl_kernel *k = osc_xcalloc(nr ? nr : 1, sizeof(*k));
	uint32_t *mark = osc_xmalloc((tree->nr ? tree->nr : 1) * sizeof(*mark));

	memset(mark, 0xff, (tree->nr ? tree->nr : 1) * sizeof(*mark)); /* OSC_NONE */
	for (size_t i = 0; i < nr; i++)
		mark[calls[i].node] = (uint32_t)i;
	for (size_t i = 0; i < corr->nr_devs; i++) {
		const struct osc_event *e = &t->events[corr->devs[i].event];
		uint32_t c = osc_collective_owner(tree, mark, corr->devs[i].node);

		if (c != OSC_NONE && e->kind == OSC_KIND_KERNEL)
			osc_nccl_take(&k[c], osc_trace_str(t, e->name));
	}
	free(mark);
	return k;
}

static int by_time(const void *a, const void *b)
{
	const struct osc_collective_row *x = a, *y = b;
	int c;

	if (x->time != y->time)
		return x->time < y->time ? 1 : -1;
	if ((c = strcmp(x->name, y->name)))
		return c;
	if ((c = strcmp(x->algorithm, y->algorithm)))
		return c;
	return strcmp(x->protocol, y->protocol);
}

void osc_collectives(const struct osc_trace *t, const struct osc_runs *runs,
		     const struct osc_runsel *sel, struct osc_collectives *out)
{
	const struct osc_calltree *tree = osc_trace_host_tree(t);
	const struct osc_op_cost *cost = osc_trace_op_costs(t);
	osc_str rpc = osc_strtab_find(&t->strs, "record_param_comms",
				      strlen("record_param_comms"));
	size_t nb, nr = 0, calls_alloc = 0, alloc = 0, buf_alloc = 0;
	const struct osc_brief *b = osc_trace_briefs(t, OSC_KIND_HOST_OP, &nb);
	char *buf = NULL;
	struct call *calls = NULL;
	struct osc_nccl_kernel *k;

	memset(out, 0, sizeof(*out));
	/* every call, selected or not, owns its kernels (as collective_calls.c) */
	for (size_t j = 0; rpc != OSC_STR_NONE && j < nb; j++) {
		uint32_t ev = b[j].event, n = tree->node_of[ev];

		if (b[j].name != rpc || n == OSC_NONE)
			continue;
		OSC_GROW(calls, nr + 1, calls_alloc);
		calls[nr] = (struct call){ .node = n, .event = ev };
		nr += osc_collective_args_read(t, ev, &buf, &buf_alloc, &calls[nr].args);
	}
	free(buf);
	k = nr ? kernels_of(t, calls, nr) : NULL;
	for (size_t i = 0; i < nr; i++) {
		struct osc_collective_row *r;

		if (sel && !osc_runsel_has_event(sel, runs, calls[i].event))
			continue;
		r = row_of(out, &alloc, &calls[i].args, &k[i]);
		r->count++;
		r->time = osc_sat_add(r->time, cost[calls[i].node].dev_total);
	}
	free(k);
	free(calls);
	if (out->nr)
		qsort(out->rows, out->nr, sizeof(*out->rows), by_time);
}

void osc_collectives_release(struct osc_collectives *c)
{
	free(c->rows);
	memset(c, 0, sizeof(*c));
}

enum { C_NAME, C_DTYPE, C_GROUP, C_MB, C_ALGO, C_PROTO, C_COUNT, C_TIME, C_ALGBW, C_BUSBW, C_NR };

#define NUM(title) { title, 8, OSC_ALIGN_RIGHT, true, OSC_STAT_NAME }
static const struct osc_column columns[C_NR] = {
	[C_NAME] = { "collective", 12, OSC_ALIGN_LEFT, false, OSC_STAT_NAME },
	[C_DTYPE] = { "dtype", 6, OSC_ALIGN_LEFT, false, OSC_STAT_NAME },
	[C_GROUP] = NUM("group_size"),
	[C_MB] = NUM("msg_mb"),
	[C_ALGO] = { "algorithm", 9, OSC_ALIGN_LEFT, false, OSC_STAT_NAME },
	[C_PROTO] = { "protocol", 8, OSC_ALIGN_LEFT, false, OSC_STAT_NAME },
	[C_COUNT] = NUM("count"),
	[C_TIME] = NUM("device_us"),
	[C_ALGBW] = NUM("algbw_gbs"),
	[C_BUSBW] = NUM("busbw_gbs"),
};
#undef NUM

const struct osc_column *osc_collective_columns(size_t *nr)
{
	*nr = C_NR;
	return columns;
}

const char *osc_collective_cell(const struct osc_collectives *c, size_t row, size_t col,
				char *buf, size_t size)
{
	const struct osc_collective_row *r = &c->rows[row];
	/* bytes per ns are GB/s */
	double algbw = r->time > 0 ? r->bytes * (double)r->count / (double)r->time : NAN;

	buf[0] = '\0';
	switch (col) {
	case C_NAME:
		return r->name;
	case C_DTYPE:
		return r->dtype;
	case C_ALGO:
		return r->algorithm;
	case C_PROTO:
		return r->protocol;
	case C_GROUP:
		if (r->group >= 0)
			snprintf(buf, size, "%lld", (long long)r->group);
		break;
	case C_MB:
		if (!isnan(r->bytes))
			snprintf(buf, size, "%.6f", r->bytes / 1e6);
		break;
	case C_COUNT:
		snprintf(buf, size, "%llu", (unsigned long long)r->count);
		break;
	case C_TIME:
		osc_format_us_int(r->time, buf, size);
		break;
	case C_ALGBW:
	case C_BUSBW:
		if (!isnan(algbw))
			snprintf(buf, size, "%.3f",
				 col == C_ALGBW ? algbw : algbw * osc_busbw_factor(r->name, r->group));
		break;
	}
	return buf;
}
