/*
 * load_chrome.c - Chrome trace-event JSON: ONNX Runtime profiles, PyTorch
 * Kineto and legacy autograd traces, Intel Neural Engine traces and generic
 * chrome traces, as a bare array of events or an object with traceEvents.
 *
 * One pass over the input, one event object at a time (json_scan.c), no
 * per-event allocation beyond the model's own tables. A big event array is
 * parsed on all cores (chrome_shards.c); the parse's state (chrome.h) is
 * shared with it. The format is decided at the end from
 * counts over the whole file, then every event gets its kind (on all cores).
 *
 * Limits:
 * - A syntax error stops the load (OSC_NOT_JSON with its byte offset); only
 *   input that ends inside an event is tolerated (complete events are kept,
 *   OSC_WARN_TRUNCATED is counted). Missing commas are not repaired.
 * - Top-level values other than traceEvents are held whole in memory while
 *   they are scanned; those over 1 MiB are left out of meta_json, except
 *   deviceProperties.
 * - B/E pairs, per (pid, tid) as a stack: an E closes the innermost open B,
 *   even one of another name (counted in OSC_WARN_END_NAME_DIFFERS). At one
 *   ts, a B opens before an E of the same name closes (a zero-duration
 *   pair), other E events close first, and an E naming the innermost B goes
 *   before the other E events of that ts (within the next 64 pending
 *   events). Extra E events (on an empty stack, or naming no B still
 *   awaiting its E) close nothing; B events still open at the end are
 *   dropped. Both are counted (OSC_WARN_UNMATCHED_*). speedscope's importer
 *   does the same, except that it also drops an E naming another B. The E
 *   event's args are dropped (the B args are kept).
 * - Ids (correlation, External id, flow id/bind_id) must be decimal numbers
 *   or decimal strings; anything else counts as absent.
 * - Only the first 32 repaired quotes of one event are escaped again in its
 *   stored args text; a 33rd leaves that args text invalid JSON.
 * - ph is one letter of the trace-event format (B E X i I C b n e s t f P O
 *   N D S T p F M V v R c ( )); an event with any other ph (Z, XX) is
 *   skipped and counted (OSC_WARN_UNKNOWN_PHASE). Async (b/e/n), counter,
 *   object and sample events are stored as single events (OSC_PH_OTHER /
 *   COUNTER), not paired.
 * - Duplicate keys in an event: the last one wins.
 * - An X event without dur gets 0 (OSC_EVF_NO_DUR); tdur (thread time) is
 *   not used in its place. One whose dur is there but not a number
 *   (Infinity, NaN, true, an object) is skipped and counted (BAD_DUR).
 *   Numeric or string ts are read; other ts types make the event a
 *   BAD_EVENT.
 * - An object with two traceEvents arrays: the first is the trace, the
 *   second is skipped and counted (OSC_WARN_SECOND_EVENTS).
 * - Kineto "Input Dims" without "Input type": the shapes without types.
 * - A gzip CRC or length mismatch, or corrupt data, fails the load (OSC_GZIP)
 *   even when every event decoded; a stream cut short is a cut file: the
 *   complete events are kept (OSC_WARN_GZIP_CUT, and TRUNCATED).
 * - gzip: bytes after the last member that are not another member
 *   (trailing garbage) end the input, counted as OSC_WARN_TRAILING_DATA.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opscope/base/alloc.h"
#include "base/json_scan.h"
#include "load/chrome.h"
#include "load/load_internal.h"
#include "base/parallel.h"

#define META_VALUE_MAX ((size_t)1 << 20)
#define TICK_STEP ((uint64_t)1 << 20)

/* Per string id: what a category or name says (computed once per id). */
enum {
	NT_KERNEL_TIME = 1 << 0, /* ORT *_kernel_time */
	NT_FENCE = 1 << 1,       /* ORT *_fence_before / *_fence_after */
	NT_STEP = 1 << 2,        /* ProfilerStep#N */
	NT_MODEL_RUN = 1 << 3,
	NT_SEQ_EXEC = 1 << 4,    /* SequentialExecutor::Execute */
	NT_NE_MODEL = 1 << 5,    /* model_inference */
	NT_NE_ITER = 1 << 6,     /* IterationN */
	NT_ATEN = 1 << 7,        /* aten::* */
};
#define TR_DONE (1u << 31)
#define TR_DEVICE_SIDE (1u << 24) /* category of device-side copies (gpu_user_annotation) */
#define TR_CPU_FUNCTIONS (1u << 25) /* "CPU functions", the pid of legacy PyTorch traces */

enum cat_class {
	CAT_OTHER,   /* unknown category */
	CAT_EMPTY,   /* no category */
	CAT_NODE,    /* ORT Node */
	CAT_SESSION, /* ORT Session */
	CAT_SHARED,  /* "Kernel": ORT CUDA EP and Kineto 2021 alike */
	CAT_KINETO,
	CAT_NEUTRAL, /* "Trace": both Kineto and others */
	CAT_NE,      /* NE inference / iteration */
};

#define TR_CLASS(tr) (((tr) >> 8) & 0xff)
#define TR_KIND(tr) (((tr) >> 16) & 0xff)

static const struct {
	const char *cat;
	uint8_t cls, kind;
} cat_table[] = {
	{ "Node", CAT_NODE, OSC_KIND_OTHER },
	{ "Session", CAT_SESSION, OSC_KIND_OTHER },
	{ "Kernel", CAT_SHARED, OSC_KIND_KERNEL },
	{ "cpu_op", CAT_KINETO, OSC_KIND_HOST_OP },
	{ "Operator", CAT_KINETO, OSC_KIND_HOST_OP },
	{ "python_function", CAT_KINETO, OSC_KIND_PYTHON },
	{ "cuda_runtime", CAT_KINETO, OSC_KIND_RUNTIME },
	{ "Runtime", CAT_KINETO, OSC_KIND_RUNTIME },
	{ "cuda_driver", CAT_KINETO, OSC_KIND_RUNTIME },
	{ "mtia_runtime", CAT_KINETO, OSC_KIND_RUNTIME },
	{ "kernel", CAT_KINETO, OSC_KIND_KERNEL },
	{ "mtia_ccp_events", CAT_KINETO, OSC_KIND_KERNEL },
	{ "gpu_memcpy", CAT_KINETO, OSC_KIND_MEMCPY },
	{ "Memcpy", CAT_KINETO, OSC_KIND_MEMCPY },
	{ "gpu_memset", CAT_KINETO, OSC_KIND_MEMSET },
	{ "Memset", CAT_KINETO, OSC_KIND_MEMSET },
	{ "user_annotation", CAT_KINETO, OSC_KIND_ANNOTATION },
	{ "gpu_user_annotation", CAT_KINETO, OSC_KIND_ANNOTATION },
	{ "ac2g", CAT_KINETO, OSC_KIND_FLOW },
	{ "async_cpu_to_gpu", CAT_KINETO, OSC_KIND_FLOW },
	{ "fwdbwd", CAT_KINETO, OSC_KIND_FLOW },
	{ "async", CAT_KINETO, OSC_KIND_FLOW },
	{ "cpu_instant_event", CAT_KINETO, OSC_KIND_OTHER },
	{ "cuda_sync", CAT_KINETO, OSC_KIND_OTHER },
	{ "cuda_profiler_range", CAT_KINETO, OSC_KIND_OTHER },
	{ "overhead", CAT_KINETO, OSC_KIND_OTHER },
	{ "Trace", CAT_NEUTRAL, OSC_KIND_OTHER },
	{ "inference", CAT_NE, OSC_KIND_OTHER },
	{ "iteration", CAT_NE, OSC_KIND_OTHER },
};




