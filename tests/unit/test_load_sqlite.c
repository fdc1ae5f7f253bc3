/*
 * test_load_sqlite.c - nvprof and Nsight Systems databases: each test builds
 * a tiny database with the profiler's own column names, loads it and checks
 * one behaviour (kinds, exact ns, correlation, NVTX pairing and threads,
 * meta without the environment, errors, --run-range, gather JSON).
 */
#include <criterion/criterion.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "opscope/export/gather.h"
#include "opscope/base/alloc.h"
#include "opscope/base/threads.h"
#include "opscope/load/load.h"
#include "opscope/model/runs.h"

static struct osc_trace t;
static struct osc_error err;
static char path[64];

static void setup(void)
{
	int fd;

	osc_trace_init(&t);
	snprintf(path, sizeof(path), "/tmp/osc-sqlite-XXXXXX");
	fd = mkstemp(path);
	cr_assert(fd >= 0);
	close(fd);
	unlink(path);
}

static void teardown(void)
{
	osc_trace_release(&t);
	unlink(path);
}

TestSuite(load_sqlite, .init = setup, .fini = teardown);

static void make_db(const char *sql)
{
	sqlite3 *db;
	char *msg = NULL;

	cr_assert_eq(sqlite3_open(path, &db), SQLITE_OK);
	cr_assert_eq(sqlite3_exec(db, sql, NULL, NULL, &msg), SQLITE_OK, "%s", msg ? msg : "");
	sqlite3_close(db);
}

static enum osc_status load(void)
{
	osc_trace_release(&t);
	osc_trace_init(&t);
	return osc_load(path, NULL, &t, &err);
}

/* The JSON osc_gather_json writes, without spaces and newlines (names lose theirs too). */
static char *gather_text(const struct osc_runs *r)
{
	char *buf = NULL, *o;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cr_assert_eq(osc_gather_json(f, &t, r, NULL, &err), OSC_OK);
	fclose(f);
	o = buf;
	for (const char *p = buf; *p; p++)
		if (*p != ' ' && *p != '\n')
			*o++ = *p;
	*o = '\0';
	return buf;
}

static void load_ok(void)
{
	enum osc_status st = load();
	char line[1024];

	osc_error_format(&err, line, sizeof(line));
	cr_assert_eq(st, OSC_OK, "%s", line);
}

/* The first event of a kind and name ("" matches any name). */
static const struct osc_event *find(enum osc_kind kind, const char *name)
{
	for (size_t i = 0; i < t.nr_events; i++)
		if (t.events[i].kind == kind &&
		    (!*name || !strcmp(osc_trace_str(&t, t.events[i].name), name)))
			return &t.events[i];
	cr_assert_fail("no %s event '%s'", osc_kind_name(kind), name);
	return NULL;
}

/*
 * nvprof, thread (pid 7, tid 0x1AFFD700) with epoch-ns times:
 *   outer [..207 .. ..999]   marker id 1
 *     inner [..300 .. ..400] marker id 2
 *       cudaLaunchKernel_v7000 [..310 .. ..320] corr 5 -> kernel [..500 .. ..900]
 *   open (marker id 3, start only)
 */
static const char nvprof_db[] =
	"CREATE TABLE StringTable(_id_ INTEGER PRIMARY KEY AUTOINCREMENT, value TEXT NOT NULL UNIQUE);"
	"INSERT INTO StringTable VALUES (0, '-- null --'), (1, 'outer'), (2, 'inner'),"
	" (3, '_Z6kernelPf'), (4, 'open'), (5, 'Tesla V100');"
	"CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME(_id_ INTEGER PRIMARY KEY, cbid INT, start INT,"
	" end INT, processId INT, threadId INT, correlationId INT, returnValue INT);"
	"INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES"
	" (1, 211, 1583978808645121310, 1583978808645121320, 7, 452974336, 5, 0);"
	"CREATE TABLE CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL(_id_ INTEGER PRIMARY KEY,"
	" registersPerThread INT, start INT, end INT, deviceId INT, streamId INT, gridX INT,"
	" gridY INT, gridZ INT, blockX INT, blockY INT, blockZ INT, staticSharedMemory INT,"
	" dynamicSharedMemory INT, correlationId INT, name INT);"
	"INSERT INTO CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL VALUES (1, 32, 1583978808645121500,"
	" 1583978808645121900, 0, 7, 4, 2, 1, 256, 1, 1, 1024, 512, 5, 3);"
	"CREATE TABLE CUPTI_ACTIVITY_KIND_MARKER(_id_ INTEGER PRIMARY KEY, flags INT,"
	" timestamp INT, id INT, objectKind INT, objectId BLOB, name INT, domain INT);"
	"INSERT INTO CUPTI_ACTIVITY_KIND_MARKER VALUES"
	" (1, 2, 1583978808645121207, 1, 2, x'0700000000D7FF1A00000000', 1, 0),"
	" (2, 2, 1583978808645121300, 2, 2, x'0700000000D7FF1A00000000', 2, 0),"
	" (3, 4, 1583978808645121400, 2, 2, x'0700000000D7FF1A00000000', 0, 0),"
	" (4, 4, 1583978808645121999, 1, 2, x'0700000000D7FF1A00000000', 0, 0),"
	" (5, 2, 1583978808645122000, 3, 2, x'0700000000D7FF1A00000000', 4, 0);"
	"CREATE TABLE CUPTI_ACTIVITY_KIND_DEVICE(_id_ INTEGER PRIMARY KEY, id INT, name INT);"
	"INSERT INTO CUPTI_ACTIVITY_KIND_DEVICE VALUES (1, 0, 5);";

