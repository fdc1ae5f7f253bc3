#!/usr/bin/env python3
"""Write a Kineto trace of many distinct op names, for bench_query and tui_keys.py.

    make_names_trace.py PATH [OPS] [--cpu-only]

OPS cpu_op events (default 1,000,000), one after another in one
ProfilerStep on one thread, each named aten::op_NNNNNNN with a name of its
own (numbered (i * 7919) % OPS, so names do not follow time) and Input Dims
of one of 97 x 13 shapes; each launches one kernel through a
cudaLaunchKernel (External id and correlation i + 1), the kernels taking 1
to 6 us and named from 500 kernel names. --cpu-only leaves out the launches
and kernels. Deterministic. 1M ops with kernels: 3M events, 459 MB, the
"names-1M with kernels" of issue 19's notes; every level, sort, comparison
and GPU table then has a million rows.
"""
import argparse
import random


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("path")
    ap.add_argument("ops", nargs="?", type=int, default=1000000)
    ap.add_argument("--cpu-only", action="store_true")
    a = ap.parse_args()
    rng = random.Random(1)
    n = a.ops
    with open(a.path, "w") as out:
        out.write('{"schemaVersion":1,"traceEvents":[\n')
        out.write('{"ph":"M","name":"process_name","pid":1,"tid":0,"args":{"name":"python"}},\n')
        out.write('{"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,'
                  '"ts":999.000,"dur":%.3f},\n' % (n * 10 + 2))
        t = 1000.0
        for i in range(n):
            out.write('{"ph":"X","cat":"cpu_op","name":"aten::op_%07d","pid":1,"tid":1,'
                      '"ts":%.3f,"dur":8,"args":{"Input Dims":[[%d,%d]],"External id":%d}},\n'
                      % ((i * 7919) % n, t, i % 97, i % 13, i + 1))
            if not a.cpu_only:
                out.write('{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,'
                          '"tid":1,"ts":%.3f,"dur":3,"args":{"correlation":%d,"External id":%d}},'
                          '\n' % (t + 2, i + 1, i + 1))
                out.write('{"ph":"X","cat":"kernel","name":"kern_%d","pid":0,"tid":7,"ts":%.3f,'
                          '"dur":%.3f,"args":{"correlation":%d,"External id":%d,"stream":7,'
                          '"device":0}},\n' % (i % 500, t + 6, 1 + rng.random() * 5, i + 1, i + 1))
            t += 10
        out.write('{"ph":"i","s":"g","name":"end","pid":1,"tid":1,"ts":%.3f}\n]}\n' % t)


if __name__ == "__main__":
    main()
