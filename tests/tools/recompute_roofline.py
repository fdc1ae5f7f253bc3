#!/usr/bin/env python3
"""Independent recomputation of the roofline columns of `opscope report`.

Written from the trace format (Kineto "Input Dims" + "Input type", ORT
"input_type_shape") and the formulas of man/opscope.1 (AGGREGATION,
Roofline), never from the C code: each op's tensors are read from its JSON
args, not from opscope's shape string. Ops, their runs and their
device_total time (kernels launched by the op and the ops nested in it) come
from recompute_measures.py, itself independent of the C code.

Work per call (n = elements, b = bytes; integers, exact):
- mm(A, B): 2MNK; addmm(C, A, B): 2MNK + MN; bmm / baddbmm: times the batch;
  matmul / MatMul: numpy's rules (1-D operands, broadcast batch); linear(X,
  W[, bias]): M = n(X)/K, 2MNK (+ MN). Bytes: A + B + out (+ bias), out of
  A's element type.
- scaled dot product attention, Q (B,H,Lq,D) K (B,H,Lk,D) V (B,H,Lk,Dv), or
  flash forward's (B,L,H,D): 2*B*H*Lq*Lk*(D + Dv), halved when the call's
  Concrete Inputs say is_causal=True (then Lq must equal Lk); unknown when
  they do not say; bytes Q + K + V + out.
- convolution (aten conv1d/2d/3d, convolution, _convolution, conv_transpose*,
  cudnn_/miopen_/mkldnn_ convolutions): stride, padding, dilation,
  transposed, output_padding, groups from the Concrete Inputs at the
  positions of each op's ATen schema; out per dim (i + 2p - d(k-1) - 1)//s + 1
  (transposed: (i-1)s - 2p + d(k-1) + op + 1); flops 2*N*Cout*out*(Cin/g)*k
  (transposed 2*N*Cin*in*(Cout/g)*k) + N*Cout*out with a bias; bytes X + W
  (+ bias) + out.
- elementwise: n(broadcast of the tensors) flops; bytes tensors + out.
- copy_ / fill_ / zero_: no flops; bytes: every tensor (the first written).
Rows: ops of the selected runs grouped by (op key, shape text); a row's work
is the sum over its ops, unknown when one op's is.

    recompute_roofline.py TRACE [PEAK_TFLOPS PEAK_TBS]
prints name,input_type_shape,count,gflop,mbyte,flop_per_byte,tflop_s,tb_s,
peak_flops_pct,peak_bw_pct (unknown cells empty). Importable: rows().
"""
import json
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import recompute  # noqa: E402
import recompute_measures as rm  # noqa: E402

# element type -> (bytes, dtype class)
TYPES = {
    "float": (4, "fp32"), "double": (8, "fp64"), "c10::Half": (2, "fp16"),
    "c10::BFloat16": (2, "fp16"), "c10::Float8_e4m3fn": (1, "fp8"),
    "c10::Float8_e5m2": (1, "fp8"), "c10::Float8_e4m3fnuz": (1, "fp8"),
    "c10::Float8_e5m2fnuz": (1, "fp8"), "long int": (8, "other"), "int": (4, "other"),
    "short int": (2, "other"), "signed char": (1, "int8"), "unsigned char": (1, "int8"),
    "bool": (1, "other"), "c10::complex<float>": (8, "other"),
    "c10::complex<double>": (16, "other"),
    "float16": (2, "fp16"), "bfloat16": (2, "fp16"), "int64": (8, "other"),
    "int32": (4, "other"), "int8": (1, "int8"), "uint8": (1, "int8"),
}