static int64_t offset_of(const struct chrome *ch, const char *p)
{
	return (int64_t)(ch->in->base + (uint64_t)(p - ch->in->data));
}

/* ---- strings and numbers ------------------------------------------------ */

static osc_str intern_val(struct chrome *ch, const struct js_val *v)
{
	char *o;
	size_t n;
	bool bad = false;

	switch (v->type) {
	case JS_NONE:
		return OSC_STR_EMPTY;
	case JS_STRING:
		if (!(v->flags & (JS_F_ESC | JS_F_HIGH)))
			return osc_trace_intern(ch->t, v->p, v->len);
		ch->scratch.len = 0;
		o = sb_room(&ch->scratch, JS_DECODE_MAX(v->len));
		n = js_decode_string(v, o, &bad);
		break;
	case JS_NUMBER:
	case JS_LITERAL:
		return osc_trace_intern(ch->t, v->p, v->len);
	default:
		ch->scratch.len = 0;
		o = sb_room(&ch->scratch, JS_DECODE_MAX(v->len));
		n = js_copy_minified(&ch->js, v, o, &bad);
		break;
	}
	if (bad)
		osc_trace_warn(ch->t, OSC_WARN_BAD_UTF8, offset_of(ch, v->p));
	return osc_trace_intern(ch->t, o, n);
}

/*
 * intern_val of event field f, first compared with the string f held in the
 * event before (consecutive events mostly share pid, tid and cat): a match
 * costs one memcmp instead of a hash and a probe.
 */
static osc_str intern_field(struct chrome *ch, const struct js_val *v, enum js_field f)
{
	const struct osc_strtab *st = &ch->t->strs;
	osc_str last = ch->last[f];
	/* values interned as written (intern_val's cases without a decoding) */
	bool as_is = v->type == JS_NUMBER || v->type == JS_LITERAL ||
		     (v->type == JS_STRING && !(v->flags & (JS_F_ESC | JS_F_HIGH)));

	if (as_is && last < st->count && osc_strtab_len(st, last) == v->len &&
	    !memcmp(osc_strtab_get(st, last), v->p, v->len))
		return last;
	return ch->last[f] = intern_val(ch, v);
}

/* A number or a numeric string, times 10^scale; false when absent or bad. */
static bool val_num(struct chrome *ch, const struct js_val *v, int scale, int64_t *out)
{
	const char *p = v->p;
	size_t n = v->len;
	enum js_num r;

	if (v->type == JS_STRING) {
		if (v->flags & JS_F_ESC)
			return false;
		while (n && (*p == ' ' || p[n - 1] == ' ')) {
			if (*p == ' ')
				p++;
			n--;
		}
	} else if (v->type != JS_NUMBER) {
		return false;
	}
	r = js_parse_scaled(p, n, scale, out);
	if (r == JS_NUM_BIG)
		osc_trace_warn(ch->t, OSC_WARN_BIG_NUMBER, offset_of(ch, v->p));
	return r != JS_NUM_BAD;
}

/* The code of an id (trace.h's osc_id), OSC_ID_NONE when absent or not a number. */
static osc_id val_id(struct chrome *ch, const struct js_val *v)
{
	int64_t x;

	return val_num(ch, v, 0, &x) ? osc_trace_id(ch->t, x) : OSC_ID_NONE;
}

static int32_t val_i32(struct chrome *ch, const struct js_val *v)
{
	int64_t x;

	if (!val_num(ch, v, 0, &x) || x < INT32_MIN || x > INT32_MAX)
		return -1;
	return (int32_t)x;
}

/* Next element of an array whose '[' is behind *pp; false at its end. */
static bool arr_next(struct js_ctx *c, const char **pp, struct js_val *v)
{
	const char *p = js_skip_ws(*pp, c->end);

	if (p < c->end && *p == ',')
		p = js_skip_ws(p + 1, c->end);
	if (p >= c->end || *p == ']' || js_scan_value(c, &p, v) != JS_OK) {
		*pp = c->end;
		return false;
	}
	*pp = p;
	return true;
}

/* A bounded scanner over an already scanned value. */
static void sub_ctx(struct js_ctx *c, const struct js_val *v)
{
	memset(c, 0, sizeof(*c));
	c->end = v->p + v->len;
	c->eof = true;
}

static void ints3(struct chrome *ch, const struct js_val *v, int32_t out[3])
{
	struct js_ctx c;
	struct js_val e;
	const char *p = v->p + 1;

	if (v->type != JS_ARRAY)
		return;
	sub_ctx(&c, v);
	for (int i = 0; i < 3 && arr_next(&c, &p, &e); i++)
		out[i] = val_i32(ch, &e);
}

/* ---- shapes ------------------------------------------------------------- */

static void add_text(struct sbuf *b, const struct js_val *v)
{
	bool bad = false;

	if (v->type == JS_STRING) {
		char *o = sb_room(b, JS_DECODE_MAX(v->len));

		b->len += js_decode_string(v, o, &bad);
		b->p[b->len] = '\0';
	} else if (v->type == JS_NUMBER || v->type == JS_LITERAL) {
		sb_add(b, v->p, v->len);
	}
}

