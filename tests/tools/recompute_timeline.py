#!/usr/bin/env python3
"""Independent recomputation of `opscope timeline --format csv` (the lanes table).

Written from the contract in include/opscope/analysis/timeline.h, the
TIMELINE part of man/opscope.1 and the trace formats, never from opscope's C
code. Standard library only; reuses recompute.py's event reading.

    recompute_timeline.py --from US --to US TRACE

prints the CSV rows (without header) of `opscope timeline --format csv --from
US --to US TRACE`, sorted; compare them as a sorted list.

Rules implemented here:
- drawn events: complete events (X, or B/E matched per thread) but
  python_function frames; a thread is (pid, tid) as text, a device thread one
  holding an event of a device category (kernel, gpu_memcpy, gpu_memset and
  ORT's Kernel, Memcpy, Memset);
- model order: ts ascending, dur descending, then file order;
- lanes: in model order each event goes to its thread's first depth (from
  0) whose last event ends no later than the event starts; at most 64;
- groups: the threads of one pid and device-ness; each has a union lane: the
  windows of its events merged (touching ones too);
- the origin: the first start of any event but metadata; the window [origin
  + FROM µs, origin + TO µs);
- per lane: events = its intervals starting in the window plus one started
  before the window and ending after the window's start; busy = the sum of
  its intervals' overlap with the window (they never overlap); busy_pct =
  100 busy / |window|.
All times are integer ns, printed as µs with 3 decimals; pct with 2.
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import recompute  # noqa: E402

MAX_DEPTH = 64


def lanes(path):
    """{(pid, tid or None, depth, device): [(start, end)]}, and the origin."""
    raw, _, _ = recompute.load_events(path)
    origin, _ = recompute._span(raw)
    evs = []
    device_threads = set()
    for order, (e, ts, dur) in enumerate(recompute._complete_events(raw)):
        thread = (str(e.get("pid")), str(e.get("tid")))
        if e.get("cat") in recompute.DEVICE_CATS:
            device_threads.add(thread)
        if e.get("cat") == "python_function":
            continue
        evs.append((ts, -dur, order, thread, dur))
    evs.sort()
    depth_ends = {}
    out = {}
    unions = {}
    for ts, _, _, thread, dur in evs:
        ends = depth_ends.setdefault(thread, [])
        d = next((i for i, end in enumerate(ends) if end <= ts), len(ends))
        if d == MAX_DEPTH:
            continue
        if d == len(ends):
            ends.append(0)
        ends[d] = ts + dur
        device = thread in device_threads
        out.setdefault((thread[0], thread[1], d, device), []).append((ts, ts + dur))
        u = unions.setdefault((thread[0], None, 0, device), [])
        if u and ts <= u[-1][1]:
            u[-1] = (u[-1][0], max(u[-1][1], ts + dur))
        else:
            u.append((ts, ts + dur))
    out.update(unions)
    return out, origin or 0


def rows(path, from_us, to_us):
    all_lanes, origin = lanes(path)
    a, b = origin + round(from_us * 1000), origin + round(to_us * 1000)
    out = []
    for (pid, tid, depth, _), ivs in all_lanes.items():
        n = sum(1 for s, e in ivs if a <= s < b or (s < a < e))
        busy = sum(max(0, min(e, b) - max(s, a)) for s, e in ivs)
        out.append("%s,%s,%s,%d,%s,%.2f" % (
            pid, "all" if tid is None else tid, "" if tid is None else depth, n,
            recompute.us_exact(busy), 100.0 * busy / (b - a)))
    return sorted(out)


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--from", dest="from_us", type=float, required=True)
    ap.add_argument("--to", dest="to_us", type=float, required=True)
    ap.add_argument("trace")
    a = ap.parse_args(argv)
    for r in rows(a.trace, a.from_us, a.to_us):
        print(r)


if __name__ == "__main__":
    main()
