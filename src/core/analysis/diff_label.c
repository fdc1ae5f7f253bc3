/*
 * diff_label.c - the labels rows and events pair on in a compare: an
 * aggregate row's keys as text, and an event's shape label (its op, input
 * shapes, provider and, where the format writes them in the args, output
 * shapes).
 */
#include <json-c/json.h>
#include <stdio.h>
#include <string.h>

#include "opscope/analysis/category.h"
#include "opscope/analysis/diff.h"
#include "opscope/analysis/module.h"

/* Short codes of element types; anything else is written as it is. */
static const struct {
	const char *type, *code;
} type_codes[] = {
	{ "float", "f" },     { "float32", "f" },   { "fp32", "f" },      { "f32", "f" },
	{ "double", "d" },    { "float64", "d" },   { "fp64", "d" },      { "float16", "h" },
	{ "fp16", "h" },      { "c10::Half", "h" }, { "half", "h" },      { "bfloat16", "bf16" },
	{ "c10::BFloat16", "bf16" }, { "bf16", "bf16" }, { "int64", "i64" }, { "long int", "i64" },
	{ "int32", "i32" },   { "int", "i32" },     { "int16", "i16" },   { "int8", "i8" },
	{ "s8", "i8" },       { "uint64", "u64" },  { "uint32", "u32" },  { "uint16", "u16" },
	{ "uint8", "u8" },    { "u8", "u8" },       { "unsigned char", "u8" }, { "bool", "b" },
	{ "string", "s" },
};

static const char *type_code(const char *s, size_t n)
{
	for (size_t i = 0; i < sizeof(type_codes) / sizeof(type_codes[0]); i++)
		if (strlen(type_codes[i].type) == n && !memcmp(type_codes[i].type, s, n))
			return type_codes[i].code;
	return NULL;
}

struct out {
	char *buf;
	size_t size, len;
};

static void put(struct out *o, const char *s, size_t n)
{
	if (!o->size)
		return;
	for (size_t i = 0; i < n && o->len + 1 < o->size; i++)
		o->buf[o->len++] = s[i];
	o->buf[o->len] = '\0';
}

static void puts_(struct out *o, const char *s)
{
	put(o, s, strlen(s));
}

/* End of the item starting at s: the next ',' outside parentheses/brackets. */
static const char *item_end(const char *s)
{
	int depth = 0;

	for (; *s; s++) {
		if (*s == '(' || *s == '[')
			depth++;
		else if ((*s == ')' || *s == ']') && depth)
			depth--;
		else if (*s == ',' && !depth)
			break;
	}
	return s;
}

static void compact_item(struct out *o, const char *s, size_t n)
{
	const char *open = memchr(s, '(', n), *code;

	if (!open || s[n - 1] != ')') {
		put(o, s, n);
		return;
	}
	code = type_code(s, (size_t)(open - s));
	if (code)
		puts_(o, code);
	else
		put(o, s, (size_t)(open - s));
	if (open + 1 < s + n - 1) {
		put(o, "-", 1);
		put(o, open + 1, (size_t)(s + n - 1 - (open + 1)));
	}
}

static void compact(struct out *o, const char *shape)
{
	const char *s = shape;

	while (*s) {
		const char *e = item_end(s);

		if (s != shape)
			put(o, ",", 1);
		if (e > s)
			compact_item(o, s, (size_t)(e - s));
		s = *e ? e + 1 : e;
	}
}

const char *osc_shape_compact(const char *shape, char *buf, size_t size)
{
	struct out o = { buf, size, 0 };

	if (size)
		buf[0] = '\0';
	compact(&o, shape);
	return buf;
}

/* ORT dims [1,3,[2,2]] as 1x3x[2,2]. */
static void json_dims(struct out *o, struct json_object *v, int depth)
{
	if (!json_object_is_type(v, json_type_array)) {
		puts_(o, json_object_get_string(v) ? json_object_get_string(v) : "");
		return;
	}
	for (size_t i = 0; i < json_object_array_length(v); i++) {
		struct json_object *e = json_object_array_get_idx(v, i);

		if (i)
			put(o, depth ? "," : "x", 1);
		if (json_object_is_type(e, json_type_array) && depth < 4) {
			put(o, "[", 1);
			json_dims(o, e, depth + 1);
			put(o, "]", 1);
		} else {
			json_dims(o, e, depth + 1);
		}
	}
}

/* ORT output_type_shape [{"float":[1,64,112,112]}] as float(1x64x112x112). */
static void ort_shapes(struct out *o, struct json_object *arr)
{
	for (size_t i = 0; i < json_object_array_length(arr); i++) {
		struct json_object *e = json_object_array_get_idx(arr, i);

		if (i)
			put(o, ",", 1);
		if (!json_object_is_type(e, json_type_object)) {
			json_dims(o, e, 0);
			continue;
		}
		json_object_object_foreach(e, k, v)
		{
			puts_(o, k);
			put(o, "(", 1);
			json_dims(o, v, 0);
			put(o, ")", 1);
			break;
		}
	}
}