/* [1,3,224,224] -> 1x3x224x224; nested arrays in brackets. */
static void add_dims(struct sbuf *b, const struct js_val *v, int depth)
{
	struct js_ctx c;
	struct js_val e;
	const char *p = v->p + 1;
	bool first = true;

	if (v->type != JS_ARRAY) {
		add_text(b, v);
		return;
	}
	sub_ctx(&c, v);
	while (arr_next(&c, &p, &e)) {
		if (!first)
			sb_addc(b, depth ? ',' : 'x');
		first = false;
		if (e.type == JS_ARRAY && depth < 4) {
			sb_addc(b, '[');
			add_dims(b, &e, depth + 1);
			sb_addc(b, ']');
		} else {
			add_text(b, &e);
		}
	}
}

/* ORT input_type_shape: [{"float":[1,3,224,224]},{"float":[16]}] */
static void shape_ort(struct sbuf *b, const struct js_val *v)
{
	struct js_ctx c, ce;
	struct js_val e, k, dims;
	const char *p = v->p + 1;

	if (v->type != JS_ARRAY)
		return;
	sub_ctx(&c, v);
	while (arr_next(&c, &p, &e)) {
		const char *q = e.p + 1;

		if (b->len)
			sb_addc(b, ',');
		if (e.type != JS_OBJECT) {
			add_dims(b, &e, 0);
			continue;
		}
		sub_ctx(&ce, &e);
		q = js_skip_ws(q, ce.end);
		if (q >= ce.end || *q != '"' || js_scan_string(&ce, &q, &k, ":") != JS_OK)
			continue;
		q = js_skip_ws(q, ce.end);
		if (q >= ce.end || *q != ':')
			continue;
		q = js_skip_ws(q + 1, ce.end);
		if (js_scan_value(&ce, &q, &dims) != JS_OK)
			continue;
		add_text(b, &k);
		sb_addc(b, '(');
		add_dims(b, &dims, 0);
		sb_addc(b, ')');
	}
}

/* Kineto "Input Dims": [[2048, 1], []] with "Input type": ["float", "Scalar"] */
static void shape_kineto(struct sbuf *b, const struct js_val *dims, const struct js_val *types)
{
	struct js_ctx cd, ct;
	struct js_val d, ty;
	bool have_types = types->type == JS_ARRAY;
	const char *pd = dims->p + 1, *pt = have_types ? types->p + 1 : NULL;

	if (dims->type != JS_ARRAY)
		return;
	sub_ctx(&cd, dims);
	if (have_types)
		sub_ctx(&ct, types);
	while (arr_next(&cd, &pd, &d)) {
		if (b->len)
			sb_addc(b, ',');
		if (have_types && arr_next(&ct, &pt, &ty))
			add_text(b, &ty);
		sb_addc(b, '(');
		add_dims(b, &d, 0);
		sb_addc(b, ')');
	}
}

/* Next comma-separated item of s[*i..n). */
static bool next_item(const char *s, size_t n, size_t *i, const char **item, size_t *len)
{
	size_t j = *i;

	if (j > n)
		return false;
	while (j < n && s[j] != ',')
		j++;
	*item = s + *i;
	*len = j - *i;
	*i = j + 1;
	return true;
}

/* Neural Engine: input_type "fp32,fp32," with input_shape "64*1024,256". */
static void shape_ne(struct chrome *ch, struct sbuf *b, const struct js_val *types,
		     const struct js_val *shapes)
{
	struct sbuf tb = { 0 };
	const char *ts, *ss, *t = "", *s;
	size_t tn, sn, ti = 0, si = 0, tl, sl;

	(void)ch;
	if (shapes->type != JS_STRING)
		return;
	add_text(&tb, types);
	tn = tb.len;
	add_text(&tb, shapes);
	ts = tb.p;
	ss = tb.p + tn;
	sn = tb.len - tn;
	while (next_item(ss, sn, &si, &s, &sl)) {
		if (!next_item(ts, tn, &ti, &t, &tl))
			tl = 0;
		if (!sl && !tl)
			continue;
		if (b->len)
			sb_addc(b, ',');
		sb_add(b, t, tl);
		sb_addc(b, '(');
		for (size_t k = 0; k < sl; k++)
			sb_addc(b, s[k] == '*' ? 'x' : s[k]);
		sb_addc(b, ')');
	}
	free(tb.p);
}

/* Append a value's type, length and raw bytes to a shape key. */
static void key_add(struct sbuf *b, const struct js_val *v)
{
	uint64_t len = v->len;

	sb_addc(b, (char)v->type);
	sb_add(b, (const char *)&len, sizeof(len));
	sb_add(b, v->p, v->len);
}

/*
 * The shape of an event's inputs. Ops repeat their inputs all through a
 * trace, so the raw bytes it is rendered from are looked up first (in
 * raw_shapes) and a shape is rendered once per distinct raw text.
 */
static osc_str render_shape(struct chrome *ch, const struct js_val *a)
{
	struct sbuf *b = &ch->shape, *key = &ch->shape_key;
	const struct js_val *from, *with = NULL;
	char how;
	osc_str id;

	if (a[JA_INPUT_TYPE_SHAPE].type) {
		how = 'o';
		from = &a[JA_INPUT_TYPE_SHAPE];
	} else if (a[JA_INPUT_DIMS].type) {
		how = 'k';
		from = &a[JA_INPUT_DIMS];
		with = &a[JA_INPUT_TYPE];
	} else if (a[JA_NE_INPUT_SHAPE].type) {
		how = 'n';
		from = &a[JA_NE_INPUT_SHAPE];
		with = &a[JA_NE_INPUT_TYPE];
	} else {
		return OSC_STR_EMPTY;
	}
	key->len = 0;
	sb_addc(key, how);
	key_add(key, from);
	if (with)
		key_add(key, with);
	if (!ch->raw_shapes.nslots) {
		osc_strtab_init(&ch->raw_shapes); /* id 0, "", is never a key */
		OSC_GROW(ch->shape_of, 1, ch->alloc_shape_of);
	}
	id = osc_strtab_intern(&ch->raw_shapes, key->p, key->len);
	if (id < ch->raw_shapes.count - 1)
		return ch->shape_of[id];
	b->len = 0;
	if (how == 'o')
		shape_ort(b, from);
	else if (how == 'k')
		shape_kineto(b, from, with);
	else
		shape_ne(ch, b, with, from);
	OSC_GROW(ch->shape_of, id + 1, ch->alloc_shape_of);
	ch->shape_of[id] = b->len ? osc_trace_intern(ch->t, b->p, b->len) : OSC_STR_EMPTY;
	return ch->shape_of[id];
}

