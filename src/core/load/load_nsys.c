/*
 * load_nsys.c - Nsight Systems SQLite exports (`nsys export --type sqlite`).
 *
 * Tables read: StringIds (once, sqlite_ids.c: every name column is an id
 * into it), CUPTI_ACTIVITY_KIND_RUNTIME (CUDA runtime and driver calls), _KERNEL, _MEMCPY, _MEMSET, NVTX_EVENTS (push/pop and
 * start/end ranges, marks, domain names), ThreadNames, PROCESSES, and for
 * `info` only TARGET_INFO_GPU names, the NvDriverVersion and
 * CudaDriverVersion rows of TARGET_INFO_SYSTEM_ENV (no other row of that
 * table is ever read: it holds the environment) and META_DATA_EXPORT's product
 * and schema versions.
 *
 * Thread keys are nsys's serialized globalTid: pid = (id >> 24) & 0xffffff,
 * tid = id & 0xffffff. Columns missing from older schemas read as NULL.
 *
 * Nsight Systems 2022 exports record each CUDA API call twice: two rows of
 * CUPTI_ACTIVITY_KIND_RUNTIME with the same correlationId. Each call is one
 * event: of the rows with the same process (globalTid >> 24) and
 * correlationId, the one with the longest span is kept (it covers the whole
 * call), the first of them on a tie; the others are counted in
 * OSC_WARN_REPEATED_CALL. Rows without a correlationId are all kept.
 *
 * The API rows, the biggest table, are read on a connection of their own on
 * the core beside the load when there is one (load_sqlite.c: before its
 * quick_check), while the load reads the other tables; they are added last
 * (on one thread too), and the threads are then numbered as the calls name
 * them first (callers_first), as when the calls were read first.
 *
 * Limits:
 * - The runtime rows are held in memory (48 bytes each) until the rows
 *   repeating a call are known; their pages are given back as they become
 *   events.
 * - NVTX ranges without an end (still open when the capture stopped) are
 *   dropped and counted as OSC_WARN_UNMATCHED_BEGIN.
 * - A start/end range belongs to the thread that started it.
 * - NVTX categories, colors and payloads are not read; nor are OS runtime,
 *   sampling, synchronization and graphics tables.
 */
#include <json-c/json.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "opscope/base/alloc.h"
#include "base/parallel.h"
#include "load/load_sqlite.h"

#define SIDE_POLL_NS 100000 /* how often the load looks whether the API rows are read */
#define SIDE_POLLS_PER_REPORT 500 /* progress while it waits for them: every 50 ms */
#define GIVE_BACK_ROWS 65536 /* API rows between giving pages back (sq_give_back_pages) */

/* NVTX event types (ENUM_NSYS_EVENT_TYPE), read from the file when it has the enum. */
struct nvtx_types {
	int64_t mark, push_pop, start_end, domain;
};

static int64_t pid_of(int64_t gtid)
{
	return (gtid >> 24) & 0xffffff;
}

static uint32_t host_thread(struct sq *q, int64_t gtid)
{
	return sq_thread(q, gtid, pid_of(gtid), gtid & 0xffffff);
}

/* A CUDA API row, held until the rows repeating its call are known. */
struct api_call {
	int64_t start, end, gtid, corr;
	int64_t name;  /* its StringIds id */
	bool named;    /* name holds one (not NULL) */
	bool repeat;   /* another row of the same call is kept instead */
};

struct api_calls {
	struct api_call *v;
	size_t nr, alloc;
	uint32_t *slots; /* (process, correlation id) -> index in v, UINT32_MAX: empty */
	size_t nslots;   /* power of two, more than twice nr */
};

/*
 * The rows of CUDA API calls, read on rq's connection: the load's, or one
 * beside it (so the rows only hold the names' ids; add_calls looks them up).
 */
