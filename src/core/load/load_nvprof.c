/*
 * load_nvprof.c - nvprof databases (`nvprof -o file.prof`, also .nvvp/.sql).
 *
 * Tables read: CUPTI_ACTIVITY_KIND_RUNTIME and _DRIVER (API calls by
 * callback id), _CONCURRENT_KERNEL and _KERNEL (names in StringTable),
 * _MEMCPY, _MEMSET, _MARKER (NVTX: start flags=2 and end flags=4 paired by
 * id, marks flags=1), _NAME (thread names), and for `info` only
 * _DEVICE names and the Version table.
 *
 * Thread keys are processId << 32 | threadId (as unsigned 32 bits, the way
 * markers carry it in their objectId blob).
 *
 * Limits:
 * - nvprof stores API calls by callback id: the common runtime calls get
 *   their CUPTI names (cudaLaunchKernel_v7000), others read
 *   "cudaRuntimeApi#ID"; driver calls read "cuDriverApi#ID".
 * - Kernel names are as nvprof stored them (mangled C++ names stay mangled).
 * - A start marker without an end (or an end without a start) is dropped and
 *   counted; a range belongs to the thread that started it.
 * - The driver version is not in these files.
 */
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opscope/base/alloc.h"
#include "load/load_sqlite.h"

/* CUpti_runtime_api_trace_cbid values of the calls traces are made of. */
static const struct {
	int cbid;
	const char *name;
} runtime_names[] = {
	{ 1, "cudaDriverGetVersion_v3020" },
	{ 2, "cudaRuntimeGetVersion_v3020" },
	{ 3, "cudaGetDeviceCount_v3020" },
	{ 4, "cudaGetDeviceProperties_v3020" },
	{ 8, "cudaConfigureCall_v3020" },
	{ 9, "cudaSetupArgument_v3020" },
	{ 10, "cudaGetLastError_v3020" },
	{ 11, "cudaPeekAtLastError_v3020" },
	{ 13, "cudaLaunch_v3020" },
	{ 14, "cudaFuncSetCacheConfig_v3020" },
	{ 15, "cudaFuncGetAttributes_v3020" },
	{ 16, "cudaSetDevice_v3020" },
	{ 17, "cudaGetDevice_v3020" },
	{ 19, "cudaSetDeviceFlags_v3020" },
	{ 20, "cudaMalloc_v3020" },
	{ 21, "cudaMallocPitch_v3020" },
	{ 22, "cudaFree_v3020" },
	{ 25, "cudaMallocHost_v3020" },
	{ 26, "cudaFreeHost_v3020" },
	{ 27, "cudaHostAlloc_v3020" },
	{ 28, "cudaHostGetDevicePointer_v3020" },
	{ 30, "cudaMemGetInfo_v3020" },
	{ 31, "cudaMemcpy_v3020" },
	{ 32, "cudaMemcpy2D_v3020" },
	{ 39, "cudaMemcpyToSymbol_v3020" },
	{ 40, "cudaMemcpyFromSymbol_v3020" },
	{ 41, "cudaMemcpyAsync_v3020" },
	{ 44, "cudaMemcpy2DAsync_v3020" },
	{ 47, "cudaMemcpyToSymbolAsync_v3020" },
	{ 48, "cudaMemcpyFromSymbolAsync_v3020" },
	{ 49, "cudaMemset_v3020" },
	{ 50, "cudaMemset2D_v3020" },
	{ 51, "cudaMemsetAsync_v3020" },
	{ 52, "cudaMemset2DAsync_v3020" },
	{ 123, "cudaThreadExit_v3020" },
	{ 126, "cudaThreadSynchronize_v3020" },
	{ 129, "cudaStreamCreate_v3020" },
	{ 130, "cudaStreamDestroy_v3020" },
	{ 131, "cudaStreamSynchronize_v3020" },
	{ 132, "cudaStreamQuery_v3020" },
	{ 133, "cudaEventCreate_v3020" },
	{ 134, "cudaEventCreateWithFlags_v3020" },
	{ 135, "cudaEventRecord_v3020" },
	{ 136, "cudaEventDestroy_v3020" },
	{ 137, "cudaEventSynchronize_v3020" },
	{ 138, "cudaEventQuery_v3020" },
	{ 139, "cudaEventElapsedTime_v3020" },
	{ 142, "cudaMemset3D_v3020" },
	{ 143, "cudaMemset3DAsync_v3020" },
	{ 144, "cudaMemcpy3D_v3020" },
	{ 145, "cudaMemcpy3DAsync_v3020" },
	{ 147, "cudaStreamWaitEvent_v3020" },
	{ 151, "cudaPointerGetAttributes_v4000" },
	{ 152, "cudaHostRegister_v4000" },
	{ 153, "cudaHostUnregister_v4000" },
	{ 154, "cudaDeviceCanAccessPeer_v4000" },
	{ 155, "cudaDeviceEnablePeerAccess_v4000" },
	{ 160, "cudaMemcpyPeer_v4000" },
	{ 161, "cudaMemcpyPeerAsync_v4000" },
	{ 164, "cudaDeviceReset_v3020" },
	{ 165, "cudaDeviceSynchronize_v3020" },
	{ 166, "cudaDeviceGetLimit_v3020" },
	{ 167, "cudaDeviceSetLimit_v3020" },
	{ 171, "cudaProfilerStart_v4000" },
	{ 172, "cudaProfilerStop_v4000" },
	{ 197, "cudaStreamAddCallback_v5000" },
	{ 198, "cudaStreamCreateWithFlags_v5000" },
	{ 200, "cudaDeviceGetAttribute_v5000" },
	{ 201, "cudaStreamDestroy_v5050" },
	{ 202, "cudaStreamCreateWithPriority_v5050" },
	{ 203, "cudaStreamGetPriority_v5050" },
	{ 204, "cudaStreamGetFlags_v5050" },
	{ 205, "cudaDeviceGetStreamPriorityRange_v5050" },
	{ 206, "cudaMallocManaged_v6000" },
	{ 207, "cudaOccupancyMaxActiveBlocksPerMultiprocessor_v6000" },
	{ 209, "cudaGetErrorName_v6050" },
	{ 210, "cudaOccupancyMaxActiveBlocksPerMultiprocessor_v6050" },
	{ 211, "cudaLaunchKernel_v7000" },
	{ 212, "cudaGetDeviceFlags_v7000" },
	{ 213, "cudaLaunch_ptsz_v7000" },
	{ 214, "cudaLaunchKernel_ptsz_v7000" },
	{ 215, "cudaMemcpy_ptds_v7000" },
	{ 225, "cudaMemcpyAsync_ptsz_v7000" },
	{ 233, "cudaMemset_ptds_v7000" },
	{ 235, "cudaMemsetAsync_ptsz_v7000" },
	{ 239, "cudaStreamSynchronize_ptsz_v7000" },
	{ 240, "cudaStreamQuery_ptsz_v7000" },
	{ 242, "cudaEventRecord_ptsz_v7000" },
	{ 247, "cudaStreamWaitEvent_ptsz_v7000" },
	{ 251, "cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags_v7000" },
	{ 252, "cudaMemPrefetchAsync_v8000" },
	{ 254, "cudaMemAdvise_v8000" },
	{ 269, "cudaLaunchCooperativeKernel_v9000" },
	{ 273, "cudaFuncSetAttribute_v9000" },
	{ 284, "cudaLaunchHostFunc_v10000" },
	{ 310, "cudaGraphInstantiate_v10000" },
	{ 311, "cudaGraphLaunch_v10000" },
	{ 315, "cudaStreamBeginCapture_v10000" },
	{ 317, "cudaStreamIsCapturing_v10000" },
	{ 319, "cudaStreamEndCapture_v10000" },
};

