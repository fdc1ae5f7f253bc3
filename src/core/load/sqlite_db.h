/*
 * sqlite_db.h - what the SQLite loaders share (private to load_sqlite.c,
 * load_nsys.c and load_nvprof.c): the open database, schema questions,
 * statements that stop on cancel, UTF-8-safe interning, thread lookup and
 * building events (sqlite_db.c).
 */
#ifndef OPSCOPE_SQLITE_DB_H
#define OPSCOPE_SQLITE_DB_H

#include <sqlite3.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "base/i64map.h"
#include "load/load_internal.h"

/* nsys's StringIds, id -> text (sqlite_ids.c). */
struct sq_ids {
	struct osc_i64map index; /* id -> entry in v */
	struct sq_id *v;
	size_t nr, alloc;
	char *text;      /* the texts, back to back */
	size_t text_len, text_alloc;
};

struct sq {
	struct osc_load_ctx *lc;
	struct osc_trace *t;
	sqlite3 *db;
	uint64_t rows;                 /* rows read, for progress and cancel */
	struct osc_i64map threads;     /* the file's own thread key (globalTid, pid << 32 |
					  tid, ...) -> index in trace->threads */
	char *scratch;                 /* UTF-8 repair */
	size_t scratch_alloc;
	struct sq_ids ids;             /* StringIds, once sq_ids_load read it */
	osc_str cat_kernel, cat_memcpy, cat_memset, cat_runtime, cat_driver, cat_nvtx;
	/*
	 * A connection read beside the load, on another thread (beside: sq_step
	 * only counts its rows, into *side_rows, and reports nothing), or the
	 * load's own, adding *side_rows to the rows it reports (NULL: none).
	 */
	bool beside;
	_Atomic uint64_t *side_rows;
	struct nsys_side *nsys_side; /* nsys's API rows read beside the load, or NULL */
};

/*
 * Open *db on data in place, read-only, with the defences on and lc's cancel
 * checked (one thread uses it: no mutex around every sqlite3_column_* call).
 * SQLITE_CANTOPEN: no connection; else SQLite's code for the deserialize.
 */
int sq_connect(struct osc_load_ctx *lc, unsigned char *data, size_t len, sqlite3 **db);

/*
 * Give back the pages of lc's mapped database read so far, by any
 * connection. They are in the page cache, not ours to hold (a later read
 * maps them again): peak memory then counts the model, not the database
 * too. The load's thread does it every so many rows it reads (sq_step), and
 * in its long steps without SQL and its waits while the other core reads:
 * only the one thread, as giving pages back stalls the others' reads.
 */
void sq_give_back_pages(const struct osc_load_ctx *lc);

/* True when the database has a table (not a view) of that name. */
bool sq_has_table(struct sq *q, const char *table);
/*
 * About how many rows a table holds, from its largest rowid (no scan; 0 when
 * there is no such table), and at most one per 16 bytes of the database (a
 * hostile rowid): room to reserve before reading its rows.
 */
size_t sq_table_rows(struct sq *q, const char *table);

/*
 * The rows of the tables (sq_table_rows, summed), added to the load's
 * rows_total for its progress.
 */
size_t sq_expect_rows(struct sq *q, const char *const *tables, size_t n);

/* True when table has a column of that name. */
bool sq_has_column(struct sq *q, const char *table, const char *column);

/*
 * "a.c1, a.c2, NULL" for the columns cols of table under alias a, NULL in
 * place of a column the table lacks (schemas differ between versions). Free it.
 */
char *sq_columns(struct sq *q, const char *table, const char *alias, const char *const *cols,
		 size_t n);

/*
 * Fill the load error from the database's last error: OSC_CANCELLED when the
 * load was cancelled, else OSC_SQLITE naming table (NULL: the database).
 */
enum osc_status sq_error(struct sq *q, const char *table);

/*
 * Prepare the SQL that fmt and its arguments print; on failure fills the
 * load error (OSC_SQLITE, naming the table) and returns NULL.
 */