Test(load_sqlite, nvprof_events)
{
	const struct osc_event *rt, *k, *outer, *inner;
	const struct osc_kernel *kf;

	make_db(nvprof_db);
	load_ok();
	cr_assert_eq(t.format, OSC_FORMAT_NVPROF);
	cr_assert_eq(t.nr_events, 4); /* runtime, kernel, two ranges; "open" dropped */
	cr_assert_eq(t.warnings[OSC_WARN_UNMATCHED_BEGIN].count, 1);
	rt = find(OSC_KIND_RUNTIME, "cudaLaunchKernel_v7000");
	k = find(OSC_KIND_KERNEL, "_Z6kernelPf");
	cr_assert_eq(osc_trace_id_value(&t, rt->corr_id), 5);
	cr_assert_eq(osc_trace_id_value(&t, k->corr_id), 5);
	/* exact epoch ns: no microsecond round trip */
	cr_assert_eq(k->ts, 1583978808645121500LL);
	cr_assert_eq(k->dur, 400);
	kf = &t.kernels[k->kernel];
	cr_assert_eq(kf->registers, 32);
	cr_assert_eq(kf->stream, 7);
	cr_assert_eq(kf->grid[0], 4);
	cr_assert_eq(kf->block[0], 256);
	cr_assert_eq(kf->shared_mem, 1536);
	outer = find(OSC_KIND_HOST_OP, "outer");
	inner = find(OSC_KIND_HOST_OP, "inner");
	cr_assert_eq(outer->ts, 1583978808645121207LL);
	cr_assert_eq(outer->dur, 792);
	cr_assert_eq(inner->dur, 100);
	/* ranges sit on the thread of the runtime call (pid, tid from the objectId blob) */
	cr_assert_eq(outer->thread, rt->thread);
	cr_assert_str_eq(osc_trace_str(&t, t.threads[rt->thread].tid), "452974336");
	cr_assert_str_eq(osc_trace_str(&t, t.threads[rt->thread].pid), "7");
	cr_assert(strstr(t.meta_json, "Tesla V100"));
}

/* The events of each progress report, in order. */
struct progress_log {
	uint64_t events[64], rows_read[64], rows_total[64];
	size_t nr;
};

static void log_progress(const struct osc_load_progress *p, void *userdata)
{
	struct progress_log *log = userdata;

	if (log->nr < 64) {
		log->rows_read[log->nr] = p->rows_read;
		log->rows_total[log->nr] = p->rows_total;
		log->events[log->nr++] = p->events;
	}
}

/*
 * SQLite is read row by row, not byte by byte: progress comes every so many
 * rows (64Ki), so a database of 200k runtime calls reports as it goes, with
 * more events and rows each time, then once at the end with all of them.
 */
