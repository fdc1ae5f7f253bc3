/*
 * sqlite_db.c - the helpers both SQLite schema readers use (load_nsys.c,
 * load_nvprof.c): schema questions, statements that stop on cancel,
 * UTF-8-safe interning, thread and stream lookup, building events, and the
 * CUPTI kernel and copy tables both schemas share. load_sqlite.c opens the
 * database and picks the reader.
 */
#include <json-c/json.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opscope/base/alloc.h"
#include "load/sqlite_db.h"

#define TICK_ROWS ((uint64_t)1 << 16)
#define PROGRESS_OPS 10000 /* VM steps between cancel checks */

/* ---- schema questions ---- */

static bool exists(struct sq *q, const char *sql, const char *a, const char *b)
{
	sqlite3_stmt *st;
	bool yes;

	if (sqlite3_prepare_v2(q->db, sql, -1, &st, NULL) != SQLITE_OK)
		return false;
	sqlite3_bind_text(st, 1, a, -1, SQLITE_STATIC);
	if (b)
		sqlite3_bind_text(st, 2, b, -1, SQLITE_STATIC);
	yes = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_finalize(st);
	return yes;
}

bool sq_has_table(struct sq *q, const char *table)
{
	return exists(q, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1", table,
		      NULL);
}

/* The integer sql's first row holds; 0 when it has none or fails. */
static int64_t query_int(struct sq *q, const char *sql)
{
	sqlite3_stmt *st = NULL;
	int64_t v = sqlite3_prepare_v2(q->db, sql, -1, &st, NULL) == SQLITE_OK &&
				    sqlite3_step(st) == SQLITE_ROW
			    ? sq_int(st, 0, 0)
			    : 0;

	sqlite3_finalize(st);
	return v;
}

/* A table's largest rowid; 0 when it has none, or there is no such table. */
static int64_t last_rowid(struct sq *q, const char *table)
{
	char *sql;
	int64_t rows;

	if (!sq_has_table(q, table))
		return 0;
	sql = osc_xasprintf("SELECT max(rowid) FROM \"%s\"", table);
	rows = query_int(q, sql);
	free(sql);
	return rows > 0 ? rows : 0;
}

/* The most rows the database can hold: one per 16 bytes of it. */
static uint64_t most_rows(struct sq *q)
{
	int64_t bytes = query_int(q, "SELECT p.page_count * s.page_size"
				     " FROM pragma_page_count() p, pragma_page_size() s");

	return bytes > 0 ? (uint64_t)bytes / 16 : 0;
}

/* A table's largest rowid, at most most (most_rows). */
static uint64_t rows_at_most(struct sq *q, const char *table, uint64_t most)
{
	uint64_t rows = (uint64_t)last_rowid(q, table);

	return rows < most ? rows : most;
}

size_t sq_expect_rows(struct sq *q, const char *const *tables, size_t n)
{
	uint64_t most = most_rows(q), sum = 0;

	for (size_t i = 0; i < n; i++)
		sum += rows_at_most(q, tables[i], most);
	q->lc->rows_total += sum;
	return (size_t)sum;
}

size_t sq_table_rows(struct sq *q, const char *table)
{
	return (size_t)rows_at_most(q, table, most_rows(q));
}

bool sq_has_column(struct sq *q, const char *table, const char *column)
{
	return sq_has_table(q, table) &&
	       exists(q, "SELECT 1 FROM pragma_table_info(?1) WHERE name = ?2", table, column);
}

char *sq_columns(struct sq *q, const char *table, const char *alias, const char *const *cols,
		 size_t n)
{
	size_t len = 1, o = 0;
	char *s;

	for (size_t i = 0; i < n; i++)
		len += strlen(alias) + strlen(cols[i]) + 8;
	s = osc_xmalloc(len);
	for (size_t i = 0; i < n; i++) {
		bool has = sq_has_column(q, table, cols[i]);

		o += (size_t)snprintf(s + o, len - o, "%s%s%s%s", i ? ", " : "", has ? alias : "",
				      has ? "." : "", has ? cols[i] : "NULL");
	}
	s[o] = '\0';
	return s;
}

void sq_give_back_pages(const struct osc_load_ctx *lc)
{
	osc_input_release(&lc->in, 0, lc->in.len);
}

static int check_cancel(void *arg)
{
	const struct osc_load_ctx *lc = arg;

	return lc->opts->cancel && *lc->opts->cancel;
}

int sq_connect(struct osc_load_ctx *lc, unsigned char *data, size_t len, sqlite3 **db)
{
	if (sqlite3_open_v2(":memory:", db,
			    SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
			    NULL) != SQLITE_OK)
		return SQLITE_CANTOPEN;
	sqlite3_db_config(*db, SQLITE_DBCONFIG_DEFENSIVE, 1, NULL);
	sqlite3_db_config(*db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, NULL);
	sqlite3_progress_handler(*db, PROGRESS_OPS, check_cancel, lc);
	return sqlite3_deserialize(*db, "main", data, (sqlite3_int64)len, (sqlite3_int64)len,
				   SQLITE_DESERIALIZE_READONLY);
}

