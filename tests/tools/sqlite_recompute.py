"""Independent numbers for nvprof and Nsight Systems SQLite files, by SQL.

Standard library only (sqlite3). Nothing here shares code with opscope: the
statistics come straight from SQL over the profiler's own tables, so the
tests compare two implementations.

  kernels(path)  -> {name: (count, total_ns, min_ns, max_ns)}
  ranges(path)   -> {name: (count, total_ns, min_ns, max_ns)} for NVTX ranges
  counts(path)   -> {"runtime": n, "kernel": n, "memcpy": n, "memset": n, "op": n}
                    (runtime: API calls; nsys 2022 writes each call twice, with the
                    same correlationId, and a call counts once: see _NSYS_CALLS)
  gather(path)   -> [(op name, [kernel (start, end, registers, stream)...])...]
                    every NVTX range in start order with the kernels launched
                    by runtime calls on its thread inside its window
  schema(path)   -> "nsys" or "nvprof"

A gzip'd database is decompressed to a temporary file first.
"""
import contextlib
import gzip
import json
import os
import sqlite3
import tempfile


@contextlib.contextmanager
def connect(path):
    tmp = None
    with open(path, "rb") as f:
        gz = f.read(2) == b"\x1f\x8b"
    if gz:
        fd, tmp = tempfile.mkstemp(suffix=".sqlite")
        with os.fdopen(fd, "wb") as out, gzip.open(path, "rb") as src:
            out.write(src.read())
        path = tmp
    db = sqlite3.connect("file:%s?mode=ro" % path, uri=True)
    try:
        yield db
    finally:
        db.close()
        if tmp:
            os.unlink(tmp)


def _tables(db):
    return {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}


def schema(path):
    with connect(path) as db:
        return "nsys" if "StringIds" in _tables(db) else "nvprof"


def _stats(rows):
    out = {}
    for name, dur in rows:
        c, t, lo, hi = out.get(name, (0, 0, None, None))
        out[name] = (c + 1, t + dur, dur if lo is None else min(lo, dur),
                     dur if hi is None else max(hi, dur))
    return out


def _kernel_sql(db):
    if "StringIds" in _tables(db):
        return ("SELECT COALESCE(d.value, s.value), k.end - k.start, k.start, k.end, "
                "k.registersPerThread, k.streamId, k.correlationId "
                "FROM CUPTI_ACTIVITY_KIND_KERNEL k "
                "LEFT JOIN StringIds d ON d.id = k.demangledName "
                "LEFT JOIN StringIds s ON s.id = k.shortName")
    parts = []
    for t in ("CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL", "CUPTI_ACTIVITY_KIND_KERNEL"):
        if t in _tables(db):
            parts.append("SELECT s.value, k.end - k.start, k.start, k.end, "
                         "k.registersPerThread, k.streamId, k.correlationId "
                         "FROM %s k LEFT JOIN StringTable s ON s._id_ = k.name" % t)
    return " UNION ALL ".join(parts)


# One row per nsys API call: of the rows of one process (globalTid >> 24) with
# one correlationId, the longest, the first on a tie; rows without an id all.
_NSYS_CALLS = ("SELECT start, end, globalTid, correlationId FROM ("
               " SELECT r.start, r.end, r.globalTid, r.correlationId,"
               " ROW_NUMBER() OVER (PARTITION BY r.globalTid >> 24, r.correlationId"
               " ORDER BY r.end - r.start DESC, r.rowid) AS nth"
               " FROM CUPTI_ACTIVITY_KIND_RUNTIME r)"
               " WHERE nth = 1 OR correlationId IS NULL")


def nsys_calls(db):
    """(start, end, globalTid, correlationId) of each API call of an nsys file."""
    if "CUPTI_ACTIVITY_KIND_RUNTIME" not in _tables(db):
        return []
    return db.execute(_NSYS_CALLS).fetchall()


def kernels(path):
    with connect(path) as db:
        return _stats((r[0], r[1]) for r in db.execute(_kernel_sql(db)))


NO_ID = -2 ** 63  # an absent correlation id, as opscope prints it


def _int32(v):
    return ((int(v) + 2 ** 31) % 2 ** 32) - 2 ** 31


def _columns(db, table, cols):
    """cols of table for a SELECT, NULL for those it lacks."""
    have = {r[1] for r in db.execute("SELECT * FROM pragma_table_info(?)", (table,))}
    return ", ".join(c if c in have else "NULL" for c in cols)