# Device name substring -> (label, {dtype: TFLOP/s}, TB/s): vendor datasheets, dense.
DEVICES = [
    ("H100 PCIe", {"fp64": 51.2, "fp32": 51.2, "fp16": 756.5, "fp8": 1513, "int8": 1513}, 2.0),
    ("H100 NVL", {"fp64": 60, "fp32": 60, "fp16": 835.5, "fp8": 1670.5, "int8": 1670.5}, 3.9),
    ("H100", {"fp64": 66.9, "fp32": 66.9, "fp16": 989.4, "fp8": 1978.9, "int8": 1978.9}, 3.35),
    ("H200", {"fp64": 66.9, "fp32": 66.9, "fp16": 989.4, "fp8": 1978.9, "int8": 1978.9}, 4.8),
    ("B200", {"fp64": 37, "fp32": 75, "fp16": 2250, "fp8": 4500, "int8": 4500}, 8.0),
    ("A100-SXM4-80GB", {"fp64": 19.5, "fp32": 19.5, "fp16": 312, "int8": 624}, 2.039),
    ("A100 80GB PCIe", {"fp64": 19.5, "fp32": 19.5, "fp16": 312, "int8": 624}, 1.935),
    ("A100", {"fp64": 19.5, "fp32": 19.5, "fp16": 312, "int8": 624}, 1.555),
    ("MI300X", {"fp64": 163.4, "fp32": 163.4, "fp16": 1307.4, "fp8": 2614.9,
                "int8": 2614.9}, 5.3),
    ("MI250X", {"fp64": 95.7, "fp32": 95.7, "fp16": 383, "int8": 383}, 3.2768),
]

UNARY_BINARY = ["add", "sub", "mul", "div", "relu", "gelu", "silu", "sigmoid", "tanh", "exp",
                "log", "sqrt", "rsqrt", "neg", "abs", "reciprocal", "clamp", "clamp_min",
                "clamp_max", "pow", "sin", "cos", "erf"]
ELEMENTWISE = ({"aten::" + n for n in UNARY_BINARY} | {"aten::" + n + "_" for n in UNARY_BINARY}
               | {"aten::maximum", "aten::minimum", "aten::threshold_backward",
                  "aten::gelu_backward", "aten::silu_backward", "aten::sigmoid_backward",
                  "aten::tanh_backward"})
MEMORY = {"aten::copy_", "aten::fill_", "aten::zero_"}
# op -> position of is_causal among its arguments (PyTorch's native_functions.yaml)
SDPA = {"aten::scaled_dot_product_attention": 5, "aten::_scaled_dot_product_flash_attention": 4,
        "aten::_scaled_dot_product_efficient_attention": 6,
        "aten::_scaled_dot_product_cudnn_attention": 6}
FLASH_CAUSAL = 8  # aten::_flash_attention_forward

# op -> (transposed or its position, positions of bias, stride, padding,
# dilation, output_padding, groups); None: not an argument of the op
_CONVOLUTION = (6, 2, 3, 4, 5, 7, 8)
_MIOPEN = (False, 2, 4, 3, 5, None, 6)
CONV = {
    "aten::conv1d": (False, 2, 3, 4, 5, None, 6),
    "aten::conv2d": (False, 2, 3, 4, 5, None, 6),
    "aten::conv3d": (False, 2, 3, 4, 5, None, 6),
    "aten::convolution": _CONVOLUTION, "aten::_convolution": _CONVOLUTION,
    "aten::convolution_overrideable": _CONVOLUTION,
    "aten::conv_transpose1d": (True, 2, 3, 4, 7, 5, 6),
    "aten::conv_transpose2d": (True, 2, 3, 4, 7, 5, 6),
    "aten::conv_transpose3d": (True, 2, 3, 4, 7, 5, 6),
    "aten::cudnn_convolution": (False, None, 3, 2, 4, None, 5),
    "aten::cudnn_convolution_transpose": (True, None, 4, 2, 5, 3, 6),
    "aten::miopen_convolution": _MIOPEN, "aten::miopen_depthwise_convolution": _MIOPEN,
    "aten::mkldnn_convolution": _MIOPEN,
    "aten::miopen_convolution_transpose": (True, 2, 5, 3, 6, 4, 7),
}


class T:
    """A tensor argument: its dims, element size and class."""

    def __init__(self, dims, size, cls):
        self.dims, self.size, self.cls = dims, size, cls

    @property
    def n(self):
        p = 1
        for d in self.dims:
            p *= d
        return p

    @property
    def b(self):
        return self.n * self.size