static enum osc_status read_calls(struct sq *rq, struct api_calls *c)
{
	static const char table[] = "CUPTI_ACTIVITY_KIND_RUNTIME";
	static const char *const cols[] = { "start", "end", "globalTid", "correlationId" };
	char *cols_sql;
	sqlite3_stmt *st;
	int rc;

	if (!sq_has_table(rq, table))
		return OSC_OK;
	cols_sql = sq_columns(rq, table, "r", cols, 4);
	st = sq_prepare(rq, table, "SELECT %s, %s FROM %s r", cols_sql,
			sq_has_column(rq, table, "nameId") ? "r.nameId" : "NULL", table);
	free(cols_sql);
	if (!st)
		return rq->lc->err->code;
	c->alloc = sq_table_rows(rq, table); /* the rows, not copied as they grow */
	c->v = osc_xmalloc_big(c->alloc ? c->alloc : 1, sizeof(*c->v));
	while ((rc = sq_step(rq, st, table)) == SQLITE_ROW) {
		OSC_GROW(c->v, c->nr + 1, c->alloc);
		c->v[c->nr++] = (struct api_call){
			.start = sq_int(st, 0, 0), .end = sq_int(st, 1, 0),
			.gtid = sq_int(st, 2, 0), .corr = sq_int(st, 3, OSC_NO_ID),
			.name = sqlite3_column_int64(st, 4),
			.named = sqlite3_column_type(st, 4) == SQLITE_INTEGER,
		};
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? OSC_OK : rq->lc->err->code;
}

/* A row's span as sq_add stores it (0 when negative or beyond 64 bits). */
static int64_t call_span(const struct api_call *x)
{
	int64_t d;

	return x->end < x->start || __builtin_sub_overflow(x->end, x->start, &d) ? 0 : d;
}

/* The slot of call i's (process, correlation id): the kept row's, or an empty one. */
static size_t call_slot(const struct api_calls *c, size_t i)
{
	const struct api_call *x = &c->v[i];
	uint64_t h = ((uint64_t)(x->gtid >> 24) * 0x9e3779b97f4a7c15u) ^
		     ((uint64_t)x->corr * 0xc2b2ae3d27d4eb4fu);
	size_t s = (size_t)(h ^ (h >> 29)) & (c->nslots - 1);

	while (c->slots[s] != UINT32_MAX) {
		const struct api_call *y = &c->v[c->slots[s]];

		if (y->corr == x->corr && y->gtid >> 24 == x->gtid >> 24)
			break;
		s = (s + 1) & (c->nslots - 1);
	}
	return s;
}

/* Of the rows of one call (same process and correlation id), mark all but the longest. */
static void mark_repeats(struct sq *q, struct api_calls *c)
{
	for (c->nslots = 16; c->nslots <= 2 * c->nr; c->nslots *= 2)
		;
	c->slots = osc_xmalloc(c->nslots * sizeof(*c->slots));
	memset(c->slots, 0xff, c->nslots * sizeof(*c->slots));
	for (size_t i = 0; i < c->nr; i++) {
		size_t s;
		struct api_call *kept;

		if (i % GIVE_BACK_ROWS == 0)
			sq_give_back_pages(q->lc);
		if (c->v[i].corr == OSC_NO_ID)
			continue;
		s = call_slot(c, i);
		if (c->slots[s] == UINT32_MAX) {
			c->slots[s] = (uint32_t)i;
			continue;
		}
		osc_trace_warn(q->t, OSC_WARN_REPEATED_CALL, OSC_NO_OFFSET);
		kept = &c->v[c->slots[s]];
		if (call_span(&c->v[i]) > call_span(kept)) {
			kept->repeat = true;
			c->slots[s] = (uint32_t)i;
		} else {
			c->v[i].repeat = true;
		}
	}
	free(c->slots); /* before the calls become events: room for them */
	c->slots = NULL;
}

/* The calls as events; the pages of the rows added are given back as it goes. */
static void add_calls(struct sq *q, struct api_calls *c)
{
	for (size_t i = 0; i < c->nr; i++) {
		const struct api_call *x = &c->v[i];
		struct osc_event e = { .kind = OSC_KIND_RUNTIME, .ext = OSC_ID_NONE };
		const char *name;

		if (i && i % GIVE_BACK_ROWS == 0) {
			osc_give_back(c->v, sizeof(*c->v), i - GIVE_BACK_ROWS, i);
			sq_give_back_pages(q->lc);
		}

		/* looked up for every row, as reading the rows with their names would */
		if (!x->named || !sq_id_lookup(q, x->name, &e.name))
			e.name = OSC_STR_EMPTY;
		if (x->repeat)
			continue;
		name = osc_trace_str(q->t, e.name);
		e.corr_id = osc_trace_id(q->t, x->corr);
		e.thread = host_thread(q, x->gtid);
		/* cuLaunchKernel is the driver API, cudaLaunchKernel the runtime */
		e.cat = strncmp(name, "cu", 2) || !strncmp(name, "cuda", 4) ? q->cat_runtime
									    : q->cat_driver;
		sq_add(q, &e, x->start, x->end, NULL, 0);
	}
}

struct nsys_side {
	struct osc_load_ctx lc; /* the load's name and options, with err */
	struct osc_error err;
	struct sq q;            /* its own connection, without the trace (never touched) */
	struct api_calls calls;
	enum osc_status st;
	struct osc_claim read;  /* one thread reads them */
	_Atomic uint64_t rows;  /* rows read so far */
};

struct nsys_side *osc_nsys_side_new(struct sq *q, unsigned char *data, size_t len)
{
	struct nsys_side *s = osc_xcalloc(1, sizeof(*s));

