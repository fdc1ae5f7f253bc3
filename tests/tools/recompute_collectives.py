#!/usr/bin/env python3
"""Recompute `opscope gpu --collectives --whole-trace` from a Kineto trace.

Written from the trace format (not from opscope's C code): every complete
cpu_op named record_param_comms with a "Collective name" arg is a call; its
device time is the duration of every device event (kernel, memcpy, memset:
cat kernel, gpu_memcpy, gpu_memset) whose correlation id is that of a
runtime call (cat cuda_runtime / cuda_driver / hip_runtime) on the call's
thread that starts within the call's window. Calls group by (collective,
dtype, group size, S) with S as NCCL's PERFORMANCE.md defines it (the output
for allgather, else the input: nelems x the dtype's size); algbw = total
bytes / total device time, busbw = algbw x 2(n-1)/n (allreduce), (n-1)/n
(allgather, reduce_scatter, alltoall), else 1.

    recompute_collectives.py TRACE   # prints the CSV opscope should print
"""
import gzip
import json
import sys

SIZES = {"Float": 4, "Double": 8, "Half": 2, "BFloat16": 2, "Long": 8, "Int": 4, "Short": 2,
         "Char": 1, "Byte": 1, "Bool": 1, "ComplexFloat": 8, "ComplexDouble": 16,
         "Float8_e4m3fn": 1, "Float8_e5m2": 1, "Float8_e4m3fnuz": 1, "Float8_e5m2fnuz": 1}
RUNTIME = {"cuda_runtime", "cuda_driver", "hip_runtime", "hip_driver", "runtime"}
DEVICE = {"kernel", "gpu_memcpy", "gpu_memset", "Kernel", "Memcpy", "Memset"}


def norm(name):
    return name.lstrip("_").lower()


def factor(name, n):
    k = norm(name)
    if k.startswith(("allreduce", "all_reduce")):
        return 2.0 * (n - 1) / n
    if k.startswith(("allgather", "all_gather", "reduce_scatter", "alltoall", "all_to_all")):
        return (n - 1) / n
    return 1.0


def ns(x):
    """Kineto's microseconds (maybe fractional) as integer ns, as opscope reads them."""
    return int(round(float(x) * 1000))


def rows(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        doc = json.load(f)
    ev = doc["traceEvents"] if isinstance(doc, dict) else doc
    dev = {}
    for e in ev:
        if e.get("ph") == "X" and e.get("cat") in DEVICE:
            c = (e.get("args") or {}).get("correlation")
            if c is not None:
                dev[c] = dev.get(c, 0) + ns(e["dur"])
    launches = {}
    for e in ev:
        if e.get("ph") == "X" and e.get("cat") in RUNTIME:
            c = (e.get("args") or {}).get("correlation")
            if c is not None:
                launches.setdefault((e["pid"], e["tid"]), []).append((ns(e["ts"]), c))
    groups = {}
    for e in ev:
        a = e.get("args") or {}
        if e.get("ph") != "X" or e.get("cat") != "cpu_op" or e.get("name") != "record_param_comms":
            continue
        name = a.get("Collective name")
        if not isinstance(name, str) or not name:
            continue
        dtype = a.get("dtype") if isinstance(a.get("dtype"), str) else ""
        group = a.get("Group size") if isinstance(a.get("Group size"), int) else -1
        n_in, n_out = a.get("In msg nelems"), a.get("Out msg nelems")
        n = n_out if norm(name).startswith(("allgather", "all_gather")) else n_in
        size = SIZES.get(dtype, 0)
        s = n * size if size and isinstance(n, int) and n >= 0 else None
        t0, t1 = ns(e["ts"]), ns(e["ts"]) + ns(e["dur"])
        time = sum(dev.get(c, 0) for ts, c in launches.get((e["pid"], e["tid"]), [])
                   if t0 <= ts < t1)
        g = groups.setdefault((name, dtype, group, s), [0, 0])
        g[0] += 1
        g[1] += time
    return groups


def csv_lines(groups):
    out = ["collective,dtype,group_size,msg_mb,count,device_us,algbw_gbs,busbw_gbs"]
    order = sorted(groups.items(), key=lambda kv: (-kv[1][1], kv[0][0]))
    for (name, dtype, group, s), (count, time) in order:
        alg = s * count / time if s is not None and time > 0 else None
        out.append(",".join([
            name, dtype, str(group) if group >= 0 else "",
            "%.6f" % (s / 1e6) if s is not None else "", str(count),
            "%d.%03d" % (time // 1000, time % 1000),
            "%.3f" % alg if alg is not None else "",
            "%.3f" % (alg * factor(name, group)) if alg is not None and group >= 1 else ""]))
    return out


if __name__ == "__main__":
    print("\n".join(csv_lines(rows(sys.argv[1]))))