Test(load_sqlite, progress_every_so_many_rows)
{
	struct progress_log log = { 0 };
	struct osc_load_opts opts = { .progress = log_progress, .userdata = &log };

	make_db(nvprof_db);
	make_db("WITH RECURSIVE c(x) AS (SELECT 2 UNION ALL SELECT x + 1 FROM c WHERE x < 200001)"
		" INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME SELECT x, 211,"
		" 1583978808645121310 + x * 100, 1583978808645121320 + x * 100, 7, 452974336,"
		" 1000 + x, 0 FROM c;");
	cr_assert_eq(osc_load(path, &opts, &t, &err), OSC_OK, "%s", err.message);
	cr_assert_geq(log.nr, 4, "%zu reports", log.nr);
	for (size_t i = 1; i + 1 < log.nr; i++)
		cr_expect_gt(log.events[i], log.events[i - 1], "report %zu", i);
	cr_expect_eq(log.events[log.nr - 1], t.nr_events);
	cr_expect_gt(t.nr_events, 200000u);
	/* rows read against the tables' rows (the runtime table's 200,000 and the
	   fixture's few), known from the first report on: the bar's fraction,
	   which ends within a few rows of 1 */
	cr_expect_geq(log.rows_total[0], 200001u);
	cr_expect_leq(log.rows_total[0], 200050u);
	for (size_t i = 1; i < log.nr; i++) {
		cr_expect_eq(log.rows_total[i], log.rows_total[0], "report %zu", i);
		cr_expect_gt(log.rows_read[i], log.rows_read[i - 1], "report %zu", i);
	}
	cr_expect_leq(log.rows_total[0] - 10, log.rows_read[log.nr - 1]);
	cr_expect_leq(log.rows_read[log.nr - 1], log.rows_total[0] + 10);
}

Test(load_sqlite, nvprof_run_range_and_gather)
{
	struct osc_runs_opts o = { .range = "^inner$/0" };
	struct osc_runs r;
	char *buf;

	make_db(nvprof_db);
	load_ok();
	cr_assert_eq(osc_runs_detect_opts(&t, &o, &r, &err), OSC_OK);
	cr_assert_eq(r.source, OSC_RUNS_NVTX);
	cr_assert_eq(r.nr, 1);
	cr_assert_eq(r.runs[0].dur, 100);
	/* the kernel starts after "inner" ended but follows its launch into the run */
	cr_assert_eq(r.run_of[find(OSC_KIND_KERNEL, "") - t.events], 0);
	cr_assert_eq(r.run_of[find(OSC_KIND_HOST_OP, "outer") - t.events], OSC_NONE);
	buf = gather_text(&r);
	/* "inner" is the pass (forward: no "backward" in its name); no op inside it */
	cr_assert(strstr(buf, "\"forward\":[]"), "%s", buf);
	free(buf);
	osc_runs_release(&r);

	/* no passes named Forward/Backward: the whole trace is one forward pass and
	   both ranges list the kernel (projection rule), demangled */
	osc_runs_detect(&t, &r);
	buf = gather_text(&r);
	cr_assert(strstr(buf, "\"outer\""), "%s", buf);
	cr_assert(strstr(buf, "\"inner\""), "%s", buf);
	cr_assert(strstr(buf, "\"name\":\"kernel(float*)\""), "%s", buf);
	cr_assert(strstr(buf, "\"n_registers_per_thread\":32"), "%s", buf);
	cr_assert(strstr(buf, "\"start\":1583978808645121500"), "%s", buf);
	cr_assert(strstr(buf, "\"duration(ns)\":400"), "%s", buf);
	free(buf);
	osc_runs_release(&r);
}

Test(load_sqlite, run_range_errors)
{
	struct osc_runs r;
	struct osc_runs_opts bad_re = { .range = "(" }, none = { .range = "nothing" },
			     past = { .range = "inner/1" }, last = { .range = "er$/-1" };

	make_db(nvprof_db);
	load_ok();
	cr_assert_eq(osc_runs_detect_opts(&t, &bad_re, &r, &err), OSC_USAGE);
	cr_assert_str_eq(err.subject, "--run-range");
	osc_runs_release(&r);
	cr_assert_eq(osc_runs_detect_opts(&t, &none, &r, &err), OSC_RANGE);
	osc_runs_release(&r);
	cr_assert_eq(osc_runs_detect_opts(&t, &past, &r, &err), OSC_RANGE);
	osc_runs_release(&r);
	/* "outer" and "inner" match; -1 is the later-starting one */
	cr_assert_eq(osc_runs_detect_opts(&t, &last, &r, &err), OSC_OK);
	cr_assert_eq(r.nr, 1);
	cr_assert_str_eq(osc_trace_str(&t, r.runs[0].name), "inner");
	osc_runs_release(&r);
}