/* ---- statements ---- */

enum osc_status sq_error(struct sq *q, const char *table)
{
	if (sqlite3_errcode(q->db) == SQLITE_INTERRUPT)
		return osc_load_cancelled(q->lc->err, q->lc->name, OSC_NO_OFFSET);
	return osc_error_set(q->lc->err, OSC_SQLITE, q->lc->name, OSC_NO_OFFSET, NULL,
			     "cannot read %s: %s", table ? table : "the database",
			     sqlite3_errmsg(q->db));
}

sqlite3_stmt *sq_prepare(struct sq *q, const char *table, const char *fmt, ...)
{
	sqlite3_stmt *st = NULL;
	va_list ap;
	char *sql;
	int rc;

	va_start(ap, fmt);
	sql = osc_xvasprintf(fmt, ap);
	va_end(ap);
	rc = sqlite3_prepare_v2(q->db, sql, -1, &st, NULL);
	free(sql);
	if (rc != SQLITE_OK) {
		sq_error(q, table);
		sqlite3_finalize(st);
		return NULL;
	}
	return st;
}

int sq_step(struct sq *q, sqlite3_stmt *st, const char *table)
{
	int rc = sqlite3_step(st);

	if (rc == SQLITE_ROW) {
		if (++q->rows % TICK_ROWS)
			return rc;
		if (q->beside) {
			atomic_store(q->side_rows, q->rows);
			return rc;
		}
		sq_give_back_pages(q->lc);
		q->lc->rows_read = sq_rows_read(q);
		return osc_load_step(q->lc, q->rows, true) == OSC_OK ? rc : SQLITE_INTERRUPT;
	}
	if (rc != SQLITE_DONE)
		sq_error(q, table);
	return rc;
}

uint64_t sq_rows_read(struct sq *q)
{
	return q->rows + (q->side_rows ? atomic_load(q->side_rows) : 0);
}

int64_t sq_int(sqlite3_stmt *st, int col, int64_t def)
{
	/* One column fetch, not two (type, then value): the value is unprotected,
	   which is safe on a connection only this thread uses (load_sqlite.c). */
	sqlite3_value *v = sqlite3_column_value(st, col);

	return sqlite3_value_type(v) == SQLITE_NULL ? def : sqlite3_value_int64(v);
}

/* ---- strings ---- */

