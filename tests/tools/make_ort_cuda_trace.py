#!/usr/bin/env python3
"""Write tests/data/ort-cuda-synthetic.json: a small ORT CUDA-EP style profile.

No public ORT profile from the CUDA execution provider exists (see
../shared/traces/MANIFEST.md), so this one is made by hand after ORT's
writer: a JSON array with Session events, per-node *_kernel_time events
(cat Node, args op_name / provider / input_type_shape / output_type_shape),
one model_run per run written after its nodes, and GPU work as cat
"Kernel" events carrying the launching node's args.op_name and the launch
dimensions (block_x.. grid_z). Each kernel runs inside its node's window and
is written right after the node, so a file-position reader (profile_explorer)
and a time-window reader (opscope) see the same runs and the same launching
node. Deterministic: no randomness.
"""
import json
import os
import sys

OPS = [
    # node name, op, input shapes, kernels: (name, block, grid, dur_us)
    ("conv1", "Conv", [{"float": [1, 3, 224, 224]}, {"float": [64, 3, 7, 7]}],
     [("_Z13conv2d_kernelIfLi128EEvPKT_PS0_i", (128, 1, 1), (196, 1, 1), 40),
      ("_Z11relu_kernelIfEvPT_i", (256, 1, 1), (98, 1, 1), 6)]),
    ("relu1", "Relu", [{"float": [1, 64, 112, 112]}],
     [("_Z11relu_kernelIfEvPT_i", (256, 1, 1), (784, 1, 1), 9)]),
    ("conv2", "Conv", [{"float": [1, 64, 56, 56]}, {"float": [64, 64, 3, 3]}],
     [("_Z13conv2d_kernelIfLi128EEvPKT_PS0_i", (128, 1, 1), (49, 1, 1), 31),
      ("_Z13conv2d_kernelIfLi128EEvPKT_PS0_i", (128, 1, 1), (49, 1, 1), 29)]),
    ("gemm", "MatMul", [{"float": [1, 512]}, {"float": [512, 1000]}],
     [("_ZN7cutlass6KernelINS_4gemm6kernel4GemmIfEEEEvNT_6ParamsE", (128, 1, 1), (8, 1, 1), 17),
      ("volta_sgemm_128x64_nn", (128, 1, 1), (8, 2, 1), 12)]),
    ("relu2", "Relu", [{"float": [1, 1000]}],
     [("_Z11relu_kernelIfEvPT_i", (256, 1, 1), (4, 1, 1), 2)]),
]


def main(path):
    ev = [{"cat": "Session", "pid": 1, "tid": 1, "dur": 900, "ts": 1, "ph": "X",
           "name": "model_loading_uri", "args": {}}]
    ts = 1000
    for run in range(4):
        start = ts
        for i, (node, op, shapes, kernels) in enumerate(OPS):
            # Later runs get slower kernels, so runs differ.
            durs = [d + run * (i % 3) for _, _, _, d in kernels]
            node_dur = sum(durs) + 10
            ev.append({"cat": "Node", "pid": 1, "tid": 1, "dur": node_dur, "ts": ts,
                       "ph": "X", "name": node + "_kernel_time",
                       "args": {"op_name": op, "provider": "CUDAExecutionProvider",
                                "input_type_shape": shapes,
                                "output_type_shape": [{"float": [1]}]}})
            k_ts = ts + 5
            for (kname, block, grid, _), d in zip(kernels, durs):
                args = {"op_name": op, "stream": 7}
                for axis, v in zip("xyz", block):
                    args["block_" + axis] = v
                for axis, v in zip("xyz", grid):
                    args["grid_" + axis] = v
                ev.append({"cat": "Kernel", "pid": 1, "tid": 2, "dur": d, "ts": k_ts,
                           "ph": "X", "name": kname, "args": args})
                k_ts += d
            ts += node_dur + 3
        ev.append({"cat": "Session", "pid": 1, "tid": 1, "dur": ts - start, "ts": start,
                   "ph": "X", "name": "model_run", "args": {}})
        ts += 20
    with open(path, "w") as f:
        f.write("[\n" + ",\n".join(json.dumps(e) for e in ev) + "\n]\n")


if __name__ == "__main__":
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    main(sys.argv[1] if len(sys.argv) > 1 else
         os.path.join(root, "tests", "data", "ort-cuda-synthetic.json"))