/* nsys: push/pop and start/end ranges, a mark, an unfinished range, a secret env row. */
static const char nsys_db[] =
	"CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL);"
	"INSERT INTO StringIds VALUES (1, 'cudaLaunchKernel_v7000'), (2, 'void k<int>(int)'),"
	" (3, 'k'), (4, 'Batch-0 Forward'), (5, 'Gemm.0()'), (6, 'main');"
	"CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL,"
	" eventClass INTEGER, globalTid INTEGER, correlationId INTEGER, nameId INTEGER NOT NULL,"
	" returnValue INTEGER);"
	"INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (150, 160, 1, 282323165693308, 9, 1, 0);"
	"CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL,"
	" deviceId INTEGER, streamId INTEGER, correlationId INTEGER, demangledName INTEGER,"
	" shortName INTEGER, registersPerThread INTEGER, gridX INTEGER, gridY INTEGER,"
	" gridZ INTEGER, blockX INTEGER, blockY INTEGER, blockZ INTEGER,"
	" staticSharedMemory INTEGER, dynamicSharedMemory INTEGER);"
	"INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (170, 190, 0, 7, 9, 2, 3, 18, 1, 1, 1,"
	" 128, 1, 1, 0, 0);"
	"CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL,"
	" rangeId INTEGER, text TEXT, globalTid INTEGER, endGlobalTid INTEGER, textId INTEGER,"
	" domainId INTEGER);"
	"INSERT INTO NVTX_EVENTS VALUES (100, 300, 59, NULL, NULL, 282323165693308, NULL, 4, 0),"
	" (120, 200, 60, 1, NULL, 282323165693308, 282323165693308, 5, 0),"
	" (130, NULL, 34, NULL, 'mark', 282323165693308, NULL, NULL, 0),"
	" (400, NULL, 59, NULL, 'unfinished', 282323165693308, NULL, NULL, 0);"
	"CREATE TABLE ThreadNames (nameId INTEGER NOT NULL, priority INTEGER, globalTid INTEGER);"
	"INSERT INTO ThreadNames VALUES (6, 0, 282323165693308);"
	"CREATE TABLE TARGET_INFO_SYSTEM_ENV (globalVid INTEGER, devStateName TEXT NOT NULL,"
	" name TEXT NOT NULL, nameEnum INTEGER NOT NULL, value TEXT NOT NULL);"
	"INSERT INTO TARGET_INFO_SYSTEM_ENV VALUES (0, 'x', 'NvDriverVersion', 1, '570.86.15'),"
	" (0, 'x', 'Hostname', 2, 'secret-host.example');"
	"CREATE TABLE META_DATA_CAPTURE (name TEXT NOT NULL, value TEXT);"
	"INSERT INTO META_DATA_CAPTURE VALUES"
	" ('PROCESS_0:ENVIRONMENT_VARIABLE', 'TOKEN=\"hunter2\"');";

Test(load_sqlite, nsys_events)
{
	const struct osc_event *rt, *k, *fwd, *op, *mark;

	make_db(nsys_db);
	load_ok();
	cr_assert_eq(t.format, OSC_FORMAT_NSYS);
	cr_assert_eq(t.nr_events, 5);
	cr_assert_eq(t.warnings[OSC_WARN_UNMATCHED_BEGIN].count, 1);
	rt = find(OSC_KIND_RUNTIME, "cudaLaunchKernel_v7000");
	k = find(OSC_KIND_KERNEL, "void k<int>(int)");
	cr_assert_eq(k->corr_id, rt->corr_id);
	cr_assert_eq(t.kernels[k->kernel].registers, 18);
	fwd = find(OSC_KIND_HOST_OP, "Batch-0 Forward");
	op = find(OSC_KIND_HOST_OP, "Gemm.0()");
	mark = find(OSC_KIND_ANNOTATION, "mark");
	cr_assert_eq(mark->ph, OSC_PH_INSTANT);
	cr_assert_eq(fwd->dur, 200);
	cr_assert_eq(op->ts, 120);
	/* globalTid 282323165693308: pid 50556, tid 50556, named by ThreadNames */
	cr_assert_eq(fwd->thread, rt->thread);
	cr_assert_str_eq(osc_trace_str(&t, t.threads[rt->thread].pid), "50556");
	cr_assert_str_eq(osc_trace_str(&t, t.threads[rt->thread].thread_name), "main");
	/* only the driver version comes from the environment table */
	cr_assert(strstr(t.meta_json, "570.86.15"), "%s", t.meta_json);
	cr_assert_null(strstr(t.meta_json, "secret-host"));
	cr_assert_null(strstr(t.meta_json, "hunter2"));
}

Test(load_sqlite, nsys_gather_passes)
{
	struct osc_runs r;
	char *buf;

	make_db(nsys_db);
	load_ok();
	osc_runs_detect(&t, &r);
	buf = gather_text(&r);
	/* "Batch-0 Forward" is the pass, "Gemm.0()" its op, with the kernel */
	cr_assert(strstr(buf, "\"Gemm.0()\""), "%s", buf);
	cr_assert_null(strstr(buf, "\"Batch-0Forward\""), "%s", buf);
	cr_assert(strstr(buf, "\"stream_id\":7"), "%s", buf);
	cr_assert(strstr(buf, "\"backward\":[]"), "%s", buf);
	free(buf);
	osc_runs_release(&r);
}