/* ---- per-id traits, threads, processes ---------------------------------- */

static bool ends_with(const char *s, size_t n, const char *suffix)
{
	size_t k = strlen(suffix);

	return n >= k && !memcmp(s + n - k, suffix, k);
}

static uint32_t compute_traits(const char *s, size_t n)
{
	uint32_t tr = TR_DONE, cls = n ? CAT_OTHER : CAT_EMPTY, kind = OSC_KIND_OTHER;

	if (ends_with(s, n, "_kernel_time"))
		tr |= NT_KERNEL_TIME;
	if (ends_with(s, n, "_fence_before") || ends_with(s, n, "_fence_after"))
		tr |= NT_FENCE;
	if (n > 13 && !memcmp(s, "ProfilerStep#", 13))
		tr |= NT_STEP;
	if (n == 9 && !memcmp(s, "model_run", 9))
		tr |= NT_MODEL_RUN;
	if (n == 27 && !memcmp(s, "SequentialExecutor::Execute", 27))
		tr |= NT_SEQ_EXEC;
	if (n == 15 && !memcmp(s, "model_inference", 15))
		tr |= NT_NE_MODEL;
	if (n > 9 && !memcmp(s, "Iteration", 9) && s[9] >= '0' && s[9] <= '9')
		tr |= NT_NE_ITER;
	if (n > 6 && !memcmp(s, "aten::", 6))
		tr |= NT_ATEN;
	if (n == 13 && !memcmp(s, "CPU functions", 13))
		tr |= TR_CPU_FUNCTIONS;
	for (size_t i = 0; i < sizeof(cat_table) / sizeof(cat_table[0]); i++) {
		if (strlen(cat_table[i].cat) == n && !memcmp(cat_table[i].cat, s, n)) {
			cls = cat_table[i].cls;
			kind = cat_table[i].kind;
			break;
		}
	}
	if (n == 19 && !memcmp(s, "gpu_user_annotation", 19))
		tr |= TR_DEVICE_SIDE;
	return tr | cls << 8 | kind << 16;
}

static uint32_t traits(struct chrome *ch, osc_str id)
{
	if (id >= ch->alloc_traits) {
		size_t old = ch->alloc_traits, n = ch->t->strs.count + 1024;

		ch->traits = osc_xreallocarray(ch->traits, n, sizeof(*ch->traits));
		memset(ch->traits + old, 0, (n - old) * sizeof(*ch->traits));
		ch->alloc_traits = n;
	}
	if (!ch->traits[id])
		ch->traits[id] = compute_traits(osc_trace_str(ch->t, id),
						osc_strtab_len(&ch->t->strs, id));
	return ch->traits[id];
}

/* Count what a kept event says of the format (detect_format weighs it). */
static void vote(struct chrome *ch, const struct osc_event *e)
{
	uint32_t tc = traits(ch, e->cat), tn = traits(ch, e->name);

	switch (TR_CLASS(tc)) {
	case CAT_NODE:
	case CAT_SESSION:
		ch->votes.ort++;
		break;
	case CAT_KINETO:
		ch->votes.kineto++;
		break;
	case CAT_EMPTY:
		if ((tn & NT_ATEN) ||
		    (traits(ch, ch->t->threads[e->thread].pid) & TR_CPU_FUNCTIONS))
			ch->votes.legacy++;
		break;
	default:
		break;
	}
	if ((tn & NT_NE_MODEL) || ((tn & NT_NE_ITER) && TR_CLASS(tc) == CAT_NE))
		ch->votes.ne++;
}

uint32_t osc_chrome_thread_of(struct chrome *ch, osc_str pid, osc_str tid)
{
	uint64_t key = (uint64_t)pid << 32 | tid;
	size_t h = (size_t)((key * 0x9e3779b97f4a7c15ull) >> 40) & (TCACHE - 1);

	if (ch->tc_key[h] != key) {
		ch->tc_key[h] = key;
		ch->tc_val[h] = osc_trace_thread(ch->t, pid, tid);
	}
	return ch->tc_val[h];
}

struct proc *osc_chrome_proc_of(struct chrome *ch, osc_str pid)
{
	if (pid >= ch->alloc_proc_of) {
		size_t old = ch->alloc_proc_of, n = ch->t->strs.count + 1024;

		ch->proc_of = osc_xreallocarray(ch->proc_of, n, sizeof(*ch->proc_of));
		memset(ch->proc_of + old, 0xff, (n - old) * sizeof(*ch->proc_of));
		ch->alloc_proc_of = n;
	}
	if (ch->proc_of[pid] == OSC_NONE) {
		OSC_GROW(ch->procs, ch->nr_procs + 1, ch->alloc_procs);
		ch->procs[ch->nr_procs].name = OSC_STR_EMPTY;
		ch->procs[ch->nr_procs].sort = 0;
		ch->proc_of[pid] = (uint32_t)ch->nr_procs++;
	}
	return &ch->procs[ch->proc_of[pid]];
}

/* ---- events ------------------------------------------------------------- */

static bool name_is(const struct js_val *v, const char *s)
{
	size_t n = strlen(s);

	return v->type == JS_STRING && v->len == n && !memcmp(v->p, s, n);
}

static void metadata(struct chrome *ch, const struct js_event *ev, osc_str pid, osc_str tid)
{
	const struct js_val *name = &ev->f[JF_NAME], *a = ev->a;
	int64_t sort;

	ch->t->nr_metadata++;
	if (name_is(name, "process_name") && a[JA_NAME].type) {
		osc_chrome_proc_of(ch, pid)->name = intern_val(ch, &a[JA_NAME]);
	} else if (name_is(name, "process_sort_index")) {
		if (val_num(ch, &a[JA_SORT_INDEX], 0, &sort))
			osc_chrome_proc_of(ch, pid)->sort = sort;
	} else if (name_is(name, "thread_name") && a[JA_NAME].type) {
		osc_str s = intern_val(ch, &a[JA_NAME]);
		uint32_t th = osc_chrome_thread_of(ch, pid, tid); /* may move t->threads */

		ch->t->threads[th].thread_name = s;
	} else if (name_is(name, "thread_sort_index")) {
		if (val_num(ch, &a[JA_SORT_INDEX], 0, &sort)) {
			uint32_t th = osc_chrome_thread_of(ch, pid, tid);

			ch->t->threads[th].thread_sort = sort;
		}
	}
}