static osc_str api_name(struct sq *q, int64_t cbid, bool driver)
{
	char buf[48];

	if (!driver)
		for (size_t i = 0; i < sizeof(runtime_names) / sizeof(runtime_names[0]); i++)
			if (runtime_names[i].cbid == cbid)
				return osc_trace_intern(q->t, runtime_names[i].name,
							strlen(runtime_names[i].name));
	snprintf(buf, sizeof(buf), "%s#%lld", driver ? "cuDriverApi" : "cudaRuntimeApi",
		 (long long)cbid);
	return osc_trace_intern(q->t, buf, strlen(buf));
}

static uint32_t host_thread(struct sq *q, int64_t pid, int64_t tid)
{
	uint32_t t = (uint32_t)tid;

	return sq_thread(q, (int64_t)((uint64_t)(uint32_t)pid << 32 | t), pid, (int64_t)t);
}

static enum osc_status api(struct sq *q, const char *table, bool driver)
{
	static const char *const cols[] = { "cbid", "start", "end", "processId", "threadId",
					    "correlationId" };
	char *c;
	sqlite3_stmt *st;
	int rc;

	if (!sq_has_table(q, table))
		return OSC_OK;
	c = sq_columns(q, table, "r", cols, 6);
	st = sq_prepare(q, table, "SELECT %s FROM %s r", c, table);
	free(c);
	if (!st)
		return q->lc->err->code;
	while ((rc = sq_step(q, st, table)) == SQLITE_ROW) {
		struct osc_event e = { .kind = OSC_KIND_RUNTIME, .ext = OSC_ID_NONE,
				       .cat = driver ? q->cat_driver : q->cat_runtime };

		e.name = api_name(q, sq_int(st, 0, -1), driver);
		e.thread = host_thread(q, sq_int(st, 3, 0), sq_int(st, 4, 0));
		e.corr_id = osc_trace_id(q->t, sq_int(st, 5, OSC_NO_ID));
		sq_add(q, &e, sq_int(st, 1, 0), sq_int(st, 2, 0), NULL, 0);
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? OSC_OK : q->lc->err->code;
}

/* The thread key of a marker's or name's object (CUpti_ActivityObjectKindId). */
static int64_t object_key(sqlite3_stmt *st, int kind_col, int id_col, uint32_t *pid,
			  uint32_t *tid)
{
	const unsigned char *b = sqlite3_column_blob(st, id_col);
	int n = sqlite3_column_bytes(st, id_col);
	int64_t kind = sq_int(st, kind_col, 0);

	*pid = *tid = 0;
	if (b && n >= 4 && (kind == 1 || kind == 2)) /* process, thread */
		*pid = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
		       (uint32_t)b[3] << 24;
	if (b && n >= 8 && kind == 2)
		*tid = (uint32_t)b[4] | (uint32_t)b[5] << 8 | (uint32_t)b[6] << 16 |
		       (uint32_t)b[7] << 24;
	return (int64_t)((uint64_t)*pid << 32 | *tid);
}

static uint32_t object_thread(struct sq *q, sqlite3_stmt *st, int kind_col, int id_col)
{
	uint32_t pid, tid;

	object_key(st, kind_col, id_col, &pid, &tid);
	return host_thread(q, pid, tid);
}

/* A start marker waiting for its end (markers come sorted by id). */
struct open_range {
	bool open;
	int64_t id, ts;
	struct osc_event e;
	char *args;
};

static char *domain_args(struct sq *q, sqlite3_stmt *st, int id_col, int name_col)
{
	struct json_object *o;
	osc_str name;

	if (sq_int(st, id_col, 0) <= 0 || sqlite3_column_type(st, name_col) == SQLITE_NULL)
		return NULL;
	name = sq_intern_col(q, st, name_col);
	o = json_object_new_object();
	json_object_object_add(o, "domain", json_object_new_string(osc_trace_str(q->t, name)));
	return sq_args_json(o);
}

static void close_range(struct sq *q, struct open_range *r, int64_t end)
{
	sq_add(q, &r->e, r->ts, end, r->args, r->args ? strlen(r->args) : 0);
	free(r->args);
	r->args = NULL;
	r->open = false;
}

static enum osc_status markers(struct sq *q)
{
	static const char table[] = "CUPTI_ACTIVITY_KIND_MARKER";
	static const char sql[] =
		"SELECT m.flags, m.timestamp, m.id, m.objectKind, m.objectId, s.value, m.domain, "
		"d.value FROM CUPTI_ACTIVITY_KIND_MARKER m "
		"LEFT JOIN StringTable s ON s._id_ = m.name "
		"LEFT JOIN StringTable d ON d._id_ = m.domain "
		"ORDER BY m.id, m.flags, m.timestamp";
	struct open_range r = { 0 };
	sqlite3_stmt *st;
	int rc;