/*
 * nsys 2022 writes each CUDA API call twice (same correlationId); each call
 * is one event, the longer row kept, the first on a tie:
 *   corr 9:  [150,160] [151,158]  -> [150,160]
 *   corr 10: [200,205] [199,207]  -> [199,207]
 *   corr 11: [300,310] [300,310]  -> the first
 *   no corr: [400,401]            -> kept
 *   corr 9 in another process     -> kept (not the same call)
 * NVTX "step" [100,500] holds the calls of the first process; its kernels
 * (corr 9, 10, 11) appear once each in the gather JSON.
 */
static const char nsys2022_db[] =
	"CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL);"
	"INSERT INTO StringIds VALUES (1, 'cudaLaunchKernel_v7000'), (2, 'void k<int>(int)'),"
	" (3, 'k'), (4, 'step'), (5, 'cudaGetLastError_v3020');"
	"CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL,"
	" eventClass INTEGER NOT NULL, globalTid INTEGER, correlationId INTEGER,"
	" nameId INTEGER NOT NULL, returnValue INTEGER NOT NULL, callchainId INTEGER);"
	"INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES"
	" (150, 160, 1, 282323165693308, 9, 1, 0, NULL), (151, 158, 1, 282323165693308, 9, 1, 0, NULL),"
	" (200, 205, 1, 282323165693308, 10, 1, 0, NULL), (199, 207, 1, 282323165693308, 10, 1, 0, NULL),"
	" (300, 310, 1, 282323165693308, 11, 1, 0, NULL), (300, 310, 1, 282323165693308, 11, 1, 0, NULL),"
	" (400, 401, 1, 282323165693308, NULL, 5, 0, NULL),"
	" (150, 170, 1, 282323182470524, 9, 1, 0, NULL);"
	"CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL,"
	" deviceId INTEGER, streamId INTEGER, correlationId INTEGER, demangledName INTEGER,"
	" shortName INTEGER, registersPerThread INTEGER, gridX INTEGER, gridY INTEGER,"
	" gridZ INTEGER, blockX INTEGER, blockY INTEGER, blockZ INTEGER,"
	" staticSharedMemory INTEGER, dynamicSharedMemory INTEGER);"
	"INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES"
	" (170, 190, 0, 7, 9, 2, 3, 18, 1, 1, 1, 128, 1, 1, 0, 0),"
	" (210, 230, 0, 7, 10, 2, 3, 18, 1, 1, 1, 128, 1, 1, 0, 0),"
	" (320, 340, 0, 7, 11, 2, 3, 18, 1, 1, 1, 128, 1, 1, 0, 0);"
	"CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL,"
	" rangeId INTEGER, text TEXT, globalTid INTEGER, endGlobalTid INTEGER, textId INTEGER,"
	" domainId INTEGER);"
	"INSERT INTO NVTX_EVENTS VALUES (100, 500, 59, NULL, NULL, 282323165693308, NULL, 4, 0);";

/* The runtime event of correlation id corr on pid "50556". */
static const struct osc_event *call_of(int64_t corr)
{
	const struct osc_event *found = NULL;

	for (size_t i = 0; i < t.nr_events; i++) {
		const struct osc_event *e = &t.events[i];

		if (e->kind != OSC_KIND_RUNTIME || osc_trace_id_value(&t, e->corr_id) != corr ||
		    strcmp(osc_trace_str(&t, t.threads[e->thread].pid), "50556"))
			continue;
		cr_assert_null(found, "two events of correlation id %lld", (long long)corr);
		found = e;
	}
	cr_assert_not_null(found, "no event of correlation id %lld", (long long)corr);
	return found;
}

Test(load_sqlite, nsys2022_repeated_calls)
{
	struct osc_runs r;
	size_t calls = 0, kernels = 0;
	char *buf;

	make_db(nsys2022_db);
	load_ok();
	for (size_t i = 0; i < t.nr_events; i++)
		calls += t.events[i].kind == OSC_KIND_RUNTIME;
	cr_assert_eq(calls, 5);
	cr_assert_eq(t.warnings[OSC_WARN_REPEATED_CALL].count, 3);
	cr_assert_eq(call_of(9)->ts, 150);
	cr_assert_eq(call_of(9)->dur, 10);
	cr_assert_eq(call_of(10)->ts, 199);
	cr_assert_eq(call_of(10)->dur, 8);
	cr_assert_eq(call_of(11)->dur, 10);
	osc_runs_detect(&t, &r);
	buf = gather_text(&r);
	for (const char *p = buf; (p = strstr(p, "\"stream_id\"")); p++)
		kernels++;
	cr_assert_eq(kernels, 3, "%s", buf);
	free(buf);
	osc_runs_release(&r);
}

