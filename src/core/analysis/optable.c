/*
 * optable.c - the op-instance table (Neural Engine's per-op CSV).
 *
 * The op level's aggregate selects the events (runs and filter as in a
 * report); rows are then keyed by event name in first-seen order. Only the
 * first event of a row has its args parsed (json-c), so the cost is one
 * parse per op instance, not per event.
 */
#include <ctype.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "opscope/analysis/aggregate.h"
#include "opscope/base/alloc.h"
#include "opscope/analysis/optable.h"

struct sb {
	char *p;
	size_t len, alloc;
};

static void sb_add(struct sb *b, const char *s, size_t n)
{
	OSC_GROW(b->p, b->len + n + 1, b->alloc);
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

static char *sb_take(struct sb *b)
{
	char *s = b->p ? b->p : osc_xstrdup("");

	memset(b, 0, sizeof(*b));
	return s;
}

/* "fp32(64x1024),fp32(256)" -> shapes "64x1024;256", dtypes "fp32;fp32". */
static void split_shape(const char *shape, struct sb *shapes, struct sb *dtypes)
{
	const char *s = shape;

	while (*s) {
		const char *open = strchr(s, '('), *close, *comma;
		int depth = 0;

		comma = s;
		while (*comma && (*comma != ',' || depth)) {
			depth += *comma == '(' ? 1 : *comma == ')' ? -1 : 0;
			comma++;
		}
		if (s != shape) {
			sb_add(shapes, ";", 1);
			sb_add(dtypes, ";", 1);
		}
		if (open && open < comma && (close = comma - 1) > open && *close == ')') {
			sb_add(dtypes, s, (size_t)(open - s));
			sb_add(shapes, open + 1, (size_t)(close - open - 1));
		} else {
			sb_add(shapes, s, (size_t)(comma - s));
		}
		s = *comma ? comma + 1 : comma;
	}
}

/* The i-th ';'-separated item of s (empty when absent). */
static char *nth_item(const char *s, size_t i)
{
	for (; i && s; i--) {
		s = strchr(s, ';');
		s = s ? s + 1 : NULL;
	}
	return s ? osc_xstrndup(s, strcspn(s, ";")) : osc_xstrdup("");
}

/* NE's comma lists as ';' lists; '*' in shapes becomes 'x'; a trailing ',' is dropped. */
static char *ne_list(struct json_object *root, const char *key, bool shape)
{
	struct json_object *v;
	const char *s;
	char *out;
	size_t n;

	if (!json_object_object_get_ex(root, key, &v) || !json_object_is_type(v, json_type_string))
		return osc_xstrdup("");
	s = json_object_get_string(v);
	n = strlen(s);
	while (n && (s[n - 1] == ',' || isspace((unsigned char)s[n - 1])))
		n--;
	out = osc_xstrndup(s, n);
	for (char *p = out; *p; p++)
		if (*p == ',')
			*p = ';';
		else if (shape && *p == '*')
			*p = 'x';
	return out;
}

/* ORT output_type_shape [{"float":[1,64]}] -> shapes "1x64", dtypes "float". */
static void ort_outputs(struct json_object *arr, struct sb *shapes, struct sb *dtypes)
{
	for (size_t i = 0; i < json_object_array_length(arr); i++) {
		struct json_object *e = json_object_array_get_idx(arr, i);

		if (i) {
			sb_add(shapes, ";", 1);
			sb_add(dtypes, ";", 1);
		}
		if (!json_object_is_type(e, json_type_object))
			continue;
		json_object_object_foreach(e, k, dims)
		{
			sb_add(dtypes, k, strlen(k));
			for (size_t d = 0; json_object_is_type(dims, json_type_array) &&
					   d < json_object_array_length(dims);
			     d++) {
				const char *x = json_object_get_string(
					json_object_array_get_idx(dims, d));

				if (d)
					sb_add(shapes, "x", 1);
				sb_add(shapes, x ? x : "", x ? strlen(x) : 0);
			}
			break;
		}
	}
}

/* The value of "append_op:X" in NE's "k:v;k:v" attributes. */
static char *post_op(struct json_object *root)
{
	struct json_object *v;
	const char *s, *p;

	if (!json_object_object_get_ex(root, "attributes", &v) ||
	    !json_object_is_type(v, json_type_string))
		return osc_xstrdup("");
	s = json_object_get_string(v);
	for (p = s; (p = strstr(p, "append_op:")); p++)
		if (p == s || p[-1] == ';')
			return osc_xstrndup(p + 10, strcspn(p + 10, ";"));
	return osc_xstrdup("");
}

static bool has_weight(const char *type)
{
	static const char *const types[] = { "InnerProduct", "MatMul", "Gemm", "FusedGemm" };

	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (!strcasecmp(type, types[i]))
			return true;
	return false;
}

static void fill_row(const struct osc_trace *t, uint32_t ev, struct osc_optable_row *r)
{
	const struct osc_event *e = &t->events[ev];
	const char *name = osc_trace_str(t, e->name);
	const char *type = osc_trace_str(t, osc_trace_op(t, ev));
	size_t nlen = strlen(name);
	struct json_object *root = json_tokener_parse(t->args_off ? osc_trace_args(t, ev) : "");
	struct json_object *v;
	struct sb shapes = { 0 }, dtypes = { 0 }, oshapes = { 0 }, odtypes = { 0 };

	if (root && !json_object_is_type(root, json_type_object)) {
		json_object_put(root);
		root = NULL;
	}
	if (nlen > 12 && !strcmp(name + nlen - 12, "_kernel_time"))
		nlen -= 12;
	r->text[OSC_OPTABLE_TYPE] = osc_xstrdup(type);
	r->text[OSC_OPTABLE_NAME] = osc_xstrndup(name, nlen);
	split_shape(osc_trace_str(t, e->shape), &shapes, &dtypes);
	r->text[OSC_OPTABLE_IN_SHAPE] = sb_take(&shapes);
	r->text[OSC_OPTABLE_IN_DTYPE] = sb_take(&dtypes);
	r->text[OSC_OPTABLE_POST_OP] = root ? post_op(root) : osc_xstrdup("");
	r->text[OSC_OPTABLE_IN_NAME] = root ? ne_list(root, "input_tensor_name", false)
					    : osc_xstrdup("");
	r->text[OSC_OPTABLE_OUT_NAME] = root ? ne_list(root, "output_tensor_name", false)
					     : osc_xstrdup("");
	if (root && json_object_object_get_ex(root, "output_type_shape", &v) &&
	    json_object_is_type(v, json_type_array)) {
		ort_outputs(v, &oshapes, &odtypes);
		r->text[OSC_OPTABLE_OUT_SHAPE] = sb_take(&oshapes);
		r->text[OSC_OPTABLE_OUT_DTYPE] = sb_take(&odtypes);
	} else {
		r->text[OSC_OPTABLE_OUT_SHAPE] = root ? ne_list(root, "output_shape", true)
						      : osc_xstrdup("");
		r->text[OSC_OPTABLE_OUT_DTYPE] = root ? ne_list(root, "output_type", false)
						      : osc_xstrdup("");
	}
	r->text[OSC_OPTABLE_WEIGHT_SHAPE] = has_weight(type)
						    ? nth_item(r->text[OSC_OPTABLE_IN_SHAPE], 1)
						    : osc_xstrdup("");
	r->text[OSC_OPTABLE_SPARSE_RATIO] = osc_xstrdup(
		root && json_object_object_get_ex(root, "weight_sparse_ratio", &v)
			? json_object_get_string(v)
			: "");
	r->text[OSC_OPTABLE_SPARSE_SUPPORT] =
		osc_xstrdup(!strcasecmp(type, "InnerProduct") ? "TRUE" : "FALSE");
	if (root)
		json_object_put(root);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

void osc_optable_build(const struct osc_trace *t, const struct osc_runs *runs,
		       const struct osc_runsel *sel, const struct osc_filter *f,
		       struct osc_optable *out)
{
	struct osc_query q = { .level = OSC_LEVEL_OP, .runs = sel, .filter = f };
	struct osc_agg agg;
	uint32_t *row_of = osc_xmalloc((t->strs.count ? t->strs.count : 1) * sizeof(*row_of));
	size_t alloc = 0;

	memset(out, 0, sizeof(*out));
	osc_aggregate(t, runs, &q, &agg);
	/* Model order, so rows come in the order their first event ran. */
	qsort(agg.members, agg.nr_members, sizeof(*agg.members), cmp_u32);
	for (size_t i = 0; i < t->strs.count; i++)
		row_of[i] = OSC_NONE;
	for (size_t i = 0; i < agg.nr_members; i++) {
		uint32_t ev = agg.members[i];
		osc_str name = t->events[ev].name;
		struct osc_optable_row *r;

		if (row_of[name] == OSC_NONE) {
			OSC_GROW(out->rows, out->nr + 1, alloc);
			r = &out->rows[out->nr];
			memset(r, 0, sizeof(*r));
			fill_row(t, ev, r);
			row_of[name] = (uint32_t)out->nr++;
		}
		r = &out->rows[row_of[name]];
		r->count++;
		r->total += t->events[ev].dur;
	}
	free(row_of);
	osc_agg_release(&agg);
}

void osc_optable_release(struct osc_optable *o)
{
	for (size_t r = 0; r < o->nr; r++)
		for (int c = 0; c < OSC_OPTABLE_LATENCY; c++)
			free(o->rows[r].text[c]);
	free(o->rows);
	memset(o, 0, sizeof(*o));
}

static const struct osc_column optable_columns[] = {
#define OSC_OPTABLE_COLUMN(name, text)                                                       \
	{ text, (int)sizeof(text) - 1 < 8 ? (int)sizeof(text) - 1 : 8,                      \
	  OSC_OPTABLE_##name >= OSC_OPTABLE_COUNT ? OSC_ALIGN_RIGHT : OSC_ALIGN_LEFT,          \
	  OSC_OPTABLE_##name >= OSC_OPTABLE_COUNT,                                             \
	  OSC_OPTABLE_##name == OSC_OPTABLE_NAME ? OSC_STAT_NAME : OSC_STAT_COUNT },
	OSC_OPTABLE_COL_LIST(OSC_OPTABLE_COLUMN)
#undef OSC_OPTABLE_COLUMN
};

const struct osc_column *osc_optable_columns(size_t *nr)
{
	*nr = OSC_OPTABLE_COL_COUNT;
	return optable_columns;
}

const char *osc_optable_cell(const struct osc_optable *o, size_t row, size_t col, char *buf,
			     size_t size)
{
	const struct osc_optable_row *r = &o->rows[row];
	long long ns;

	if (!size)
		return buf;
	buf[0] = '\0';
	if (col < OSC_OPTABLE_LATENCY && col != OSC_OPTABLE_COUNT) {
		snprintf(buf, size, "%s", r->text[col]);
		return r->text[col];
	}
	if (col == OSC_OPTABLE_COUNT) {
		snprintf(buf, size, "%llu", (unsigned long long)r->count);
	} else if (col == OSC_OPTABLE_LATENCY && r->count) {
		/* Mean in whole ns (half away from zero), printed as ms: exact. */
		ns = (long long)((r->total + (int64_t)r->count / 2) / (int64_t)r->count);
		snprintf(buf, size, "%lld.%06lld", ns / 1000000, ns % 1000000);
	}
	return buf;
}