static void kernel_facts(struct chrome *ch, const struct js_val *a, struct osc_event *e)
{
	struct osc_kernel k = {
		.grid = { -1, -1, -1 }, .block = { -1, -1, -1 },
		.stream = -1, .device = -1, .registers = -1,
		.shared_mem = -1, .occupancy = -1, .bytes = -1,
	};
	int64_t x;

	if (a[JA_GRID].type) {
		ints3(ch, &a[JA_GRID], k.grid);
	} else {
		for (int i = 0; i < 3; i++)
			k.grid[i] = val_i32(ch, &a[JA_GRID_X + i]);
	}
	if (a[JA_BLOCK].type) {
		ints3(ch, &a[JA_BLOCK], k.block);
	} else {
		for (int i = 0; i < 3; i++)
			k.block[i] = val_i32(ch, &a[JA_BLOCK_X + i]);
	}
	k.stream = val_i32(ch, &a[JA_STREAM]);
	k.device = val_i32(ch, &a[JA_DEVICE]);
	k.registers = val_i32(ch, &a[JA_REGISTERS]);
	if (val_num(ch, &a[JA_SHARED_MEM], 0, &x))
		k.shared_mem = x;
	if (val_num(ch, &a[JA_BYTES], 0, &x))
		k.bytes = x;
	/* A percentage to a few decimals: thousandths are exact enough for a float. */
	if (val_num(ch, &a[JA_OCCUPANCY], 3, &x))
		k.occupancy = (float)((double)x / 1000.0);
	e->kernel = osc_trace_add_kernel(ch->t, &k);
}

/* Minified copy of the args object into ch->scratch; returns its length. */
static size_t copy_args(struct chrome *ch, const struct js_val *args)
{
	bool bad = false;
	size_t n;
	char *o;

	if (args->type != JS_OBJECT)
		return 0;
	ch->scratch.len = 0;
	o = sb_room(&ch->scratch, JS_DECODE_MAX(args->len));
	n = js_copy_minified(&ch->js, args, o, &bad);
	if (bad)
		osc_trace_warn(ch->t, OSC_WARN_BAD_UTF8, offset_of(ch, args->p));
	return n == 2 ? 0 : n; /* "{}" is no args */
}

/* An args object with nothing between its braces. */
static bool args_empty(const struct js_val *args)
{
	const char *p = js_skip_ws(args->p + 1, args->p + args->len);

	return *p == '}';
}

bool osc_chrome_keep(struct chrome *ch, const struct osc_event *e, int64_t off)
{
	if (ch->t->nr_events >= OSC_MAX_EVENTS) {
		osc_trace_warn(ch->t, OSC_WARN_TOO_MANY_EVENTS, off);
		return false;
	}
	vote(ch, e);
	return true;
}

/*
 * Store an event with its args: where their text can be rendered later
 * exactly as copy_args would now (ASCII, nothing repaired), by reference
 * into the mapped file, or for a spooled input, as a copy of the text as it
 * is; else as a minified copy.
 */
static void add_event(struct chrome *ch, const struct osc_event *e,
		      const struct osc_event_extra *x, const struct js_val *args, int64_t off)
{
	uint64_t at;

	if (!osc_chrome_keep(ch, e, off))
		return;
	if (ch->in->stable && args->type == JS_OBJECT &&
	    !(args->flags & (JS_F_HIGH | JS_F_REPAIR))) {
		at = (uint64_t)offset_of(ch, args->p);
		if (args_empty(args)) {
			osc_trace_add_event(ch->t, e, x, NULL, 0);
			return;
		}
		if (ch->raw_args) {
			osc_trace_add_event_raw(ch->t, e, x, args->p, args->len);
			return;
		}
		if (at < OSC_ARGS_REF_MAX_OFF) {
			osc_trace_add_event_ref(ch->t, e, x, OSC_ARGS_REF(at));
			ch->used_refs = true;
			return;
		}
	}
	at = copy_args(ch, args);
	osc_trace_add_event(ch->t, e, x, ch->scratch.p, (size_t)at);
}

void osc_chrome_add_pending(struct chrome *ch, const struct osc_event *e,
			    const struct osc_event_extra *x, bool begin, int64_t off,
			    size_t args_len)
{
	struct pending *pe;

	OSC_GROW(ch->pend, ch->nr_pend + 1, ch->alloc_pend);
	pe = &ch->pend[ch->nr_pend];
	pe->ev = *e;
	pe->extra = x ? *x : osc_event_no_extra(e);
	pe->begin = begin;
	pe->offset = off;
	pe->seq = (uint32_t)ch->nr_pend++;
	pe->args = 0;
	if (args_len) {
		if (!ch->be_args.len)
			sb_addc(&ch->be_args, '\0');
		pe->args = ch->be_args.len;
		sb_add(&ch->be_args, ch->scratch.p, args_len);
		ch->be_args.len++; /* keep the NUL sb_add wrote */
	}
}

static uint8_t phase_of(char ph)
{
	switch (ph) {
	case 'X':
	case 'B':
	case 'E':
		return OSC_PH_COMPLETE;
	case 'i':
	case 'I':
		return OSC_PH_INSTANT;
	case 's':
		return OSC_PH_FLOW_START;
	case 't':
		return OSC_PH_FLOW_STEP;
	case 'f':
		return OSC_PH_FLOW_END;
	case 'C':
		return OSC_PH_COUNTER;
	default:
		return OSC_PH_OTHER;
	}
}