Test(load_sqlite, not_a_trace)
{
	make_db("CREATE TABLE recipes (id INTEGER PRIMARY KEY, name TEXT);");
	cr_assert_eq(load(), OSC_NOT_TRACE);
	cr_assert(strstr(err.message, "without nvprof or Nsight Systems"), "%s", err.message);
	cr_assert_eq(t.nr_events, 0);
}

Test(load_sqlite, corrupt)
{
	FILE *f;
	char page[8192];

	make_db(nsys_db);
	/* keep the 100-byte header, overwrite everything after it */
	memset(page, 0xa5, sizeof(page));
	f = fopen(path, "r+b");
	cr_assert(f);
	fseek(f, 100, SEEK_SET);
	fwrite(page, 1, sizeof(page), f);
	fclose(f);
	cr_assert_eq(load(), OSC_SQLITE);
	cr_assert_str_eq(err.subject, path);
}

Test(load_sqlite, header_cut_short)
{
	FILE *f = fopen(path, "wb");

	cr_assert(f);
	fwrite("SQLite format 3\0\x10\x00", 1, 18, f);
	fclose(f);
	cr_assert_eq(load(), OSC_TRUNCATED);
}

/* ---- damaged databases: a profiler killed mid-write ---------------------- */

/* A row whose start reads as 0 (NULL, or a damaged row) is skipped, not a 1970 event. */
Test(load_sqlite, rows_without_a_start_time_are_skipped)
{
	char sql[sizeof(nvprof_db) + 256];

	snprintf(sql, sizeof(sql), "%s%s", nvprof_db,
		 "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (2, 211, 0, 0, 7, 452974336, 6, 0),"
		 " (3, 211, NULL, 1583978808645121330, 7, 452974336, 7, 0),"
		 " (4, 211, -5, 10, 7, 452974336, 8, 0);");
	make_db(sql);
	load_ok();
	cr_assert_eq(t.nr_events, 4, "the three rows without a start are not events");
	cr_assert_eq(t.warnings[OSC_WARN_BAD_TIME].count, 3);
	for (size_t i = 0; i < t.nr_events; i++)
		cr_assert_gt(t.events[i].ts, 1583978808645121000LL);
}

/* Rewrite bytes [at, at + n) of the database file with zeros. */
static void zero_bytes(long at, size_t n)
{
	FILE *f = fopen(path, "r+b");
	char zeros[4096] = { 0 };

	cr_assert(f && n <= sizeof(zeros));
	fseek(f, at, SEEK_SET);
	fwrite(zeros, 1, n, f);
	fclose(f);
}

/* Copy the bundled nvprof sample (gzip'd) to path, uncompressed. */
static size_t sample_db(void)
{
	const char *root = getenv("OPSCOPE_SOURCE_ROOT");
	char cmd[4096];
	FILE *f;
	long n;

	snprintf(cmd, sizeof(cmd), "gzip -dc '%s/samples/nvprof-lstm-pyprof.sql.gz' > '%s'",
		 root ? root : ".", path);
	cr_assert_eq(system(cmd), 0);
	f = fopen(path, "rb");
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fclose(f);
	return (size_t)n;
}

/*
 * 64 zero bytes in a table's page: the queries still run, but rows come back
 * with start 0 (the trace spanned 50 years). quick_check finds the damage,
 * whether it runs beside the reading (two threads) or before it (one): its
 * verdict replaces the rows read meanwhile.
 */
Test(load_sqlite, a_damaged_database_is_an_error)
{
	char line[1024];

	cr_assert_eq(sample_db(), 806912);
	zero_bytes(724085, 64);
	for (size_t cap = 1; cap <= 2; cap++) {
		osc_threads_cap(cap);
		cr_assert_eq(load(), OSC_SQLITE, "%zu threads", cap);
		osc_error_format(&err, line, sizeof(line));
		cr_assert(strstr(line, "damaged SQLite database (quick_check: On tree page"),
			  "%zu threads: %s", cap, line);
		cr_assert_eq(t.nr_events, 0);
	}
	osc_threads_cap(0);
}

/* Cut short (a killed writer): an error at the cut, with both sizes, on one thread or two. */
Test(load_sqlite, a_database_cut_short_is_an_error_at_the_cut)
{
	size_t len = sample_db();

	cr_assert_eq(truncate(path, (off_t)len / 2), 0);
	for (size_t cap = 1; cap <= 2; cap++) {
		osc_threads_cap(cap);
		cr_assert_eq(load(), OSC_TRUNCATED, "%zu threads", cap);
		cr_assert_eq(err.offset, (int64_t)len / 2);
		cr_assert(strstr(err.message, "cut short (403456 of 806912 bytes)"), "%s",
			  err.message);
	}
	osc_threads_cap(0);
}

