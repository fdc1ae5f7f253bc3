/* collective.c - the collectives of one rank (collective.h). */
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "opscope/analysis/collective.h"
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

/* The row of (name, dtype, group, bytes) in out, added when new. */
static struct osc_collective_row *row_of(struct osc_collectives *out, size_t *alloc,
					 const char *name, const char *dtype, int64_t group,
					 double bytes)
{
	struct osc_collective_row *r;

	for (size_t i = 0; i < out->nr; i++) {
		r = &out->rows[i];
		if (!strcmp(r->name, name) && !strcmp(r->dtype, dtype) && r->group == group &&
		    (r->bytes == bytes || (isnan(r->bytes) && isnan(bytes))))
			return r;
	}
	OSC_GROW(out->rows, out->nr + 1, *alloc);
	r = &out->rows[out->nr++];
	memset(r, 0, sizeof(*r));
	snprintf(r->name, sizeof(r->name), "%s", name);
	snprintf(r->dtype, sizeof(r->dtype), "%s", dtype);
	r->group = group;
	r->bytes = bytes;
	return r;
}

static int by_time(const void *a, const void *b)
{
	const struct osc_collective_row *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? 1 : -1;
	return strcmp(x->name, y->name);
}

void osc_collectives(const struct osc_trace *t, const struct osc_runs *runs,
		     const struct osc_runsel *sel, struct osc_collectives *out)
{
	const struct osc_calltree *tree = osc_trace_host_tree(t);
	const struct osc_op_cost *cost = osc_trace_op_costs(t);
	osc_str rpc = osc_strtab_find(&t->strs, "record_param_comms",
				      strlen("record_param_comms"));
	size_t nb, alloc = 0, buf_alloc = 0;
	const struct osc_brief *b = osc_trace_briefs(t, OSC_KIND_HOST_OP, &nb);
	char *buf = NULL;

	memset(out, 0, sizeof(*out));
	for (size_t j = 0; rpc != OSC_STR_NONE && j < nb; j++) {
		uint32_t ev = b[j].event, n = tree->node_of[ev];
		struct osc_collective_args a;
		struct osc_collective_row *r;

		if (b[j].name != rpc || n == OSC_NONE || (sel && !osc_runsel_has_event(sel, runs, ev)))
			continue;
		if (osc_collective_args_read(t, ev, &buf, &buf_alloc, &a)) {
			r = row_of(out, &alloc, a.name, a.dtype, a.group_size, a.bytes);
			r->count++;
			r->time = osc_sat_add(r->time, cost[n].dev_total);
		}
	}
	free(buf);
	if (out->nr)
		qsort(out->rows, out->nr, sizeof(*out->rows), by_time);
}

void osc_collectives_release(struct osc_collectives *c)
{
	free(c->rows);
	memset(c, 0, sizeof(*c));
}

enum { C_NAME, C_DTYPE, C_GROUP, C_MB, C_COUNT, C_TIME, C_ALGBW, C_BUSBW, C_NR };

#define NUM(title) { title, 8, OSC_ALIGN_RIGHT, true, OSC_STAT_NAME }
static const struct osc_column columns[C_NR] = {
	[C_NAME] = { "collective", 12, OSC_ALIGN_LEFT, false, OSC_STAT_NAME },
	[C_DTYPE] = { "dtype", 6, OSC_ALIGN_LEFT, false, OSC_STAT_NAME },
	[C_GROUP] = NUM("group_size"),
	[C_MB] = NUM("msg_mb"),
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