sqlite3_stmt *sq_prepare(struct sq *q, const char *table, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * Step a statement: SQLITE_ROW, SQLITE_DONE, or anything else after filling
 * the load error (OSC_SQLITE, or OSC_CANCELLED when the load was cancelled).
 */
int sq_step(struct sq *q, sqlite3_stmt *st, const char *table);

/* The rows q's load has read: its own, and those read beside it so far. */
uint64_t sq_rows_read(struct sq *q);

/* Intern column col of the current row as text (NULL: ""), repairing bad UTF-8. */
osc_str sq_intern_col(struct sq *q, sqlite3_stmt *st, int col);
/* Intern s[0..len), repairing bad UTF-8. */
osc_str sq_intern(struct sq *q, const char *s, size_t len);

/*
 * Read the StringIds table into q->ids (the whole table, once); fills the
 * load error when it cannot be read.
 */
enum osc_status sq_ids_load(struct sq *q);
/*
 * The text of StringIds whose id is column col of the current row, into
 * *out (interned, bad UTF-8 repaired and counted as sq_intern does); false
 * when col is NULL or names no row (a LEFT JOIN's NULL).
 */
bool sq_id_str(struct sq *q, sqlite3_stmt *st, int col, osc_str *out);
/* The same for StringIds id (a column read earlier as an integer). */
bool sq_id_lookup(struct sq *q, int64_t id, osc_str *out);
/* Free the map; it reads as empty afterwards. */
void sq_ids_release(struct sq_ids *m);

/* Integer column, or def when it is NULL. */
int64_t sq_int(sqlite3_stmt *st, int col, int64_t def);

/*
 * The thread with the file's key, created with these pid/tid texts on first
 * use (pid and tid are only formatted then).
 */
uint32_t sq_thread(struct sq *q, int64_t key, int64_t pid, int64_t tid);
/* The thread with the file's key, OSC_NONE when it has no events. */
uint32_t sq_thread_find(const struct sq *q, int64_t key);
/* The device-side "thread" of a stream: pid "GPU <device>", tid "stream <id>". */
uint32_t sq_stream(struct sq *q, int64_t device, int64_t stream);

/* Add a complete event [start, end) (a negative span is stored as 0 and counted). */
uint32_t sq_add(struct sq *q, struct osc_event *e, int64_t start, int64_t end,
		const char *args, size_t args_len);

/*
 * Device kernel or copy: its facts become the event's kernel record, which
 * its args are rendered from (osc_trace.device_args); the event's name, cat
 * and kind are the caller's.
 */
struct sq_device {
	int64_t start, end, corr;
	struct osc_kernel k;
};
void sq_add_device(struct sq *q, struct osc_event *e, const struct sq_device *d);

struct json_object;
/* The JSON text of o (plain, no slash escapes), freeing o; free the result. */
char *sq_args_json(struct json_object *o);

/* The first row's first column of sql as text, NULL when table or the row
   is absent; free it. */
char *sq_one_text(struct sq *q, const char *table, const char *sql);
/* Set o[key] to value when it is not NULL; frees value. */
void sq_add_text(struct json_object *o, const char *key, char *value);

/*
 * A "deviceProperties" array of {"name": GPU} objects from sql (one text
 * column), when table has column; else empty. The caller owns it.
 */
struct json_object *sq_gpu_names(struct sq *q, const char *table, const char *column,
				 const char *sql);
/*
 * Set the trace's meta_json from meta (freed). Only facts safe to show go
 * there (GPU names, driver and tool versions): never environment or host data.
 */
void sq_set_meta(struct sq *q, struct json_object *meta);

/* The name of the current row's kernel, from its columns col onward. */
typedef osc_str sq_name_fn(struct sq *q, sqlite3_stmt *st, int col);

/*
 * Read a CUPTI kernel table (both schemas name the columns alike), if it
 * exists. name_expr is the SQL of the columns name reads the kernel name
 * from, over alias k and the tables joined by joins.
 */
enum osc_status sq_load_kernels(struct sq *q, const char *table, const char *name_expr,
				const char *joins, sq_name_fn *name);
/* Read the CUPTI memcpy and memset tables (both schemas name them alike), where they exist. */
enum osc_status sq_load_copies(struct sq *q);

#endif