static void process_event(struct chrome *ch, const struct js_event *ev, int64_t off)
{
	struct osc_trace *t = ch->t;
	const struct js_val *f = ev->f, *a = ev->a;
	struct osc_event e;
	struct osc_event_extra x;
	osc_str pid, tid;
	size_t args_len;
	char ph;

	ch->nr_elems++;
	if (!ev->is_object || f[JF_PH].type != JS_STRING || !f[JF_PH].len) {
		osc_trace_warn(t, OSC_WARN_BAD_EVENT, off);
		return;
	}
	ph = f[JF_PH].p[0];
	if (f[JF_PH].len != 1 || !strchr("BEXiICbnestfPONDSTpFMVvRc()", ph)) {
		osc_trace_warn(t, OSC_WARN_UNKNOWN_PHASE, off);
		return;
	}
	t->ph_counts[(unsigned char)ph]++;
	pid = intern_field(ch, &f[JF_PID], JF_PID);
	tid = intern_field(ch, &f[JF_TID], JF_TID);
	if (ph == 'M') {
		metadata(ch, ev, pid, tid);
		return;
	}
	memset(&e, 0, sizeof(e));
	if (!val_num(ch, &f[JF_TS], 3, &e.ts)) {
		osc_trace_warn(t, OSC_WARN_BAD_EVENT, off);
		return;
	}
	e.thread = osc_chrome_thread_of(ch, pid, tid);
	e.ph = phase_of(ph);
	e.corr_id = OSC_ID_NONE;
	e.ext = OSC_ID_NONE;
	e.kernel = OSC_NONE;
	e.name = intern_field(ch, &f[JF_NAME], JF_NAME);
	if (ph == 'E') {
		osc_chrome_add_pending(ch, &e, NULL, false, off, 0);
		return;
	}
	e.cat = intern_field(ch, &f[JF_CAT], JF_CAT);
	if (ph == 'X') {
		/* No dur (speedscope writes only tdur, a thread time): 0. */
		if (!val_num(ch, &f[JF_DUR], 3, &e.dur)) {
			if (f[JF_DUR].type) { /* there, but Infinity, NaN, true... */
				osc_trace_warn(t, OSC_WARN_BAD_DUR, off);
				return;
			}
			e.flags |= OSC_EVF_NO_DUR;
		}
		if (e.dur < 0) {
			e.dur = 0;
			e.flags |= OSC_EVF_NEG_DUR;
			osc_trace_warn(t, OSC_WARN_NEGATIVE_DUR, off);
		}
	}
	x.op = a[JA_OP_NAME].type ? intern_val(ch, &a[JA_OP_NAME]) : e.name;
	x.provider = intern_val(ch, &a[JA_PROVIDER]);
	e.shape = render_shape(ch, a);
	if (osc_phase_is_flow(e.ph))
		e.corr_id = val_id(ch, f[JF_ID].type ? &f[JF_ID] : &f[JF_BIND_ID]);
	else
		e.corr_id = val_id(ch, a[JA_CORRELATION].type ? &a[JA_CORRELATION] :
							       &a[JA_CORRELATION_ID]);
	e.ext = val_id(ch, &a[JA_EXTERNAL_ID]);
	if (e.ph == OSC_PH_COMPLETE && osc_kind_is_device(TR_KIND(traits(ch, e.cat))))
		kernel_facts(ch, a, &e);
	if (ph == 'B') {
		args_len = copy_args(ch, &f[JF_ARGS]);
		osc_chrome_add_pending(ch, &e, &x, true, off, args_len);
	} else {
		add_event(ch, &e, &x, &f[JF_ARGS], off);
	}
}

/* ---- the top level ------------------------------------------------------ */

static void add_meta(struct chrome *ch, const struct js_val *key, const struct js_val *v)
{
	bool bad = false;
	char *o;

	if (v->len > META_VALUE_MAX && !name_is(key, "deviceProperties"))
		return;
	sb_addc(&ch->meta, ch->meta.len ? ',' : '{');
	o = sb_room(&ch->meta, JS_DECODE_MAX(key->len) + 1);
	ch->meta.len += js_copy_minified(NULL, key, o, &bad);
	sb_addc(&ch->meta, ':');
	o = sb_room(&ch->meta, JS_DECODE_MAX(v->len));
	ch->meta.len += js_copy_minified(&ch->js, v, o, &bad);
	ch->meta.p[ch->meta.len] = '\0';
}

#define EXPECT(cond, at, what)                                 \
	do {                                                   \
		if (!(cond)) {                                 \
			ch->js.err_at = (at);                  \
			ch->js.msg = (what);                   \
			return JS_ERR;                         \
		}                                              \
	} while (0)

/* One step of the top-level walk from *pp. Side effects only on JS_OK. */
static enum js_rc step(struct chrome *ch, const char **pp)
{
	struct js_ctx *c = &ch->js;
	const char *p = js_skip_ws(*pp, c->end);
	struct js_val k, v;
	enum js_rc rc;

	if (ch->state == ST_DONE) {
		if (p >= c->end && !c->eof)
			return JS_MORE;
		if (p < c->end)
			osc_trace_warn(ch->t, OSC_WARN_TRAILING_DATA, offset_of(ch, p));
		ch->state = ST_END;
		*pp = p;
		return JS_OK;
	}
	if (p >= c->end)
		return c->eof ? JS_EOF : JS_MORE;
	switch (ch->state) {
	case ST_START:
		if (c->end - p >= 3 && !memcmp(p, "\xef\xbb\xbf", 3))
			p = js_skip_ws(p + 3, c->end);
		if (p >= c->end)
			return c->eof ? JS_EOF : JS_MORE;
		EXPECT(*p == '[' || *p == '{', p, "expected '[' or '{'");
		ch->object_top = *p == '{';
		ch->state = ch->object_top ? ST_OBJ_KEY : ST_ARR_ELEM;
		p++;
		break;
	case ST_OBJ_KEY:
		if (*p == '}') {
			ch->state = ST_DONE;
			p++;
			break;
		}
		EXPECT(*p == '"', p, "expected a key or '}'");
		rc = js_scan_string(c, &p, &k, ":");
		if (rc != JS_OK)
			return rc;
		p = js_skip_ws(p, c->end);
		if (p >= c->end)
			return c->eof ? JS_EOF : JS_MORE;
		EXPECT(*p == ':', p, "expected ':' after key");
		p = js_skip_ws(p + 1, c->end);
		if (p >= c->end)
			return c->eof ? JS_EOF : JS_MORE;
		if (name_is(&k, "traceEvents") && ch->saw_events) {
			/* The first array is the trace: this value is scanned and dropped. */
			int64_t at = offset_of(ch, p);

			rc = js_scan_value(c, &p, &v);
			if (rc != JS_OK)
				return rc;
			osc_trace_warn(ch->t, OSC_WARN_SECOND_EVENTS, at);
			ch->state = ST_OBJ_SEP;
			break;
		}
		if (name_is(&k, "traceEvents") && *p == '[') {
			ch->saw_events = true;
			ch->in_object = true;
			ch->state = ST_ARR_ELEM;
			p++;
			break;
		}
		rc = js_scan_value(c, &p, &v);
		if (rc != JS_OK)
			return rc;
		if (name_is(&k, "traceEvents")) {
			ch->events_not_array = true;
			ch->events_at = offset_of(ch, v.p);
		}
		if (name_is(&k, "schemaVersion") || name_is(&k, "deviceProperties"))
			ch->kineto_keys = true;
		add_meta(ch, &k, &v);
		ch->state = ST_OBJ_SEP;
		break;
	case ST_OBJ_SEP:
		EXPECT(*p == ',' || *p == '}', p, "expected ',' or '}' after a top-level value");
		ch->state = *p == ',' ? ST_OBJ_KEY : ST_DONE;
		p++;
		break;
	case ST_ARR_ELEM:
	case ST_ARR_SEP:
		if (*p == ']') {
			ch->state = ch->in_object ? ST_OBJ_SEP : ST_DONE;
			p++;
			break;
		}
		if (ch->state == ST_ARR_SEP) {
			EXPECT(*p == ',', p, "expected ',' or ']' in traceEvents");
			ch->state = ST_ARR_ELEM;
			p++;
			break;
		}
		{
			const char *start = p;

			rc = js_scan_event(c, &p, &ch->ev);
			if (rc != JS_OK)
				return rc;
			process_event(ch, &ch->ev, offset_of(ch, start));
		}
		ch->state = ST_ARR_SEP;
		break;
	default:
		break;
	}
	*pp = p;
	return JS_OK;
}