/* The database at path loads as cancelled, with no events, on one thread and on two. */
static void expect_cancelled(const struct osc_load_opts *opts)
{
	for (size_t cap = 1; cap <= 2; cap++) {
		osc_threads_cap(cap);
		osc_trace_release(&t);
		osc_trace_init(&t);
		cr_assert_eq(osc_load(path, opts, &t, &err), OSC_CANCELLED, "%zu threads: %s",
			     cap, err.message);
		cr_assert_eq(t.nr_events, 0);
	}
}

/*
 * A load cancelled from the start (the TUI's Esc while loading): the schema is
 * read in fewer VM steps than a cancel check takes, then quick_check or the
 * reading sees the flag. Cancelled with no events, whether quick_check runs
 * before the reading or beside it (where either may stop first).
 */
Test(load_sqlite, a_cancelled_load_is_cancelled)
{
	char sql[sizeof(nvprof_db) + 512];
	volatile int cancel = 1;
	struct osc_load_opts opts = { .cancel = &cancel };

	snprintf(sql, sizeof(sql), "%s%s", nvprof_db,
		 "WITH RECURSIVE n(i) AS (SELECT 10 UNION ALL SELECT i + 1 FROM n WHERE i < 200000)"
		 " INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME SELECT i, 211, 1583978808645121310 + i,"
		 " 1583978808645121320 + i, 7, 452974336, i, 0 FROM n;");
	make_db(sql);
	expect_cancelled(&opts);
	cancel = 0;
	osc_trace_release(&t);
	osc_trace_init(&t);
	cr_assert_eq(osc_load(path, &opts, &t, &err), OSC_OK, "%s", err.message);
	cr_assert_eq(t.nr_events, 200000 - 10 + 1 + 4, "the generated rows, the sample's 4");
	osc_threads_cap(0);
}

/* A WAL database with a -wal file of changes beside it: said to be unread. */
Test(load_sqlite, an_unread_wal_file_is_a_warning)
{
	char wal[80];
	FILE *f;

	make_db("PRAGMA journal_mode=WAL;");
	make_db(nvprof_db);
	snprintf(wal, sizeof(wal), "%s-wal", path);
	f = fopen(wal, "wb");
	cr_assert(f);
	for (int i = 0; i < 100; i++)
		fputs("wal frame bytes ", f);
	fclose(f);
	load_ok();
	cr_assert_eq(t.warnings[OSC_WARN_WAL_IGNORED].count, 1);
	unlink(wal);
	load_ok();
	cr_assert_eq(t.warnings[OSC_WARN_WAL_IGNORED].count, 0);
}

/* nsys2022_db's schema with many generated calls, kernels and names (see below). */
static void make_big_nsys_db(void)
{
	make_db(nsys2022_db);
	/* 9: invalid UTF-8; ids 1, 5 and 9 name the calls, 77 names none */
	make_db("INSERT INTO StringIds VALUES (9, CAST(x'62ff61' AS TEXT));"
		/* 60,000 calls on three threads; every 7th call repeated by a shorter row */
		"WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 60000)"
		" INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME SELECT 1000 + x * 10, 1005 + x * 10, 1,"
		" 282323165693308 + x % 3, 100 + x, CASE x % 4 WHEN 0 THEN 1 WHEN 1 THEN 5"
		" WHEN 2 THEN 9 ELSE 77 END, 0, NULL FROM c;"
		"INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME SELECT start + 1, end - 1, 1, globalTid,"
		" correlationId, nameId, 0, NULL FROM CUPTI_ACTIVITY_KIND_RUNTIME"
		" WHERE correlationId >= 100 AND correlationId % 7 = 0;"
		/* a kernel for every 5th call */
		"WITH RECURSIVE c(x) AS (SELECT 5 UNION ALL SELECT x + 5 FROM c WHERE x < 60000)"
		" INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL SELECT 1008 + x * 10, 1009 + x * 10, 0,"
		" 7 + x % 2, 100 + x, 2, 3, 18, 1, 1, 1, 128, 1, 1, 0, 0 FROM c;");
}