	if (!sq_has_table(q, table))
		return OSC_OK;
	st = sq_prepare(q, table, "%s", sql);
	if (!st)
		return q->lc->err->code;
	while ((rc = sq_step(q, st, table)) == SQLITE_ROW) {
		int64_t flags = sq_int(st, 0, 0), ts = sq_int(st, 1, 0), id = sq_int(st, 2, 0);
		struct osc_event e = { .cat = q->cat_nvtx, .corr_id = OSC_ID_NONE,
				       .ext = OSC_ID_NONE };

		if (flags & 4) { /* end */
			if (r.open && r.id == id)
				close_range(q, &r, ts);
			else
				osc_trace_warn(q->t, OSC_WARN_UNMATCHED_END, OSC_NO_OFFSET);
			continue;
		}
		if (!(flags & 3))
			continue;
		e.thread = object_thread(q, st, 3, 4);
		e.name = sq_intern_col(q, st, 5);
		if (flags & 1) { /* instantaneous mark */
			char *args = domain_args(q, st, 6, 7);

			e.ph = OSC_PH_INSTANT;
			e.kind = OSC_KIND_ANNOTATION;
			sq_add(q, &e, ts, ts, args, args ? strlen(args) : 0);
			free(args);
			continue;
		}
		if (r.open) { /* the previous id never ended */
			osc_trace_warn(q->t, OSC_WARN_UNMATCHED_BEGIN, OSC_NO_OFFSET);
			free(r.args);
		}
		e.kind = OSC_KIND_HOST_OP; /* NVTX ranges are the ops of these traces */
		r = (struct open_range){ true, id, ts, e, domain_args(q, st, 6, 7) };
	}
	if (r.open)
		osc_trace_warn(q->t, OSC_WARN_UNMATCHED_BEGIN, OSC_NO_OFFSET);
	free(r.args);
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? OSC_OK : q->lc->err->code;
}

/* Thread names (nvtxNameOsThread) for threads that have events. */
static void names(struct sq *q)
{
	sqlite3_stmt *st;

	if (!sq_has_column(q, "CUPTI_ACTIVITY_KIND_NAME", "objectId") ||
	    sqlite3_prepare_v2(q->db,
			       "SELECT n.objectKind, n.objectId, s.value "
			       "FROM CUPTI_ACTIVITY_KIND_NAME n "
			       "JOIN StringTable s ON s._id_ = n.name WHERE n.objectKind = 2",
			       -1, &st, NULL) != SQLITE_OK)
		return;
	while (sqlite3_step(st) == SQLITE_ROW) {
		uint32_t pid, tid, th = sq_thread_find(q, object_key(st, 0, 1, &pid, &tid));

		if (th != OSC_NONE)
			q->t->threads[th].thread_name = sq_intern_col(q, st, 2);
	}
	sqlite3_finalize(st);
}

static void meta(struct sq *q)
{
	struct json_object *m = json_object_new_object();

	json_object_object_add(m, "deviceProperties",
			       sq_gpu_names(q, "CUPTI_ACTIVITY_KIND_DEVICE", "name",
					    "SELECT s.value FROM CUPTI_ACTIVITY_KIND_DEVICE d "
					    "JOIN StringTable s ON s._id_ = d.name ORDER BY d.id"));
	json_object_object_add(m, "tool", json_object_new_string("nvprof"));
	sq_add_text(m, "schemaVersion", sq_one_text(q, "Version", "SELECT version FROM Version"));
	sq_set_meta(q, m);
}

enum osc_status osc_load_nvprof(struct sq *q)
{
	static const char name[] = "s.value", joins[] = "LEFT JOIN StringTable s ON s._id_ = k.name";
	static const char *const read[] = {
		"CUPTI_ACTIVITY_KIND_RUNTIME", "CUPTI_ACTIVITY_KIND_DRIVER",
		"CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL", "CUPTI_ACTIVITY_KIND_KERNEL",
		"CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET",
		"CUPTI_ACTIVITY_KIND_MARKER",
	};
	enum osc_status st;

	q->t->format = OSC_FORMAT_NVPROF;
	sq_expect_rows(q, read, sizeof(read) / sizeof(read[0]));
	st = api(q, "CUPTI_ACTIVITY_KIND_RUNTIME", false);
	if (st == OSC_OK)
		st = api(q, "CUPTI_ACTIVITY_KIND_DRIVER", true);
	if (st == OSC_OK)
		st = sq_load_kernels(q, "CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL", name, joins,
				     sq_intern_col);
	if (st == OSC_OK)
		st = sq_load_kernels(q, "CUPTI_ACTIVITY_KIND_KERNEL", name, joins,
				     sq_intern_col);
	if (st == OSC_OK)
		st = sq_load_copies(q);
	if (st == OSC_OK)
		st = markers(q);
	if (st != OSC_OK)
		return st;
	names(q);
	meta(q);
	return OSC_OK;
}