enum js_rc osc_chrome_step(struct chrome *ch, const char **pp)
{
	enum js_rc rc;

	ch->js.end = ch->in->data + ch->in->len;
	ch->js.eof = ch->in->eof;
	ch->js.repairs = 0;
	ch->js.nr_repair_at = 0;
	rc = step(ch, pp);
	if (rc == JS_OK && ch->js.repairs) {
		struct osc_warning *w = &ch->t->warnings[OSC_WARN_UNESCAPED_QUOTE];

		if (!w->count)
			w->first_offset = offset_of(ch, ch->js.repair_at[0]);
		w->count += ch->js.repairs;
	}
	return rc;
}


static enum osc_status walk(struct chrome *ch)
{
	struct osc_load_ctx *lc = ch->lc;
	struct osc_input *in = ch->in;
	size_t pos = 0;
	enum osc_status st;

	while (ch->state != ST_END) {
		const char *p = in->data + pos;
		enum js_rc rc;

		if (ch->state == ST_ARR_ELEM && osc_chrome_can_split(ch, p)) {
			ch->tried_split = true;
			st = osc_chrome_parallel_events(ch, &p);
			if (st != OSC_OK)
				return st;
			pos = (size_t)(p - in->data);
			continue;
		}
		rc = osc_chrome_step(ch, &p);
		if (rc == JS_OK) {
			pos = (size_t)(p - in->data);
			if (in->base + pos >= ch->next_tick) {
				ch->next_tick = in->base + pos + TICK_STEP;
				/* A decoder waiting for room gets it; once it is done, the rest
				   can parse on every core. The window may move: p follows pos. */
				osc_input_poll(in);
				osc_input_consumed(in, pos);
				lc->parsed = in->base + pos;
				st = osc_load_tick(lc, lc->parsed);
				if (st != OSC_OK)
					return st;
			}
			continue;
		}
		if (rc == JS_MORE) {
			/* Every step starts by skipping white space: drop it now, so a
			   long run of it (a gzip bomb) is scanned once and not kept. */
			pos = (size_t)(js_skip_ws(in->data + pos, in->data + in->len) - in->data);
			osc_input_consumed(in, pos);
			st = osc_input_more(in, pos, lc->name, lc->err);
			if (st != OSC_OK)
				return st;
			pos = 0;
			continue;
		}
		if (rc == JS_EOF) {
			osc_trace_warn(ch->t, OSC_WARN_TRUNCATED, (int64_t)(in->base + pos));
			return OSC_OK;
		}
		return osc_error_set(lc->err, OSC_NOT_JSON, lc->name, offset_of(ch, ch->js.err_at),
				     ch->state == ST_ARR_ELEM || ch->state == ST_ARR_SEP ?
					     "traceEvents" : NULL,
				     "%s", ch->js.msg);
	}
	return OSC_OK;
}

/* ---- the end: processes, format, kinds ------------------------------------ */

/* The format the kept events vote for (counted as they were kept). */
static enum osc_format detect_format(const struct chrome *ch)
{
	const struct votes *v = &ch->votes;

	if (ch->kineto_keys)
		return OSC_FORMAT_KINETO;
	if (v->ne && !v->ort && !v->kineto)
		return OSC_FORMAT_NEURAL_ENGINE;
	if (v->ort && v->ort >= v->kineto && v->ort >= v->legacy)
		return OSC_FORMAT_ORT;
	if (v->kineto && v->kineto >= v->legacy)
		return OSC_FORMAT_KINETO;
	if (v->legacy)
		return OSC_FORMAT_PYTORCH_LEGACY;
	return OSC_FORMAT_CHROME;
}

static uint8_t classify(enum osc_format fmt, const struct osc_event *e, uint32_t tc, uint32_t tn)
{
	unsigned cls = TR_CLASS(tc), kind = TR_KIND(tc);
	bool complete = e->ph == OSC_PH_COMPLETE;
	bool known = cls == CAT_KINETO || cls == CAT_SHARED;

	if (osc_phase_is_flow(e->ph))
		return OSC_KIND_FLOW;
	/* Kineto repeats ProfilerStep#N on the GPU timeline: only the host one is a run. */
	if (complete && (tn & NT_STEP) && !(tc & TR_DEVICE_SIDE))
		return OSC_KIND_RUN;
	switch (fmt) {
	case OSC_FORMAT_ORT:
		if (cls == CAT_NODE)
			return tn & NT_KERNEL_TIME ? OSC_KIND_HOST_OP :
			       tn & NT_FENCE	   ? OSC_KIND_FENCE :
						     OSC_KIND_OTHER;
		if (cls == CAT_SESSION)
			return tn & NT_MODEL_RUN ? OSC_KIND_RUN :
			       tn & NT_SEQ_EXEC	 ? OSC_KIND_EXECUTOR :
						   OSC_KIND_SESSION;
		return known ? kind : OSC_KIND_OTHER;
	case OSC_FORMAT_KINETO:
		return known ? kind : OSC_KIND_OTHER;
	case OSC_FORMAT_PYTORCH_LEGACY:
		return complete ? OSC_KIND_HOST_OP : OSC_KIND_OTHER;
	case OSC_FORMAT_NEURAL_ENGINE:
		if (tn & NT_NE_MODEL)
			return OSC_KIND_SESSION;
		if (tn & NT_NE_ITER)
			return OSC_KIND_RUN;
		return complete ? OSC_KIND_HOST_OP : OSC_KIND_OTHER;
	default:
		if (known && kind != OSC_KIND_OTHER)
			return kind;
		return complete ? OSC_KIND_HOST_OP : OSC_KIND_OTHER;
	}
}