def tensors(args):
    """The op's arguments from its JSON args: a T, or None for a non-tensor."""
    out = []
    ort = args.get("input_type_shape")
    if isinstance(ort, list):
        pairs = [next(iter(e.items())) if isinstance(e, dict) and e else ("", None) for e in ort]
    else:
        dims = args.get("Input Dims")
        types = args.get("Input type")
        if not isinstance(dims, list):
            return []
        types = types if isinstance(types, list) else []
        pairs = [(types[i] if i < len(types) else "", d) for i, d in enumerate(dims)]
    for ty, d in pairs:
        ok = (isinstance(ty, str) and ty in TYPES and isinstance(d, list) and
              all(isinstance(x, int) and not isinstance(x, bool) and x >= 0 for x in d))
        out.append(T(list(d), *TYPES[ty]) if ok else None)
    return out


def concrete(args, nargs):
    """The call's Concrete Inputs (one string per argument), or None."""
    ci = args.get("Concrete Inputs")
    if (not isinstance(ci, list) or len(ci) != nargs or
            not all(isinstance(x, str) for x in ci)):
        return None
    return ci


def as_bool(text):
    return {"True": True, "False": False}.get(text)


def as_ints(text, n):
    """'[a, b]' (or '[a]' for every one of the n) as n ints, else None."""
    if not (text.startswith("[") and text.endswith("]")):
        return None
    try:
        v = [int(x) for x in text[1:-1].split(",")]
    except ValueError:
        return None
    if any(x < 0 for x in v):
        return None
    if len(v) == 1:
        v = v * n
    return v if len(v) == n else None


