#!/usr/bin/env python3
"""Write a synthetic ORT-style trace with N events (default 2,000,000) for
measuring the TUI's keypress latency (not used by the tests).

usage: make_big_trace.py OUT.json [N]
"""
import random
import sys

OPS = ["Conv", "Relu", "MaxPool", "Gemm", "Add", "MatMul", "Softmax", "LayerNorm",
       "Transpose", "Reshape", "Concat", "Gather", "Mul", "Sigmoid", "Flatten"]


def main():
    out, n = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 2000000
    per_run = 1000
    rnd = random.Random(1)
    ts = 0
    with open(out, "w") as f:
        f.write("[\n")
        first = True
        for run in range(n // per_run):
            start = ts
            body = []
            for i in range(per_run - 1):
                op = OPS[i % len(OPS)]
                dur = rnd.randint(1, 2000)
                body.append('{"cat":"Node","pid":1,"tid":1,"dur":%d,"ts":%d,"ph":"X",'
                            '"name":"/layer%d/%s_kernel_time","args":{"op_name":"%s"}}'
                            % (dur, ts, i % 400, op, op))
                ts += dur + 1
            f.write(("" if first else ",\n") + '{"cat":"Session","pid":1,"tid":1,"dur":%d,'
                    '"ts":%d,"ph":"X","name":"model_run","args":{}}' % (ts - start, start))
            first = False
            f.write(",\n" + ",\n".join(body))
            ts += 10
        f.write("\n]\n")


if __name__ == "__main__":
    main()
