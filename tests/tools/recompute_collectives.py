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
Algorithm and protocol come from the names of the call's kernels (cat
kernel), by NCCL's grammar (collectives.h's NCCL_KERN_NAME up to 2.18,
src/device/generate.py from 2.19): ncclKernel_<coll>_<ALGO>_<PROTO>_<op>_<type>
or ncclDevKernel_<coll>[_<op>_<type>]_<ALGO>_<PROTO>, "(" and parameters
after; a name that is neither but starts ncclKernel_/ncclDevKernel_ and a
collective (ncclDevKernel_Generic) says "" for both; other kernels say
nothing. A call's value is its NCCL kernels' common one, else "mixed";
calls group by algorithm and protocol too.

    recompute_collectives.py TRACE   # prints the CSV opscope should print
"""
import gzip
import json
import re
import sys

SIZES = {"Float": 4, "Double": 8, "Half": 2, "BFloat16": 2, "Long": 8, "Int": 4, "Short": 2,
         "Char": 1, "Byte": 1, "Bool": 1, "ComplexFloat": 8, "ComplexDouble": 16,
         "Float8_e4m3fn": 1, "Float8_e5m2": 1, "Float8_e4m3fnuz": 1, "Float8_e5m2fnuz": 1}
RUNTIME = {"cuda_runtime", "cuda_driver", "hip_runtime", "hip_driver", "runtime"}
DEVICE = {"kernel", "gpu_memcpy", "gpu_memset", "Kernel", "Memcpy", "Memset"}
KERNEL = {"kernel", "Kernel"}
ALGO = "(?P<algo>TREE|RING|COLLNET_DIRECT|COLLNET_CHAIN|NVLS|NVLS_TREE|PAT)"
PROTO = "(?P<proto>LL|LL128|SIMPLE)"
TOKEN = "[A-Za-z0-9]+"
OLD_FORM = re.compile("ncclKernel_%s_%s_%s(_.*)?$" % (TOKEN, ALGO, PROTO))
NEW_FORM = re.compile("ncclDevKernel_%s(_%s_%s)?_%s_%s$" % (TOKEN, TOKEN, TOKEN, ALGO, PROTO))
NCCL = re.compile("nccl(Dev)?Kernel_[^_]")


def nccl_kernel(name):
    """(algorithm, protocol) of an NCCL/RCCL kernel name, None for another kernel."""
    name = name.split("(", 1)[0]
    if not NCCL.match(name):
        return None
    m = OLD_FORM.match(name) or NEW_FORM.match(name)
    return (m.group("algo"), m.group("proto")) if m else ("", "")


def merge(acc, value):
    """A call's value after one more kernel: the common one, else "mixed"."""
    return value if acc is None or acc == value else "mixed"


def merge_kernels(names):
    """(algorithm, protocol) of a call that launched kernels names ("" when none says)."""
    algo = proto = None
    for n in names:
        k = nccl_kernel(n)
        if k is not None:
            algo, proto = merge(algo, k[0]), merge(proto, k[1])
    return algo or "", proto or ""


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
    dev, kernels = {}, {}
    for e in ev:
        if e.get("ph") == "X" and e.get("cat") in DEVICE:
            c = (e.get("args") or {}).get("correlation")
            if c is not None:
                dev[c] = dev.get(c, 0) + ns(e["dur"])
                if e.get("cat") in KERNEL:
                    kernels.setdefault(c, []).append(e.get("name", ""))
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
        mine = [c for ts, c in launches.get((e["pid"], e["tid"]), []) if t0 <= ts < t1]
        time = sum(dev.get(c, 0) for c in mine)
        algo, proto = merge_kernels(k for c in mine for k in kernels.get(c, []))
        g = groups.setdefault((name, dtype, group, s, algo, proto), [0, 0])
        g[0] += 1
        g[1] += time
    return groups


def csv_lines(groups):
    out = ["collective,dtype,group_size,msg_mb,algorithm,protocol,count,device_us,algbw_gbs,"
           "busbw_gbs"]
    order = sorted(groups.items(), key=lambda kv: (-kv[1][1], kv[0][0], kv[0][4], kv[0][5]))
    for (name, dtype, group, s, algo, proto), (count, time) in order:
        alg = s * count / time if s is not None and time > 0 else None
        out.append(",".join([
            name, dtype, str(group) if group >= 0 else "",
            "%.6f" % (s / 1e6) if s is not None else "", algo, proto, str(count),
            "%d.%03d" % (time // 1000, time % 1000),
            "%.3f" % alg if alg is not None else "",
            "%.3f" % (alg * factor(name, group)) if alg is not None and group >= 1 else ""]))
    return out


if __name__ == "__main__":
    print("\n".join(csv_lines(rows(sys.argv[1]))))
