/*
 * load_sqlite.c - nvprof and Nsight Systems SQLite databases: the probe,
 * opening the database from the input bytes, and telling the two schemas
 * apart to hand it to their readers (load_nsys.c, load_nvprof.c), which
 * share the helpers of sqlite_db.c.
 *
 * The input layer hands over the bytes (a mapped plain file, or gzip and
 * standard input read whole); SQLite reads them in place through
 * sqlite3_deserialize, read-only, so a compressed or piped database needs no
 * temporary file and a plain one is not copied; the mapped file's pages are
 * given back as rows are read and while quick_check reads them
 * (sq_give_back_pages), so they do not add to peak memory.
 *
 * Limits:
 * - gzip'd and piped databases are held whole in memory while loading.
 * - A database in WAL mode is copied once to read it as a rollback-journal
 *   file (SQLite cannot deserialize WAL mode); its -wal file is not read
 *   (OSC_WARN_WAL_IGNORED when one with changes lies beside it).
 * - PRAGMA quick_check vets the whole database: one cut short or written
 *   over (a profiler killed mid-write) would read back rows of zeros. It
 *   runs on a second core beside the reading, on a connection of its own
 *   over the same bytes (first, alone, when one thread is allowed); its
 *   verdict wins over whatever the reading found. One cut short whose
 *   missing pages no table uses loads (OSC_WARN_DB_SHORT).
 * - A row without a start time (0, negative or NULL: what a damaged row
 *   reads as) is skipped (OSC_WARN_BAD_TIME); 0 is never a real start
 *   (nvprof's clock counts from the epoch, nsys's from the session start).
 * - Only tables are read, never views, so a crafted file cannot run queries
 *   of its own; the schema is not trusted (SQLITE_DBCONFIG_TRUSTED_SCHEMA off).
 * - Invalid UTF-8 in a string becomes U+FFFD (OSC_WARN_BAD_UTF8, offset -1:
 *   rows have no byte offset), and so does a NUL byte inside a string.
 * - Timestamps are the file's integer nanoseconds, unchanged: nvprof's are
 *   epoch-based, nsys's count from the start of the session.
 */
#include <stdio.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "opscope/base/alloc.h"
#include "opscope/base/threads.h"
#include "base/parallel.h"
#include "load/load_sqlite.h"

#define MAGIC "SQLite format 3"
#define HEADER_LEN 100          /* bytes of SQLite's database header */
#define CHECK_POLL_NS 20000000 /* how often the pages quick_check maps are given back */

static bool probe(const unsigned char *head, size_t len)
{
	return len >= sizeof(MAGIC) && !memcmp(head, MAGIC, sizeof(MAGIC));
}

/* ---- opening ---- */

/* Table sets that tell the schemas apart. */
static bool is_nsys(struct sq *q)
{
	return sq_has_table(q, "StringIds") &&
	       (sq_has_table(q, "CUPTI_ACTIVITY_KIND_KERNEL") ||
		sq_has_table(q, "CUPTI_ACTIVITY_KIND_RUNTIME") || sq_has_table(q, "NVTX_EVENTS"));
}

static bool is_nvprof(struct sq *q)
{
	return sq_has_table(q, "StringTable") &&
	       (sq_has_table(q, "CUPTI_ACTIVITY_KIND_RUNTIME") ||
		sq_has_table(q, "CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL") ||
		sq_has_table(q, "CUPTI_ACTIVITY_KIND_MARKER"));
}

/* Read the rest of a streamed input (gzip, stdin) into the window. */
static enum osc_status read_all(struct osc_load_ctx *lc)
{
	struct osc_input *in = &lc->in;

	while (!in->eof) {
		enum osc_status st = osc_input_more(in, 0, lc->name, lc->err);

		if (st != OSC_OK)
			return st;
		st = osc_load_tick(lc, in->base + in->len);
		if (st != OSC_OK)
			return st;
	}
	/* Cut short, it is a cut database: check_db says whether it can be read. */
	if (in->z_bad && !in->z_cut)
		return osc_error_set(lc->err, OSC_GZIP, lc->name, (int64_t)in->len, NULL, "%s",
				     in->z_msg);
	return OSC_OK;
}

/* Bytes the header says the database holds (page size x pages); 0 if it does not say. */
static uint64_t header_size(const unsigned char *h)
{
	uint32_t page = (uint32_t)h[16] << 8 | h[17];
	uint32_t pages = (uint32_t)h[28] << 24 | (uint32_t)h[29] << 16 | (uint32_t)h[30] << 8 |
			 h[31];

	return (uint64_t)(page == 1 ? 65536 : page) * pages;
}