	s->lc = (struct osc_load_ctx){ .name = q->lc->name, .err = &s->err, .opts = q->lc->opts };
	s->q = (struct sq){ .lc = &s->lc, .beside = true, .side_rows = &s->rows };
	if (sq_connect(&s->lc, data, len, &s->q.db) != SQLITE_OK) {
		osc_nsys_side_free(s);
		return NULL;
	}
	q->side_rows = &s->rows;
	return s;
}

void osc_nsys_side_read(struct nsys_side *s)
{
	if (!osc_claim_take(&s->read))
		return;
	s->st = read_calls(&s->q, &s->calls);
	atomic_store(&s->rows, s->q.rows);
	osc_claim_done(&s->read);
}

void osc_nsys_side_free(struct nsys_side *s)
{
	if (!s)
		return;
	sqlite3_close(s->q.db);
	free(s->calls.v);
	free(s);
}

/*
 * CUDA runtime and driver calls, one event per call (see the top comment):
 * the rows read beside the load when they are (waiting for the thread that
 * reads them), else here.
 */
static enum osc_status runtime(struct sq *q)
{
	struct nsys_side *side = q->nsys_side;
	struct api_calls own = { 0 }, *c = side ? &side->calls : &own;
	enum osc_status st;

	if (side) {
		osc_nsys_side_read(side); /* here, unless the thread beside took it */
		for (unsigned n = 1; !osc_claim_is_done(&side->read); n++) {
			nanosleep(&(struct timespec){ 0, SIDE_POLL_NS }, NULL);
			if (n % SIDE_POLLS_PER_REPORT == 0) { /* its rows move the bar */
				q->lc->rows_read = sq_rows_read(q);
				osc_load_report(q->lc);
				sq_give_back_pages(q->lc);
			}
		}
		st = side->st;
		if (st != OSC_OK)
			*q->lc->err = side->err;
	} else {
		st = read_calls(q, c);
	}
	if (st == OSC_OK) {
		mark_repeats(q, c);
		add_calls(q, c);
	}
	free(own.v);
	return st;
}

static void nvtx_event_types(struct sq *q, struct nvtx_types *ty)
{
	static const struct {
		const char *name;
		size_t off;
	} names[] = {
		{ "NvtxMark", offsetof(struct nvtx_types, mark) },
		{ "NvtxPushPopRange", offsetof(struct nvtx_types, push_pop) },
		{ "NvtxStartEndRange", offsetof(struct nvtx_types, start_end) },
		{ "NvtxDomainCreate", offsetof(struct nvtx_types, domain) },
	};
	sqlite3_stmt *st;

	*ty = (struct nvtx_types){ 34, 59, 60, 75 }; /* the values of every schema so far */
	if (!sq_has_table(q, "ENUM_NSYS_EVENT_TYPE") ||
	    sqlite3_prepare_v2(q->db, "SELECT id FROM ENUM_NSYS_EVENT_TYPE WHERE name = ?1", -1,
			       &st, NULL) != SQLITE_OK)
		return;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		sqlite3_reset(st);
		sqlite3_bind_text(st, 1, names[i].name, -1, SQLITE_STATIC);
		if (sqlite3_step(st) == SQLITE_ROW)
			*(int64_t *)((char *)ty + names[i].off) = sqlite3_column_int64(st, 0);
	}
	sqlite3_finalize(st);
}