/* Length of the valid UTF-8 sequence at s (n bytes left), 0 if invalid. */
static size_t utf8_seq(const unsigned char *s, size_t n)
{
	unsigned c = s[0];
	size_t len;
	uint32_t cp;

	if (c && c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		len = 2, cp = c & 0x1f;
	else if (c >= 0xe0 && c <= 0xef)
		len = 3, cp = c & 0x0f;
	else if (c >= 0xf0 && c <= 0xf4)
		len = 4, cp = c & 0x07;
	else
		return 0;
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((len == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
	    (len == 4 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0;
	return len;
}

osc_str sq_intern(struct sq *q, const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, o = 0;

	while (i < len && u[i] && u[i] < 0x80)
		i++;
	if (i == len)
		return osc_trace_intern(q->t, s, len);
	/* repair: every invalid byte becomes U+FFFD (3 bytes) */
	OSC_GROW(q->scratch, len * 3 + 1, q->scratch_alloc);
	for (i = 0; i < len;) {
		size_t n = utf8_seq(u + i, len - i);

		if (n) {
			memcpy(q->scratch + o, s + i, n);
			o += n;
			i += n;
			continue;
		}
		memcpy(q->scratch + o, "\xef\xbf\xbd", 3);
		o += 3;
		i++;
	}
	if (o != len || memcmp(q->scratch, s, len))
		osc_trace_warn(q->t, OSC_WARN_BAD_UTF8, OSC_NO_OFFSET);
	return osc_trace_intern(q->t, q->scratch, o);
}

osc_str sq_intern_col(struct sq *q, sqlite3_stmt *st, int col)
{
	const char *s = (const char *)sqlite3_column_text(st, col);

	if (!s)
		return OSC_STR_EMPTY;
	return sq_intern(q, s, (size_t)sqlite3_column_bytes(st, col));
}

char *sq_one_text(struct sq *q, const char *table, const char *sql)
{
	sqlite3_stmt *st;
	char *s = NULL;

	if (!sq_has_table(q, table) || sqlite3_prepare_v2(q->db, sql, -1, &st, NULL) != SQLITE_OK)
		return NULL;
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0)) {
		osc_str id = sq_intern_col(q, st, 0);

		s = osc_xstrdup(osc_trace_str(q->t, id));
	}
	sqlite3_finalize(st);
	return s;
}

void sq_add_text(struct json_object *o, const char *key, char *value)
{
	if (value)
		json_object_object_add(o, key, json_object_new_string(value));
	free(value);
}

struct json_object *sq_gpu_names(struct sq *q, const char *table, const char *column,
				 const char *sql)
{
	struct json_object *gpus = json_object_new_array();
	sqlite3_stmt *st;

	if (!sq_has_column(q, table, column) ||
	    sqlite3_prepare_v2(q->db, sql, -1, &st, NULL) != SQLITE_OK)
		return gpus;
	while (sqlite3_step(st) == SQLITE_ROW) {
		struct json_object *g = json_object_new_object();
		osc_str name = sq_intern_col(q, st, 0);

		json_object_object_add(g, "name", json_object_new_string(osc_trace_str(q->t, name)));
		json_object_array_add(gpus, g);
	}
	sqlite3_finalize(st);
	return gpus;
}

/* ---- threads ---- */

static uint32_t thread_named(struct sq *q, int64_t key, const char *pid, const char *tid)
{
	uint32_t *idx = osc_i64map_slot(&q->threads, key);

	if (*idx == OSC_I64MAP_EMPTY)
		*idx = osc_trace_thread(q->t, sq_intern(q, pid, strlen(pid)),
					sq_intern(q, tid, strlen(tid)));
	return *idx;
}

uint32_t sq_thread_find(const struct sq *q, int64_t key)
{
	uint32_t idx = osc_i64map_get(&q->threads, key);

	return idx == OSC_I64MAP_EMPTY ? OSC_NONE : idx;
}

uint32_t sq_thread(struct sq *q, int64_t key, int64_t pid, int64_t tid)
{
	uint32_t known = sq_thread_find(q, key);
	char p[24], t[24];

	if (known != OSC_NONE) /* the names are formatted once per thread, not per row */
		return known;
	snprintf(p, sizeof(p), "%lld", (long long)pid);
	snprintf(t, sizeof(t), "%lld", (long long)tid);
	return thread_named(q, key, p, t);
}

uint32_t sq_stream(struct sq *q, int64_t device, int64_t stream)
{
	/* bit 63 keeps device keys apart from host thread keys */
	int64_t key = (int64_t)((uint64_t)1 << 63 | ((uint64_t)device & 0x7fffffff) << 32 |
				(uint32_t)stream);
	uint32_t known = sq_thread_find(q, key);
	char p[32], t[32];

	if (known != OSC_NONE)
		return known;
	snprintf(p, sizeof(p), "GPU %lld", (long long)device);
	snprintf(t, sizeof(t), "stream %lld", (long long)stream);
	return thread_named(q, key, p, t);
}

/* ---- events ---- */

uint32_t sq_add(struct sq *q, struct osc_event *e, int64_t start, int64_t end,
		const char *args, size_t args_len)
{
	if (start <= 0) {
		osc_trace_warn(q->t, OSC_WARN_BAD_TIME, OSC_NO_OFFSET);
		return OSC_NONE;
	}
	e->ts = start;
	if (end < start || __builtin_sub_overflow(end, start, &e->dur)) {
		e->dur = 0;
		e->flags |= OSC_EVF_NEG_DUR;
		osc_trace_warn(q->t, OSC_WARN_NEGATIVE_DUR, OSC_NO_OFFSET);
	}
	if (!osc_kind_is_device(e->kind))
		e->kernel = OSC_NONE;
	return osc_trace_add_event(q->t, e, NULL, args, args_len);
}

void sq_add_device(struct sq *q, struct osc_event *e, const struct sq_device *d)
{
	e->corr_id = osc_trace_id(q->t, d->corr);
	e->thread = sq_stream(q, d->k.device, d->k.stream);
	e->kernel = osc_trace_add_kernel(q->t, &d->k);
	sq_add(q, e, d->start, d->end, NULL, 0); /* its args are its kernel record's */
}

/* Memcpy name from CUPTI's copyKind ("Memcpy HtoD"). */
static const char *memcpy_name(int64_t copy_kind)
{
	/* CUpti_ActivityMemcpyKind */
	static const char *const names[] = {
		"Memcpy", "Memcpy HtoD", "Memcpy DtoH", "Memcpy HtoA", "Memcpy AtoH",
		"Memcpy AtoA", "Memcpy AtoD", "Memcpy DtoA", "Memcpy DtoD", "Memcpy HtoH",
		"Memcpy PtoP",
	};

	if (copy_kind < 0 || copy_kind >= (int64_t)(sizeof(names) / sizeof(names[0])))
		return names[0];
	return names[copy_kind];
}

char *sq_args_json(struct json_object *o)
{
	char *s = osc_xstrdup(json_object_to_json_string_ext(
		o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));

	json_object_put(o);
	return s;
}

void sq_set_meta(struct sq *q, struct json_object *meta)
{
	free(q->t->meta_json);
	q->t->meta_json = sq_args_json(meta);
}

static const char *const kernel_cols[] = {
	"start", "end", "deviceId", "streamId", "correlationId", "registersPerThread", "gridX",
	"gridY", "gridZ", "blockX", "blockY", "blockZ", "staticSharedMemory",
	"dynamicSharedMemory",
};

enum osc_status sq_load_kernels(struct sq *q, const char *table, const char *name_expr,
				const char *joins, sq_name_fn *name)
{
	char *cols;
	sqlite3_stmt *st;
	int rc;

	if (!sq_has_table(q, table))
		return OSC_OK;
	cols = sq_columns(q, table, "k", kernel_cols, sizeof(kernel_cols) / sizeof(kernel_cols[0]));
	st = sq_prepare(q, table, "SELECT %s, %s FROM %s k %s", cols, name_expr, table, joins);
	free(cols);
	if (!st)
		return q->lc->err->code;
	while ((rc = sq_step(q, st, table)) == SQLITE_ROW) {
		struct osc_event e = { .cat = q->cat_kernel, .kind = OSC_KIND_KERNEL,
				       .ext = OSC_ID_NONE };
		struct sq_device d = {
			.start = sq_int(st, 0, 0), .end = sq_int(st, 1, 0),
			.corr = sq_int(st, 4, OSC_NO_ID),
			.k = { .device = (int32_t)sq_int(st, 2, -1),
			       .stream = (int32_t)sq_int(st, 3, -1),
			       .registers = (int32_t)sq_int(st, 5, -1),
			       .occupancy = -1, .bytes = -1 },
		};

		for (int i = 0; i < 3; i++) {
			d.k.grid[i] = (int32_t)sq_int(st, 6 + i, -1);
			d.k.block[i] = (int32_t)sq_int(st, 9 + i, -1);
		}
		d.k.shared_mem = sqlite3_column_type(st, 12) == SQLITE_NULL &&
					 sqlite3_column_type(st, 13) == SQLITE_NULL
				 ? -1
				 : sq_int(st, 12, 0) + sq_int(st, 13, 0);
		e.name = name(q, st, 14);
		sq_add_device(q, &e, &d);
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? OSC_OK : q->lc->err->code;
}

static const char *const copy_cols[] = {
	"start", "end", "deviceId", "streamId", "correlationId", "bytes", "copyKind",
};

/* Read a CUPTI memcpy (kind MEMCPY) or memset (kind MEMSET) table, if it exists. */
static enum osc_status load_copy_table(struct sq *q, const char *table, enum osc_kind kind)
{
	char *cols;
	sqlite3_stmt *st;
	int rc;

	if (!sq_has_table(q, table))
		return OSC_OK;
	cols = sq_columns(q, table, "c", copy_cols, sizeof(copy_cols) / sizeof(copy_cols[0]));
	st = sq_prepare(q, table, "SELECT %s FROM %s c", cols, table);
	free(cols);
	if (!st)
		return q->lc->err->code;
	while ((rc = sq_step(q, st, table)) == SQLITE_ROW) {
		struct osc_event e = { .kind = (uint8_t)kind, .ext = OSC_ID_NONE };
		struct sq_device d = {
			.start = sq_int(st, 0, 0), .end = sq_int(st, 1, 0),
			.corr = sq_int(st, 4, OSC_NO_ID),
			.k = { .grid = { -1, -1, -1 }, .block = { -1, -1, -1 },
			       .device = (int32_t)sq_int(st, 2, -1),
			       .stream = (int32_t)sq_int(st, 3, -1), .registers = -1,
			       .shared_mem = -1, .occupancy = -1, .bytes = sq_int(st, 5, -1) },
		};
		const char *name = kind == OSC_KIND_MEMSET ? "Memset"
							   : memcpy_name(sq_int(st, 6, 0));

		e.cat = kind == OSC_KIND_MEMSET ? q->cat_memset : q->cat_memcpy;
		e.name = osc_trace_intern(q->t, name, strlen(name));
		sq_add_device(q, &e, &d);
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? OSC_OK : q->lc->err->code;
}

enum osc_status sq_load_copies(struct sq *q)
{
	enum osc_status st = load_copy_table(q, "CUPTI_ACTIVITY_KIND_MEMCPY", OSC_KIND_MEMCPY);

	return st == OSC_OK ? load_copy_table(q, "CUPTI_ACTIVITY_KIND_MEMSET", OSC_KIND_MEMSET) : st;
}