/* An event as text: its times, kind, names, thread and correlation id. */
static char *event_text(const struct osc_trace *tr, size_t i)
{
	const struct osc_event *e = &tr->events[i];
	const struct osc_thread *th = &tr->threads[e->thread];

	return osc_xasprintf("%lld %lld %d %s|%s|%s/%s %lld", (long long)e->ts,
			     (long long)e->dur, e->kind, osc_trace_str(tr, e->name),
			     osc_trace_str(tr, e->cat), osc_trace_str(tr, th->pid),
			     osc_trace_str(tr, th->tid),
			     (long long)osc_trace_id_value(tr, e->corr_id));
}

/*
 * nsys's API rows are read on a connection beside the load when two threads
 * may run (then added after the other tables): the trace is the one a
 * single thread reads, event for event, thread for thread, with the same
 * warnings; the repeats and bad names count as the rows say, and the
 * threads are numbered as the calls first name them, as when the calls
 * were read first.
 */
Test(load_sqlite, nsys_api_rows_read_beside_read_as_on_one_thread)
{
	struct osc_trace one;
	size_t calls = 0;

	make_big_nsys_db();
	osc_threads_cap(1);
	load_ok();
	one = t;
	osc_trace_init(&t); /* load() releases t: keep the first load in one */
	osc_threads_cap(2);
	load_ok();
	osc_threads_cap(0);
	cr_assert_eq(t.nr_events, one.nr_events);
	for (size_t i = 0; i < t.nr_events; i++) {
		char *a = event_text(&one, i), *b = event_text(&t, i);

		cr_assert_str_eq(b, a, "event %zu", i);
		free(a);
		free(b);
		calls += t.events[i].kind == OSC_KIND_RUNTIME;
	}
	/* numbered as the calls first name them (rows in table order), then the streams */
	cr_assert_eq(t.nr_threads, one.nr_threads);
	cr_assert_eq(t.nr_threads, 6);
	for (size_t i = 0; i < t.nr_threads; i++) {
		static const char *const want[] = { "50556/50556", "50557/50556", "50556/50557",
						    "50556/50558", "GPU 0/stream 7", "GPU 0/stream 8" };
		char *got = osc_xasprintf("%s/%s", osc_trace_str(&t, t.threads[i].pid),
					  osc_trace_str(&t, t.threads[i].tid));

		cr_assert_str_eq(got, want[i], "thread %zu", i);
		cr_assert_eq(t.threads[i].nr_events, one.threads[i].nr_events, "thread %zu", i);
		free(got);
	}
	for (int w = 0; w < OSC_WARN_COUNT; w++)
		cr_assert_eq(t.warnings[w].count, one.warnings[w].count, "warning %d", w);
	/* nsys2022_db's 5 calls (3 repeats) and the 60,000 generated (8,571 repeats) */
	cr_assert_eq(calls, 5 + 60000);
	cr_assert_eq(t.warnings[OSC_WARN_REPEATED_CALL].count, 3 + 8571);
	/* a row naming 9 counts once, repeated or not: 15,000 calls and 2,142 repeats */
	cr_assert_eq(t.warnings[OSC_WARN_BAD_UTF8].count, 15000 + 2142);
	osc_trace_release(&one);
}

/*
 * The progress of an nsys load counts the rows read beside it too: the last
 * report gives every row read, on one thread or two.
 */
Test(load_sqlite, nsys_progress_counts_rows_read_beside)
{
	make_big_nsys_db();
	for (size_t cap = 1; cap <= 2; cap++) {
		struct progress_log log = { 0 };
		struct osc_load_opts opts = { .progress = log_progress, .userdata = &log };

		osc_threads_cap(cap);
		osc_trace_release(&t);
		osc_trace_init(&t);
		cr_assert_eq(osc_load(path, &opts, &t, &err), OSC_OK, "%s", err.message);
		cr_assert_geq(log.nr, 1);
		for (size_t i = 1; i < log.nr; i++)
			cr_expect_geq(log.rows_read[i], log.rows_read[i - 1], "report %zu", i);
		/* 68,571 + 8 API rows, 12,000 + 3 kernels, 5 + 1 StringIds, 1 NVTX row,
		   and the schema's count */
		cr_expect_eq(log.rows_read[log.nr - 1], 68579 + 12003 + 6 + 1 + 1,
			     "%zu threads: %llu", cap,
			     (unsigned long long)log.rows_read[log.nr - 1]);
	}
	osc_threads_cap(0);
}

/* An nsys load cancelled from the start: cancelled, whichever thread reads the API rows. */
Test(load_sqlite, a_cancelled_nsys_load_is_cancelled)
{
	volatile int cancel = 1;
	struct osc_load_opts opts = { .cancel = &cancel };

	make_big_nsys_db();
	expect_cancelled(&opts);
	osc_threads_cap(0);
}