/* Domain id -> args text {"domain": NAME}, for the ranges of named domains. */
struct domains {
	int64_t *ids;
	char **args;
	size_t nr, alloc;
};

static const char *domain_args(const struct domains *d, int64_t id)
{
	for (size_t i = 0; i < d->nr; i++)
		if (d->ids[i] == id)
			return d->args[i];
	return NULL;
}

static enum osc_status read_domains(struct sq *q, const struct nvtx_types *ty, struct domains *d)
{
	static const char table[] = "NVTX_EVENTS";
	sqlite3_stmt *st;
	int rc;

	if (!sq_has_column(q, table, "domainId") || !sq_has_column(q, table, "text"))
		return OSC_OK;
	st = sq_prepare(q, table, "SELECT domainId, text FROM %s WHERE eventType = %lld", table,
			(long long)ty->domain);
	if (!st)
		return q->lc->err->code;
	while ((rc = sq_step(q, st, table)) == SQLITE_ROW) {
		struct json_object *o = json_object_new_object();
		osc_str name = sq_intern_col(q, st, 1);

		json_object_object_add(o, "domain",
				       json_object_new_string(osc_trace_str(q->t, name)));
		OSC_GROW(d->ids, d->nr + 1, d->alloc);
		d->args = osc_xreallocarray(d->args, d->alloc, sizeof(*d->args));
		d->ids[d->nr] = sq_int(st, 0, 0);
		d->args[d->nr++] = sq_args_json(o);
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? OSC_OK : q->lc->err->code;
}

static enum osc_status nvtx(struct sq *q)
{
	static const char table[] = "NVTX_EVENTS";
	static const char *const cols[] = { "start", "end", "eventType", "globalTid", "domainId",
					    "text" };
	struct nvtx_types ty;
	struct domains dom = { 0 };
	enum osc_status status;
	char *c;
	sqlite3_stmt *st;
	int rc;