/* A database shorter than its header says failed to read: that is why. */
static enum osc_status cut_short(struct sq *q, const unsigned char *data, size_t len,
				 const char *why)
{
	return osc_error_set(q->lc->err, OSC_TRUNCATED, q->lc->name, (int64_t)len, NULL,
			     "SQLite database cut short (%zu of %llu bytes): %s", len,
			     (unsigned long long)header_size(data), why);
}

static enum osc_status open_db(struct sq *q, unsigned char *data, size_t len)
{
	struct osc_load_ctx *lc = q->lc;
	sqlite3_stmt *st;
	int rc;

	if (len < HEADER_LEN)
		return osc_error_set(lc->err, OSC_TRUNCATED, lc->name, (int64_t)len, NULL,
				     "SQLite database cut short inside its %d-byte header",
				     HEADER_LEN);
	rc = sq_connect(lc, data, len, &q->db);
	if (rc == SQLITE_CANTOPEN)
		return osc_error_set(lc->err, OSC_SQLITE, lc->name, OSC_NO_OFFSET, NULL,
				     "cannot open an SQLite connection");
	if (rc != SQLITE_OK)
		return sq_error(q, NULL);
	/* reading the schema finds most damage: "file is not a database", "malformed" */
	st = sq_prepare(q, NULL, "SELECT count(*) FROM sqlite_master");
	rc = st ? sq_step(q, st, NULL) : SQLITE_ERROR;
	sqlite3_finalize(st);
	if (rc == SQLITE_ROW)
		return OSC_OK;
	if (lc->err->code == OSC_SQLITE && header_size(data) > len)
		return cut_short(q, data, len, sqlite3_errmsg(q->db));
	return lc->err->code;
}

/* PRAGMA quick_check's answer (load_sqlite.c's limits). */
struct db_check {
	struct osc_load_ctx *lc;
	unsigned char *data;
	size_t len;
	bool ok;          /* it answered "ok" */
	bool cancelled;   /* the load was cancelled while it ran */
	char why[256];    /* otherwise: the last line of its answer, or SQLite's error */
	struct osc_claim run; /* one thread runs the check */
};

/*
 * Run quick_check over c's bytes on a connection of its own (safe on any
 * thread: it touches nothing of the load but the cancel flag it reads).
 */
static void quick_check(struct db_check *c)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	const char *res = NULL;
	int rc = sq_connect(c->lc, c->data, c->len, &db);

	if (rc == SQLITE_OK)
		rc = sqlite3_prepare_v2(db, "PRAGMA quick_check(1)", -1, &st, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		res = (const char *)sqlite3_column_text(st, 0);
	c->ok = res && !strcmp(res, "ok");
	c->cancelled = rc == SQLITE_INTERRUPT;
	/* "*** in database main ***\nOn tree page 177 cell 22: ...": its last line */
	if (res && strrchr(res, '\n'))
		res = strrchr(res, '\n') + 1;
	snprintf(c->why, sizeof(c->why), "%s",
		 res ? res : db ? sqlite3_errmsg(db) : "cannot open an SQLite connection");
	sqlite3_finalize(st);
	sqlite3_close(db);
}

/* Run c's check on this thread, unless another has taken it. */
static void run_check(struct db_check *c)
{
	if (!osc_claim_take(&c->run))
		return;
	quick_check(c);
	osc_claim_done(&c->run);
}

/* The load's status from c's answer: a damaged or cut database is the error. */
static enum osc_status check_verdict(struct sq *q, const struct db_check *c)
{
	struct osc_load_ctx *lc = q->lc;
	uint64_t want = header_size(c->data);

	if (c->cancelled)
		return osc_load_cancelled(lc->err, lc->name, OSC_NO_OFFSET);
	if (!c->ok && want > c->len)
		return cut_short(q, c->data, c->len, c->why);
	if (!c->ok)
		return osc_error_set(lc->err, OSC_SQLITE, lc->name, OSC_NO_OFFSET, NULL,
				     "damaged SQLite database (quick_check: %s)", c->why);
	if (want > c->len)
		osc_trace_warn(q->t, OSC_WARN_DB_SHORT, (int64_t)c->len);
	return OSC_OK;
}

/* Hand the open database to the reader of its schema. */
static enum osc_status read_db(struct sq *q)
{
	if (is_nsys(q))
		return osc_load_nsys(q);
	if (is_nvprof(q))
		return osc_load_nvprof(q);
	return osc_error_set(q->lc->err, OSC_NOT_TRACE, q->lc->name, OSC_NO_OFFSET, NULL,
			     "an SQLite database without nvprof or Nsight Systems tables");
}

