#!/usr/bin/env python3
"""Write samples/ne-bert-mini-int8.json: a made-up Intel Neural Engine profile.

No public Neural Engine trace exists, so this sample is built from the
format described in Neural Engine's profiling documentation (see
../shared/seeds/004_*.txt): a model_inference event (cat "inference"), one
IterationN event per iteration (cat "iteration"), and per-op events named
after the op instance with the op type as category and args reshape_time,
forward_time, input/output tensor names, types and shapes (shapes "64*1024"
separated by commas) and attributes ("append_op:gelu_tanh;src1_perm:1,0").
The wall duration of an op event is its forward_time; reshape_time is 0 after
the first iteration (static shapes), as the documentation says.

The durations are invented but deterministic (no random numbers), shaped like
a bert-mini int8 model: InnerProduct dominates. Run it from the repository
root: python3 scripts/make_ne_sample.py
"""
import json

# (op instance, op type, inputs [(tensor, dtype, shape)], output (tensor, dtype, shape),
#  attributes, forward time in µs)
LAYER = [
    ("Add_37", "InnerProduct",
     [("116:0", "u8", "1024*256"), ("641:0", "s8", "256*256"),
      ("bert.encoder.layer.{l}.attention.self.key.bias:0", "fp32", "256")],
     ("Add_37:0", "s8", "1024*256"), "append_op:sum;src1_perm:1,0", 75),
    ("Add_39", "InnerProduct",
     [("116:0", "u8", "1024*256"), ("642:0", "s8", "256*256"),
      ("bert.encoder.layer.{l}.attention.self.query.bias:0", "fp32", "256")],
     ("Add_39:0", "s8", "1024*256"), "src1_perm:1,0", 72),
    ("MatMul_52", "Matmul",
     [("Add_39:0", "s8", "8*4*128*64"), ("Add_37:0", "s8", "8*4*64*128")],
     ("MatMul_52:0", "fp32", "8*4*128*128"), "append_op:binary_add", 58),
    ("Softmax_55", "Softmax", [("MatMul_52:0", "fp32", "8*4*128*128")],
     ("Softmax_55:0", "u8", "8*4*128*128"), "output_dtype:u8", 41),
    ("Add_68", "InnerProduct",
     [("context:0", "u8", "1024*256"), ("648:0", "s8", "256*256"),
      ("bert.encoder.layer.{l}.attention.output.dense.bias:0", "fp32", "256")],
     ("Add_68:0", "fp32", "1024*256"), "append_op:sum;src1_perm:1,0", 77),
    ("LayerNorm_80", "LayerNorm",
     [("Add_68:0", "fp32", "1024*256"), ("ln.weight:0", "fp32", "256"),
      ("ln.bias:0", "fp32", "256")],
     ("LayerNorm_80:0", "fp32", "1024*256"), "epsilon:1e-12", 24),
    ("Add_84", "InnerProduct",
     [("LayerNorm_80:0", "u8", "1024*256"), ("651:0", "s8", "1024*256"),
      ("bert.encoder.layer.{l}.intermediate.dense.bias:0", "fp32", "1024")],
     ("Add_84:0", "u8", "1024*1024"), "append_op:gelu_tanh;src1_perm:1,0", 190),
    ("Add_284", "InnerProduct",
     [("Add_84:0", "u8", "1024*1024"), ("652:0", "s8", "256*1024"),
      ("bert.encoder.layer.{l}.output.dense.bias:0", "fp32", "256"),
      ("LayerNorm_80:0", "fp32", "1024*256")],
     ("input.44:0", "fp32", "1024*256"), "append_op:sum;src1_perm:1,0", 181),
]


def op_events(it, t0):
    """One iteration's ops for two encoder layers, starting at t0 (µs)."""
    out = []
    ts = t0
    for layer in range(2):
        for i, (name, typ, ins, o, attrs, fwd) in enumerate(LAYER):
            # Deterministic spread: a few µs up or down per iteration and layer.
            fwd_us = fwd + ((it * 7 + layer * 5 + i * 3) % 11) - 5
            reshape = 4 if it == 0 else 0
            inst = name if layer == 0 else "%s_%d" % (name.rsplit("_", 1)[0],
                                                    int(name.rsplit("_", 1)[1]) + 250)
            out.append({
                "name": inst, "cat": typ, "ph": "X", "pid": 0, "tid": 0,
                "ts": ts, "dur": fwd_us,
                "args": {
                    "reshape_time": "%.3fms" % (reshape / 1000),
                    "forward_time": "%.3fms" % (fwd_us / 1000),
                    "input_tensor_name": ",".join(n.format(l=layer) for n, _, _ in ins),
                    "input_type": ",".join(d for _, d, _ in ins),
                    "input_shape": ",".join(s for _, _, s in ins),
                    "output_tensor_name": o[0],
                    "output_type": o[1],
                    "output_shape": o[2],
                    "attributes": attrs,
                },
            })
            ts += fwd_us + reshape + 2
    return out, ts


def main():
    events = []
    t = 0
    iters = []
    for it in range(4):
        ops, end = op_events(it, t + 3)
        iters.append({"name": "Iteration%d" % it, "cat": "iteration", "ph": "X", "pid": 0,
                      "tid": 0, "ts": t, "dur": end + 3 - t})
        events.extend(ops)
        t = end + 10
    events = [{"name": "model_inference", "cat": "inference", "ph": "X", "pid": 0, "tid": 0,
               "ts": 0, "dur": t}] + iters + events
    with open("samples/ne-bert-mini-int8.json", "w") as f:
        json.dump({"traceEvents": events}, f, indent=None, separators=(",", ":"))
        f.write("\n")


if __name__ == "__main__":
    main()