	if (!sq_has_table(q, table))
		return OSC_OK;
	nvtx_event_types(q, &ty);
	status = read_domains(q, &ty, &dom);
	if (status != OSC_OK)
		goto out;
	c = sq_columns(q, table, "n", cols, 6);
	st = sq_prepare(q, table, "SELECT %s, %s FROM %s n WHERE n.eventType IN (%lld, %lld, %lld)",
			c, sq_has_column(q, table, "textId") ? "n.textId" : "NULL", table,
			(long long)ty.mark, (long long)ty.push_pop, (long long)ty.start_end);
	free(c);
	if (!st) {
		status = q->lc->err->code;
		goto out;
	}
	while ((rc = sq_step(q, st, table)) == SQLITE_ROW) {
		struct osc_event e = { .cat = q->cat_nvtx, .corr_id = OSC_ID_NONE,
				       .ext = OSC_ID_NONE,
				       .kernel = OSC_NONE };
		int64_t type = sq_int(st, 2, 0), start = sq_int(st, 0, 0);
		const char *args = domain_args(&dom, sq_int(st, 4, 0));

		e.thread = host_thread(q, sq_int(st, 3, 0));
		if (sqlite3_column_type(st, 5) != SQLITE_NULL)
			e.name = sq_intern_col(q, st, 5);
		else if (!sq_id_str(q, st, 6, &e.name))
			e.name = OSC_STR_EMPTY;
		if (type == ty.mark) {
			e.ph = OSC_PH_INSTANT;
			e.kind = OSC_KIND_ANNOTATION;
			sq_add(q, &e, start, start, args, args ? strlen(args) : 0);
			continue;
		}
		if (sqlite3_column_type(st, 1) == SQLITE_NULL) {
			osc_trace_warn(q->t, OSC_WARN_UNMATCHED_BEGIN, OSC_NO_OFFSET);
			continue;
		}
		e.kind = OSC_KIND_HOST_OP; /* NVTX ranges are the ops of these traces */
		sq_add(q, &e, start, sq_int(st, 1, 0), args, args ? strlen(args) : 0);
	}
	sqlite3_finalize(st);
	status = rc == SQLITE_DONE ? OSC_OK : q->lc->err->code;
out:
	for (size_t i = 0; i < dom.nr; i++)
		free(dom.args[i]);
	free(dom.args);
	free(dom.ids);
	return status;
}

/* Thread and process names for the threads that have events. */
static void names(struct sq *q)
{
	sqlite3_stmt *st;

	if (sq_has_column(q, "ThreadNames", "globalTid") &&
	    sqlite3_prepare_v2(q->db,
			       "SELECT t.globalTid, s.value FROM ThreadNames t "
			       "JOIN StringIds s ON s.id = t.nameId",
			       -1, &st, NULL) == SQLITE_OK) {
		while (sqlite3_step(st) == SQLITE_ROW) {
			uint32_t th = sq_thread_find(q, sq_int(st, 0, 0));

			if (th != OSC_NONE)
				q->t->threads[th].thread_name = sq_intern_col(q, st, 1);
		}
		sqlite3_finalize(st);
	}
	if (sq_has_column(q, "PROCESSES", "globalPid") &&
	    sqlite3_prepare_v2(q->db, "SELECT globalPid, name FROM PROCESSES", -1, &st, NULL) ==
		    SQLITE_OK) {
		while (sqlite3_step(st) == SQLITE_ROW) {
			int64_t pid = pid_of(sq_int(st, 0, 0));

			for (size_t i = 0; i < q->threads.size; i++)
				if (q->threads.vals[i] != OSC_I64MAP_EMPTY && q->threads.keys[i] >= 0 &&
				    pid_of(q->threads.keys[i]) == pid)
					q->t->threads[q->threads.vals[i]].process_name =
						sq_intern_col(q, st, 1);
		}
		sqlite3_finalize(st);
	}
}

/* GPU names, driver and tool versions: the only facts of the target kept. */
static void meta(struct sq *q)
{
	struct json_object *m = json_object_new_object();
	char *cuda;

	json_object_object_add(m, "deviceProperties",
			       sq_gpu_names(q, "TARGET_INFO_GPU", "name",
					    "SELECT name FROM TARGET_INFO_GPU ORDER BY id"));
	sq_add_text(m, "driverVersion",
		 sq_one_text(q, "TARGET_INFO_SYSTEM_ENV",
			  "SELECT value FROM TARGET_INFO_SYSTEM_ENV WHERE name = 'NvDriverVersion'"));
	cuda = sq_one_text(q, "TARGET_INFO_SYSTEM_ENV",
			"SELECT value FROM TARGET_INFO_SYSTEM_ENV WHERE name = 'CudaDriverVersion'");
	if (cuda) { /* 12080 is CUDA 12.8 */
		long v = strtol(cuda, NULL, 10);

		free(cuda);
		cuda = v > 0 ? osc_xasprintf("%ld.%ld", v / 1000, v % 1000 / 10) : NULL;
	}
	sq_add_text(m, "cudaDriverVersion", cuda);
	sq_add_text(m, "tool",
		 sq_one_text(q, "META_DATA_EXPORT",
			  "SELECT value FROM META_DATA_EXPORT WHERE name = 'EXPORT_PRODUCT_NAME'"));
	sq_add_text(m, "toolVersion",
		 sq_one_text(q, "META_DATA_EXPORT",
			  "SELECT value FROM META_DATA_EXPORT WHERE name = 'EXPORT_PRODUCT_VERSION'"));
	sq_add_text(m, "schemaVersion",
		 sq_one_text(q, "META_DATA_EXPORT",
			  "SELECT value FROM META_DATA_EXPORT WHERE name = 'EXPORT_SCHEMA_VERSION'"));
	sq_set_meta(q, m);
}

/* A kernel's name: its demangled name's text, else its short name's. */
static osc_str kernel_name(struct sq *q, sqlite3_stmt *st, int col)
{
	osc_str s;

	return sq_id_str(q, st, col, &s) || sq_id_str(q, st, col + 1, &s) ? s : OSC_STR_EMPTY;
}

/*
 * Number the threads as reading the API rows first would: those the calls
 * (the events from `calls` on) run on, in the order they first appear, then
 * the others (streams, NVTX-only threads) in the order they were made.
 */
static void callers_first(struct osc_trace *t, size_t calls)
{
	size_t n = t->nr_threads, k = 0;
	uint32_t *order = osc_xmalloc((n ? n : 1) * sizeof(*order));
	uint8_t *placed = osc_xcalloc(n ? n : 1, 1);

	for (size_t i = calls; i < t->nr_events && k < n; i++) {
		uint32_t th = t->events[i].thread;

		if (th < n && !placed[th]) {
			placed[th] = 1;
			order[k++] = th;
		}
	}
	for (uint32_t th = 0; th < n; th++)
		if (!placed[th])
			order[k++] = th;
	osc_trace_order_threads(t, order);
	free(placed);
	free(order);
}

enum osc_status osc_load_nsys(struct sq *q)
{
	static const char table[] = "CUPTI_ACTIVITY_KIND_KERNEL";
	static const char *const name_cols[] = { "demangledName", "shortName" };
	static const char *const read[] = { "StringIds", "CUPTI_ACTIVITY_KIND_RUNTIME", table,
					    "CUPTI_ACTIVITY_KIND_MEMCPY",
					    "CUPTI_ACTIVITY_KIND_MEMSET", "NVTX_EVENTS" };
	enum osc_status st;
	size_t calls;
	char *cols;

	q->t->format = OSC_FORMAT_NSYS;
	sq_expect_rows(q, read, 1);
	/* an event per row of the others */
	osc_trace_reserve(q->t, sq_expect_rows(q, read + 1, sizeof(read) / sizeof(read[0]) - 1));
	st = sq_ids_load(q);
	if (st == OSC_OK) {
		cols = sq_columns(q, table, "k", name_cols, 2);
		st = sq_load_kernels(q, table, cols, "", kernel_name);
		free(cols);
	}
	if (st == OSC_OK)
		st = sq_load_copies(q);
	if (st == OSC_OK)
		st = nvtx(q);
	calls = q->t->nr_events;
	if (st == OSC_OK) /* last: its rows may still be being read beside the others */
		st = runtime(q);
	if (st != OSC_OK)
		return st;
	names(q);
	meta(q);
	callers_first(q->t, calls);
	return OSC_OK;
}