/* Neural Engine output_type "fp32,fp32" with output_shape "64*256,1" as fp32(64x256),fp32(1). */
static void ne_shapes(struct out *o, const char *types, const char *shapes)
{
	const char *s = shapes, *t = types ? types : "";
	bool first = true;

	while (*s || *t) {
		size_t sl = strcspn(s, ","), tl = strcspn(t, ",");

		if (sl || tl) {
			if (!first)
				put(o, ",", 1);
			first = false;
			put(o, t, tl);
			put(o, "(", 1);
			for (size_t i = 0; i < sl; i++)
				put(o, s[i] == '*' ? "x" : s + i, 1);
			put(o, ")", 1);
		}
		s += sl + (s[sl] == ',');
		t += tl + (t[tl] == ',');
	}
}

bool osc_diff_label_reads_args(const struct osc_trace *t)
{
	return t->format == OSC_FORMAT_ORT || t->format == OSC_FORMAT_NEURAL_ENGINE ||
	       t->format == OSC_FORMAT_CHROME;
}

/* Output shapes of ev from its args, in the model's shape syntax; "" when none. */
static void output_shapes(const struct osc_trace *t, uint32_t ev, struct out *o)
{
	const char *args = t->args_off && osc_diff_label_reads_args(t) ? osc_trace_args(t, ev) : "";
	struct json_object *root, *v, *types;

	if (!strstr(args, "output_"))
		return;
	root = json_tokener_parse(args);
	if (!root)
		return;
	if (json_object_object_get_ex(root, "output_type_shape", &v) &&
	    json_object_is_type(v, json_type_array))
		ort_shapes(o, v);
	else if (json_object_object_get_ex(root, "output_shape", &v) &&
		 json_object_is_type(v, json_type_string))
		ne_shapes(o,
			  json_object_object_get_ex(root, "output_type", &types)
				  ? json_object_get_string(types)
				  : "",
			  json_object_get_string(v));
	json_object_put(root);
}

const char *osc_diff_label(const struct osc_trace *t, uint32_t ev, char *buf, size_t size)
{
	const struct osc_event *e = &t->events[ev];
	const char *prov = osc_trace_str(t, osc_trace_provider(t, ev));
	size_t plen = strlen(prov);
	struct out o = { buf, size, 0 };
	char outs[1024];
	struct out oo = { outs, sizeof(outs), 0 };

	if (size)
		buf[0] = '\0';
	outs[0] = '\0';
	if (plen > 17 && !strcmp(prov + plen - 17, "ExecutionProvider"))
		plen -= 17;
	if (plen) {
		put(&o, "[", 1);
		put(&o, prov, plen);
		put(&o, "]", 1);
	}
	puts_(&o, osc_trace_str(t, osc_trace_op(t, ev)));
	put(&o, "(", 1);
	compact(&o, osc_trace_str(t, e->shape));
	put(&o, ")", 1);
	output_shapes(t, ev, &oo);
	if (oo.len) {
		puts_(&o, "->");
		compact(&o, outs);
	}
	return buf;
}

/* Rows of the shape, dims or mapping levels pair on all their keys, not the name only. */
const char *osc_agg_label(const struct osc_trace *t, const struct osc_agg *agg,
			  const struct osc_agg_row *r, char *buf, size_t size)
{
	return osc_agg_label_names(t, agg, NULL, r, buf, size);
}

const char *osc_agg_label_names(const struct osc_trace *t, const struct osc_agg *agg,
				const struct osc_names *names, const struct osc_agg_row *r,
				char *buf, size_t size)
{
	struct out o = { buf, size, 0 };
	char dims[128];

	if (size)
		buf[0] = '\0';
	if (agg->keys & OSC_KEY_OP) {
		puts_(&o, r->op == OSC_AGG_UNKNOWN ? "?" : osc_trace_str(t, r->op));
		puts_(&o, " > ");
	}
	/* a path row is its whole call path: the leaf name alone would pair
	   aten::mm under linear with aten::mm under matmul */
	if (agg->keys & OSC_KEY_PATH)
		puts_(&o, osc_strtab_get(&agg->paths, r->path));
	else if (agg->keys & OSC_KEY_CATEGORY)
		puts_(&o, osc_category_name(r->category));
	else if ((agg->keys & OSC_KEY_MODULE) && agg->modules && r->module != OSC_NONE)
		puts_(&o, osc_module_path(agg->modules, r->module)); /* ReLU_0 is in many blocks */
	else if (osc_level_is_device(agg->level)) /* a kernel name, as the report shows it */
		puts_(&o, osc_names_get(names, t, r->key));
	else
		puts_(&o, osc_trace_str(t, r->key));
	if ((agg->keys & OSC_KEY_SHAPE) && r->shape != OSC_AGG_UNKNOWN) {
		puts_(&o, " ");
		puts_(&o, osc_trace_str(t, r->shape));
	}
	if (agg->keys & OSC_KEY_DIMS) {
		snprintf(dims, sizeof(dims), " b%dx%dx%d,g%dx%dx%d", r->dims[0], r->dims[1],
			 r->dims[2], r->dims[3], r->dims[4], r->dims[5]);
		puts_(&o, dims);
	}
	return buf;
}