def conv_work(op, ts, ci):
    x, w = ts[0] if ts else None, ts[1] if len(ts) > 1 else None
    if ci is None or not x or not w or not 3 <= len(w.dims) <= 5:
        return None
    tpos, bpos, spos, ppos, dpos, opos, gpos = CONV[op]
    if max(p for p in CONV[op][1:] if p is not None) >= len(ci):
        return None
    sp = len(w.dims) - 2
    if len(x.dims) == sp + 2:
        n, cin, ins = x.dims[0], x.dims[1], x.dims[2:]
    elif len(x.dims) == sp + 1:  # unbatched
        n, cin, ins = 1, x.dims[0], x.dims[1:]
    else:
        return None
    transposed = tpos if isinstance(tpos, bool) else as_bool(ci[tpos])
    stride, pad, dil = (as_ints(ci[i], sp) for i in (spos, ppos, dpos))
    opad = as_ints(ci[opos], sp) if transposed and opos is not None else [0] * sp
    if not ci[gpos].isdigit():
        return None
    g = int(ci[gpos])
    if transposed is None or None in (stride, pad, dil, opad) or g == 0:
        return None
    if 0 in stride or 0 in dil or 0 in w.dims[2:]:
        return None
    bias = ts[bpos] if bpos is not None and bpos < len(ts) else None
    if transposed:
        if cin != w.dims[0] or w.dims[0] % g:
            return None
        cout = w.dims[1] * g
    else:
        if cin != w.dims[1] * g or w.dims[0] % g:
            return None
        cout = w.dims[0]
    if bias and bias.dims != [cout]:
        return None
    outs = []
    for i, k, s_, p, d, o in zip(ins, w.dims[2:], stride, pad, dil, opad):
        if transposed:
            outs.append((i - 1) * s_ - 2 * p + d * (k - 1) + o + 1)
        else:
            outs.append((i + 2 * p - d * (k - 1) - 1) // s_ + 1)
    if min(outs) < 1:
        return None
    prod = math.prod
    kn = prod(w.dims[2:])
    nout = n * cout * prod(outs)
    if transposed:
        flops = 2 * n * cin * prod(ins) * w.dims[1] * kn
    else:
        flops = 2 * nout * w.dims[1] * kn
    flops += nout if bias else 0
    return flops, x.b + w.b + (bias.b if bias else 0) + nout * x.size, x.cls


def gemm(a, b, p, m, n, k, bias=None):
    flops = 2 * p * m * n * k + (p * m * n if bias else 0)
    byt = a.b + b.b + p * m * n * a.size + (bias.b if bias else 0)
    return flops, byt, a.cls


def broadcast(shapes):
    out = []
    for s in shapes:
        for j, x in enumerate(reversed(s)):
            if j >= len(out):
                out.append(x)
            elif out[j] == 1:
                out[j] = x
            elif x != 1 and x != out[j]:
                return None
    return list(reversed(out))


def work(op, args):
    """(flops, bytes, dtype class) of one call, or None when unknown."""
    ts = tensors(args)

    def t(i):
        return ts[i] if i < len(ts) else None
    if op in ("aten::mm", "aten::addmm"):
        o = 1 if op == "aten::addmm" else 0
        a, b = t(o), t(o + 1)
        if not a or not b or len(a.dims) != 2 or len(b.dims) != 2 or a.dims[1] != b.dims[0]:
            return None
        if o and not t(0):
            return None
        return gemm(a, b, 1, a.dims[0], b.dims[1], a.dims[1], t(0) if o else None)
    if op in ("aten::bmm", "aten::baddbmm"):
        o = 1 if op == "aten::baddbmm" else 0
        a, b = t(o), t(o + 1)
        if (not a or not b or len(a.dims) != 3 or len(b.dims) != 3 or a.dims[0] != b.dims[0]
                or a.dims[2] != b.dims[1]):
            return None
        if o and not t(0):
            return None
        return gemm(a, b, a.dims[0], a.dims[1], b.dims[2], a.dims[2], t(0) if o else None)
    if op in ("aten::matmul", "MatMul"):
        a, b = t(0), t(1)
        if not a or not b or not a.dims or not b.dims:
            return None
        da = [1] + a.dims if len(a.dims) == 1 else a.dims
        db = b.dims + [1] if len(b.dims) == 1 else b.dims
        if da[-1] != db[-2]:
            return None
        batch = broadcast([da[:-2], db[:-2]])
        if batch is None:
            return None
        p = 1
        for x in batch:
            p *= x
        return gemm(a, b, p, da[-2], db[-1], da[-1])
    if op == "aten::linear":
        x, w = t(0), t(1)
        if not x or not w or not x.dims or len(w.dims) != 2 or x.dims[-1] != w.dims[1]:
            return None
        k = w.dims[1]
        return gemm(x, w, 1, x.n // k if k else 0, w.dims[0], k, t(2))
    if op in CONV:
        return conv_work(op, ts, concrete(args, len(ts)))
    if op in SDPA or op == "aten::_flash_attention_forward":
        q, k, v = t(0), t(1), t(2)
        if not q or not k or not v or any(len(z.dims) != 4 for z in (q, k, v)):
            return None
        ci, at = concrete(args, len(ts)), SDPA.get(op, FLASH_CAUSAL)
        causal = as_bool(ci[at]) if ci and at < len(ci) else None
        if causal is None:
            return None
        if op in SDPA:  # B, H, L, D
            (bb, h, lq, d), (_, _, lk, dk), (_, _, lv, dv) = q.dims, k.dims, v.dims
        else:  # B, L, H, D
            (bb, lq, h, d), (_, lk, _, dk), (_, lv, _, dv) = q.dims, k.dims, v.dims
        if dk != d or lv != lk or k.dims[0] != bb:
            return None
        flops = 2 * bb * h * lq * lk * d + 2 * bb * h * lq * lk * dv
        if causal:  # half the (query, key) pairs, as TraceLens; Lq = Lk only
            if lq != lk:
                return None
            flops //= 2
        return flops, q.b + k.b + v.b + bb * h * lq * dv * q.size, q.cls
    if op in MEMORY:  # nothing computed: the first tensor written, the others read
        if not t(0):
            return None
        return 0, sum(z.b for z in ts if z), ts[0].cls
    if op in ELEMENTWISE:
        live = [z for z in ts if z]
        if not live:
            return None
        out = broadcast([z.dims for z in live])
        if out is None:
            return None
        n = 1
        for x in out:
            n *= x
        return n, sum(z.b for z in live) + n * live[0].size, live[0].cls
    return None


def device_peaks(path):
    """(TFLOP/s by class, TB/s) of the trace's first deviceProperties name."""
    try:
        meta = json.loads(recompute._read_text(path))
    except ValueError:
        meta = None
    name = None
    if isinstance(meta, dict):
        props = meta.get("deviceProperties")
        if isinstance(props, list) and props and isinstance(props[0], dict):
            name = props[0].get("name")
    for match, tf, tbs in DEVICES:
        if isinstance(name, str) and match in name:
            return dict(tf), tbs
    return {}, 0


def raw_args(path):
    """Per event order (recompute's complete events), its args."""
    raw, _, _ = recompute.load_events(path)
    return [e.get("args") if isinstance(e.get("args"), dict) else {}
            for e, _, _ in recompute._complete_events(raw)]


def rows(path, peak_tflops=None, peak_tbs=None, runs=None, peaks=None):
    """{(op key, shape text): row} over the selected runs; a row: count,
    flops, bytes (None unknown), dtype classes, dev_total and total ns, and
    the formatted cells."""
    m = rm.Measures(path)
    sel = m.selection(runs)
    args = raw_args(path)
    tf, tbs = peaks if peaks is not None else ({}, 0)
    if peak_tflops:
        tf = {c: peak_tflops for c in ("fp64", "fp32", "fp16", "fp8", "int8", "other")}
    if peak_tbs:
        tbs = peak_tbs
    out = {}
    for o in m.ops:
        if o["run"] is None or o["run"] not in sel:
            continue
        r = out.setdefault((o["key"], o["shape"]), {
            "count": 0, "flops": 0, "bytes": 0, "cls": set(), "dev_total": 0, "total": 0})
        r["count"] += 1
        r["dev_total"] += o["dev_total"]
        r["total"] += o["dur"]
        w = work(o["key"], args[o["ev"].order])
        if w is None or r["flops"] is None:
            r["flops"] = r["bytes"] = None
        else:
            r["flops"] += w[0]
            r["bytes"] += w[1]
            r["cls"].add(w[2])
    has_device = bool(m.devs)
    for r in out.values():
        r["cells"] = cells(r, has_device, tf, tbs)
    return out


def cells(r, has_device, tf, tbs):
    """The formatted roofline cells of one row ('' unknown), by column name."""
    c = dict.fromkeys(("gflop", "mbyte", "flop_per_byte", "tflop_s", "tb_s", "peak_flops_pct",
                       "peak_bw_pct"), "")
    if r["flops"] is None:
        return c
    f, b, n = r["flops"], r["bytes"], r["count"]
    time = r["dev_total"] if has_device else r["total"]
    c["gflop"] = "%.6f" % (f / n / 1e9)
    c["mbyte"] = "%.6f" % (b / n / 1e6)
    if b:
        c["flop_per_byte"] = "%.3f" % (f / b)
    if time > 0:
        tfs, tbps = f / time / 1e3, b / time / 1e3
        c["tflop_s"] = "%.3f" % tfs
        c["tb_s"] = "%.4f" % tbps
        if len(r["cls"]) == 1 and tf.get(next(iter(r["cls"]))):
            c["peak_flops_pct"] = "%.2f" % (100 * tfs / tf[next(iter(r["cls"]))])
        if tbs:
            c["peak_bw_pct"] = "%.2f" % (100 * tbps / tbs)
    return c


def main(argv):
    path = argv[1]
    ptf = float(argv[2]) if len(argv) > 2 else None
    ptb = float(argv[3]) if len(argv) > 3 else None
    print("name,input_type_shape,count,gflop,mbyte,flop_per_byte,tflop_s,tb_s,"
          "peak_flops_pct,peak_bw_pct")
    for (k, s), r in sorted(rows(path, ptf, ptb, peaks=device_peaks(path)).items()):
        c = r["cells"]
        print('%s,"%s",%d,%s' % (k, s, r["count"], ",".join(c[x] for x in (
            "gflop", "mbyte", "flop_per_byte", "tflop_s", "tb_s", "peak_flops_pct",
            "peak_bw_pct"))))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