def device_args(path):
    """The args of every device row with a start (kernels, memcpy, memset), as
    opscope shows them: JSON texts with sorted keys, in a list sorted."""
    out = []

    def i32(v):
        return -1 if v is None else _int32(v)

    with connect(path) as db:
        tabs = _tables(db)
        kernel_tables = ["CUPTI_ACTIVITY_KIND_KERNEL"] if "StringIds" in tabs else \
            ["CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL", "CUPTI_ACTIVITY_KIND_KERNEL"]
        kcols = ["start", "correlationId", "deviceId", "streamId", "gridX", "gridY", "gridZ",
                 "blockX", "blockY", "blockZ", "registersPerThread", "staticSharedMemory",
                 "dynamicSharedMemory"]
        for t in (t for t in kernel_tables if t in tabs):
            for r in db.execute("SELECT %s FROM %s" % (_columns(db, t, kcols), t)):
                if r[0] is None or r[0] <= 0:
                    continue
                shared = -1 if r[11] is None and r[12] is None else (r[11] or 0) + (r[12] or 0)
                out.append({"correlation": NO_ID if r[1] is None else r[1],
                            "device": i32(r[2]), "stream": i32(r[3]),
                            "grid": [i32(v) for v in r[4:7]],
                            "block": [i32(v) for v in r[7:10]],
                            "registers per thread": i32(r[10]), "shared memory": shared})
        ccols = ["start", "correlationId", "deviceId", "streamId", "bytes"]
        for t in ("CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET"):
            if t not in tabs:
                continue
            for r in db.execute("SELECT %s FROM %s" % (_columns(db, t, ccols), t)):
                if r[0] is None or r[0] <= 0:
                    continue
                out.append({"correlation": NO_ID if r[1] is None else r[1],
                            "device": i32(r[2]), "stream": i32(r[3]),
                            "bytes": -1 if r[4] is None else r[4]})
    return sorted(json.dumps(a, sort_keys=True) for a in out)


def _range_sql(db):
    """name, start, end, thread key of every complete NVTX range."""
    if "StringIds" in _tables(db):
        if "NVTX_EVENTS" not in _tables(db):
            return None
        return ("SELECT COALESCE(n.text, s.value, ''), n.start, n.end, n.globalTid "
                "FROM NVTX_EVENTS n LEFT JOIN StringIds s ON s.id = n.textId "
                "WHERE n.eventType IN (59, 60) AND n.end IS NOT NULL")
    # nvprof: start (flags 2) and end (flags 4) markers share an id; the thread is
    # bytes 0-7 of the start's objectId (pid, tid as little-endian uint32)
    return ("SELECT COALESCE(s.value, ''), b.timestamp, e.timestamp, hex(b.objectId) "
            "FROM CUPTI_ACTIVITY_KIND_MARKER b "
            "JOIN CUPTI_ACTIVITY_KIND_MARKER e ON e.id = b.id AND e.flags = 4 "
            "LEFT JOIN StringTable s ON s._id_ = b.name WHERE b.flags = 2")


def ranges(path):
    with connect(path) as db:
        sql = _range_sql(db)
        return {} if sql is None else _stats((r[0], r[2] - r[1]) for r in db.execute(sql))


def counts(path):
    with connect(path) as db:
        tabs = _tables(db)

        def n(table, where=""):
            return db.execute("SELECT count(*) FROM %s %s" % (table, where)).fetchone()[0] \
                if table in tabs else 0

        sql = _range_sql(db)
        if "StringIds" in tabs:
            runtime = len(nsys_calls(db))
        else:
            runtime = n("CUPTI_ACTIVITY_KIND_RUNTIME") + n("CUPTI_ACTIVITY_KIND_DRIVER")
        return {
            "runtime": runtime,
            "kernel": sum(1 for _ in db.execute(_kernel_sql(db))),
            "memcpy": n("CUPTI_ACTIVITY_KIND_MEMCPY"),
            "memset": n("CUPTI_ACTIVITY_KIND_MEMSET"),
            "op": 0 if sql is None else sum(1 for _ in db.execute(sql)),
        }


def _thread_of_nvprof(hexblob):
    b = bytes.fromhex(hexblob)
    return int.from_bytes(b[0:4], "little") << 32 | int.from_bytes(b[4:8], "little")


def gather(path):
    """Every NVTX range (start order) with its kernels, by the projection rule."""
    with connect(path) as db:
        nsys = "StringIds" in _tables(db)
        sql = _range_sql(db)
        ops = [] if sql is None else list(db.execute(sql))
        if nsys:
            calls = nsys_calls(db)
        else:
            calls = [(s, e, (p & 0xffffffff) << 32 | (t & 0xffffffff), c) for s, e, p, t, c in
                     db.execute("SELECT start, end, processId, threadId, correlationId "
                                "FROM CUPTI_ACTIVITY_KIND_RUNTIME")]
        by_corr = {}
        for r in db.execute(_kernel_sql(db)):
            by_corr.setdefault(r[6], []).append((r[2], r[3], r[4], r[5]))
    out = []
    for name, start, end, thread in sorted(ops, key=lambda o: (o[1], -(o[2] - o[1]))):
        th = thread if nsys else _thread_of_nvprof(thread)
        ks = []
        for cs, ce, ct, corr in calls:
            if ct == th and cs >= start and ce <= end:
                ks.extend(by_corr.get(corr, []))
        out.append((name, sorted(ks)))
    return out