#define CLASSIFY_PART 100000 /* events worth a thread of classify_all */

/* Events [n * i / parts, n * (i + 1) / parts) of classify_all, on thread i. */
struct classify_job {
	struct chrome *ch;
	size_t parts;
};

static void classify_part(void *arg, size_t i)
{
	const struct classify_job *j = arg;
	struct osc_trace *t = j->ch->t;
	const uint32_t *tr = j->ch->traits;

	for (size_t k = t->nr_events * i / j->parts; k < t->nr_events * (i + 1) / j->parts; k++) {
		struct osc_event *e = &t->events[k];

		e->kind = classify(t->format, e, tr[e->cat], tr[e->name]);
		if (t->format == OSC_FORMAT_NEURAL_ENGINE && e->kind == OSC_KIND_HOST_OP &&
		    e->cat != OSC_STR_EMPTY)
			t->extras[k].op = e->cat;
	}
}

/* Every event's kind, on all cores (the traits of every string are computed first). */
static void classify_all(struct chrome *ch)
{
	struct classify_job j = { .ch = ch,
				  .parts = osc_parallel_parts(ch->t->nr_events, CLASSIFY_PART) };

	for (size_t id = 0; id < ch->t->strs.count; id++)
		traits(ch, (osc_str)id);
	if (ch->t->format == OSC_FORMAT_NEURAL_ENGINE && !ch->t->extras)
		osc_trace_start_extras(ch->t); /* its ops are categories */
	osc_parallel_run(j.parts, classify_part, &j);
}

static void finish(struct chrome *ch)
{
	struct osc_trace *t = ch->t;

	osc_chrome_match_pairs(ch);
	for (size_t i = 0; i < t->nr_threads; i++) {
		struct osc_thread *th = &t->threads[i];

		if (th->pid < ch->alloc_proc_of && ch->proc_of[th->pid] != OSC_NONE) {
			th->process_name = ch->procs[ch->proc_of[th->pid]].name;
			th->process_sort = ch->procs[ch->proc_of[th->pid]].sort;
		}
	}
	t->format = detect_format(ch);
	classify_all(ch);
	free(t->meta_json);
	if (ch->meta.len) {
		sb_addc(&ch->meta, '}');
		t->meta_json = ch->meta.p;
		ch->meta.p = NULL;
	} else {
		t->meta_json = osc_xstrdup("");
	}
	osc_trace_sort(t);
}

void osc_chrome_init(struct chrome *ch, struct osc_load_ctx *lc, struct osc_trace *t,
		     struct osc_input *in)
{
	ch->lc = lc;
	ch->t = t;
	ch->in = in;
	ch->raw_args = osc_input_spooled(in);
	ch->next_tick = TICK_STEP;
	memset(ch->tc_key, 0xff, sizeof(ch->tc_key));
}

void osc_chrome_release(struct chrome *ch)
{
	free(ch->scratch.p);
	free(ch->shape.p);
	free(ch->shape_key.p);
	osc_strtab_release(&ch->raw_shapes);
	free(ch->shape_of);
	free(ch->meta.p);
	free(ch->pend);
	free(ch->be_args.p);
	free(ch->procs);
	free(ch->proc_of);
	free(ch->traits);
}

static bool kept_something(const struct chrome *ch)
{
	return ch->t->nr_events || ch->t->nr_metadata || ch->nr_pend;
}

static enum osc_status chrome_load(struct osc_load_ctx *lc)
{
	struct chrome *ch = osc_xcalloc(1, sizeof(*ch));
	struct osc_input *in = &lc->in;
	enum osc_status st;

	osc_chrome_init(ch, lc, lc->t, in);
	st = walk(ch);
	if (st == OSC_OK && (in->z_check_failed || (in->z_bad && !in->z_cut))) {
		/* Corrupt gzip data (not just cut short) is bad input even when
		   some events decoded: what they say cannot be trusted. */
		st = osc_error_set(lc->err, OSC_GZIP, lc->name, (int64_t)(in->base + in->len),
				   NULL, "%s (after %llu compressed bytes)", in->z_msg,
				   (unsigned long long)in->file_read);
	} else if (st == OSC_OK && ch->state != ST_END) {
		/* The input ended early (the TRUNCATED warning is counted). */
		if (!kept_something(ch) || (ch->object_top && !ch->saw_events))
			st = osc_error_set(lc->err, OSC_TRUNCATED, lc->name,
					   (int64_t)(in->base + in->len), NULL,
					   "input ends before the first complete event");
	} else if (st == OSC_OK && ch->object_top && !ch->saw_events) {
		/* At the value, or at the end of the object that has none. */
		st = osc_error_set(lc->err, OSC_NOT_TRACE, lc->name,
				   ch->events_not_array ? ch->events_at
							: (int64_t)(in->base + in->len),
				   "traceEvents",
				   ch->events_not_array ? "traceEvents is not an array" :
							  "an object without traceEvents");
	} else if (st == OSC_OK && ch->nr_elems && !kept_something(ch)) {
		/* At the first element that was not an event. */
		st = osc_error_set(lc->err, OSC_NOT_TRACE, lc->name,
				   ch->t->warnings[OSC_WARN_BAD_EVENT].count
					   ? ch->t->warnings[OSC_WARN_BAD_EVENT].first_offset
					   : (int64_t)(in->base + in->len),
				   NULL, "no trace events (objects with ph and ts)");
	}
	if (st == OSC_OK) {
		finish(ch);
		if (ch->used_refs && osc_input_detach_map(in, &ch->t->args_map,
							  &ch->t->args_map_len,
							  &ch->t->args_guard))
			ch->t->args_src = ch->t->args_map;
	}
	osc_chrome_release(ch);
	free(ch);
	return st;
}

static bool chrome_probe(const unsigned char *head, size_t len)
{
	size_t i = 0;

	if (osc_head_is_binary(head, len))
		return false;
	if (len >= 3 && !memcmp(head, "\xef\xbb\xbf", 3))
		i = 3;
	while (i < len && (head[i] == ' ' || head[i] == '\n' || head[i] == '\r' || head[i] == '\t'))
		i++;
	return i < len && (head[i] == '[' || head[i] == '{');
}

const struct osc_loader osc_loader_chrome = {
	.name = "chrome-trace",
	.probe = chrome_probe,
	.load = chrome_load,
};