/* The reading and the check, side by side. */
struct checked_read {
	struct sq *q;
	struct db_check check;
	enum osc_status st;
};

/*
 * Run r's check here unless the thread beside took it (or could not start),
 * then wait for it, giving back the pages it reads as it goes.
 */
static void wait_for_check(struct checked_read *r)
{
	run_check(&r->check);
	while (!osc_claim_is_done(&r->check.run)) {
		nanosleep(&(struct timespec){ 0, CHECK_POLL_NS }, NULL);
		sq_give_back_pages(r->q->lc);
	}
}

static void checked_read_piece(void *arg, size_t i)
{
	struct checked_read *r = arg;

	if (i == 0) {
		r->st = read_db(r->q);
		wait_for_check(r);
	} else {
		if (r->q->nsys_side)
			osc_nsys_side_read(r->q->nsys_side);
		run_check(&r->check);
	}
}

/*
 * Read the database while quick_check vets it on another core (check first,
 * then read, on one); the check's verdict wins over the reading's status.
 * nsys's API rows are read on that core too, before the check, while the
 * load reads the other tables.
 */
static enum osc_status read_checked(struct sq *q, unsigned char *data, size_t len)
{
	struct checked_read r = { .q = q, .check = { .lc = q->lc, .data = data, .len = len } };
	enum osc_status verdict;

	if (osc_threads() > 1) {
		if (is_nsys(q))
			q->nsys_side = osc_nsys_side_new(q, data, len);
		osc_parallel_run(2, checked_read_piece, &r);
		q->rows = sq_rows_read(q);
		q->side_rows = NULL;
		osc_nsys_side_free(q->nsys_side);
		q->nsys_side = NULL;
	} else {
		quick_check(&r.check);
		if (r.check.ok)
			r.st = read_db(q);
	}
	verdict = check_verdict(q, &r.check);
	return verdict != OSC_OK ? verdict : r.st;
}

/* A WAL database with a -wal file beside it: its changes are not read, say so. */
static void check_wal(struct sq *q, const unsigned char *data)
{
	char *wal;
	struct stat sb;

	if ((data[18] != 2 && data[19] != 2) || !strcmp(q->lc->name, "-"))
		return;
	wal = osc_xasprintf("%s-wal", q->lc->name);
	if (!stat(wal, &sb) && sb.st_size > 32) /* more than the WAL header */
		osc_trace_warn(q->t, OSC_WARN_WAL_IGNORED, OSC_NO_OFFSET);
	free(wal);
}

static enum osc_status load(struct osc_load_ctx *lc)
{
	struct sq q = { .lc = lc, .t = lc->t };
	unsigned char *data, *copy = NULL;
	enum osc_status st;
	size_t len;

	st = read_all(lc);
	if (st != OSC_OK)
		return st;
	data = (unsigned char *)lc->in.data;
	len = lc->in.len;
	if (len >= HEADER_LEN)
		check_wal(&q, data);
	if (len >= HEADER_LEN && (data[18] == 2 || data[19] == 2)) {
		/* WAL mode: the same file in rollback mode reads the same */
		copy = osc_xmalloc(len);
		memcpy(copy, data, len);
		copy[18] = copy[19] = 1;
		data = copy;
	}
	q.t->device_args = true; /* sq_add_device keeps no args text */
	q.cat_kernel = osc_trace_intern(q.t, "kernel", 6);
	q.cat_memcpy = osc_trace_intern(q.t, "gpu_memcpy", 10);
	q.cat_memset = osc_trace_intern(q.t, "gpu_memset", 10);
	q.cat_runtime = osc_trace_intern(q.t, "cuda_runtime", 12);
	q.cat_driver = osc_trace_intern(q.t, "cuda_driver", 11);
	q.cat_nvtx = osc_trace_intern(q.t, "nvtx", 4);
	st = open_db(&q, data, len);
	if (st == OSC_OK)
		st = read_checked(&q, data, len);
	lc->rows_read = q.rows; /* the final report's */
	sqlite3_close(q.db);
	free(copy);
	osc_i64map_release(&q.threads);
	sq_ids_release(&q.ids);
	free(q.scratch);
	if (st == OSC_OK)
		osc_trace_sort(lc->t);
	return st;
}

const struct osc_loader osc_loader_sqlite = {
	.name = "sqlite",
	.probe = probe,
	.load = load,
};
