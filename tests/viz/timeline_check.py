#!/usr/bin/env python3
"""timeline_check.py - checks a papviz timeline file from outside.

    python3 tests/viz/timeline_check.py [--summary] FILE.json

Written apart from the writer (viz/viz_timeline.c, analyze/an_timeline.c),
from the contract in docs/timeline.md and the trace-event format that
Perfetto and Chrome's trace viewer read.  It checks:

  - the JSON object format: traceEvents (a list), displayTimeUnit "ns", and
    the metadata object with the keys the contract lists;
  - every event has the fields its phase needs (M, X, s, f; B and E too if
    any, each B with its E on the same track), times in microseconds with
    at most three decimals (whole nanoseconds);
  - every process and track an event uses is named (process_name,
    thread_name), and sort indexes are integers;
  - on each track, timestamps never go back in file order, and slices nest
    or are disjoint (a slice that starts inside another ends inside it);
  - each flow id has exactly one start (s) and one finish (f, "bp": "e"),
    with the same cat and name, each inside a slice of its own track (ends
    included);
  - a round's track is a lane of an algorithm location's track (tid = 1000
    + 100 x its tid + lane, named after it), a nonblocking call's likewise;
  - the metadata's counts are the slices and flows of each kind in the file.

--summary prints, on success, a JSON object for the shell tests to compare
with otf2-print: slices and flows per cat, wrapper slices per track
("pid:tid"), and the track names.  Exit status 0, or 1 with one line per
problem (at most 20), "FILE: error: ...".
"""
import bisect
import json
import sys
from collections import defaultdict

META_KEYS = ("paptree", "kind", "database", "trace", "pathmap", "window", "headline",
             "counts")
COUNT_KEYS = ("wrapper", "round", "mpi", "proxy", "msg")
SLICE_CATS = ("wrapper", "round", "mpi")
FLOW_CATS = ("proxy", "msg")


class Problems:
    def __init__(self, path):
        self.path = path
        self.lines = []

    def add(self, msg):
        if len(self.lines) < 20:
            self.lines.append("%s: error: %s" % (self.path, msg))
        elif len(self.lines) == 20:
            self.lines.append("%s: error: (more problems not shown)" % self.path)

    def __bool__(self):
        return bool(self.lines)


def is_num(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def to_ns(us):
    """Microseconds with three decimals -> integer ns, or None if finer."""
    ns = round(us * 1000)
    return ns if abs(us * 1000 - ns) < 1e-3 else None


def check(path, doc, probs):
    if not isinstance(doc, dict):
        probs.add("not a JSON object (the JSON Object Format has traceEvents in one)")
        return None
    events = doc.get("traceEvents")
    if not isinstance(events, list):
        probs.add("no traceEvents list")
        return None
    if doc.get("displayTimeUnit") != "ns":
        probs.add("displayTimeUnit is %r, expected \"ns\"" % doc.get("displayTimeUnit"))
    meta = doc.get("metadata")
    if not isinstance(meta, dict):
        probs.add("no metadata object")
        meta = {}
    for k in META_KEYS:
        if k not in meta:
            probs.add("metadata has no %r" % k)
    if meta.get("kind") not in ("tree", "mpi"):
        probs.add("metadata kind is %r, expected \"tree\" or \"mpi\"" % meta.get("kind"))
    window = meta.get("window")
    if not isinstance(window, dict) or set(window) != {"ops", "from_ns", "to_ns"}:
        probs.add("metadata window is not {ops, from_ns, to_ns}: %r" % (window,))

    proc_names, track_names, sorts = {}, {}, []
    tracks = defaultdict(list)          # (pid, tid) -> events in file order
    flows = defaultdict(list)           # id -> [event]
    open_b = defaultdict(list)          # (pid, tid) -> stack of B events
    for i, e in enumerate(events):
        where = "event %d" % i
        if not isinstance(e, dict):
            probs.add("%s is not an object" % where)
            continue
        ph = e.get("ph")
        if not isinstance(e.get("pid"), int):
            probs.add("%s (ph %r) has no integer pid" % (where, ph))
            continue
        if ph == "M":
            name, args = e.get("name"), e.get("args")
            if not isinstance(args, dict):
                probs.add("%s: metadata event %r without args" % (where, name))
            elif name == "process_name":
                if not isinstance(args.get("name"), str):
                    probs.add("%s: process_name without a name" % where)
                proc_names[e["pid"]] = args.get("name")
            elif name == "thread_name":
                if not isinstance(e.get("tid"), int) or not isinstance(args.get("name"), str):
                    probs.add("%s: thread_name without an integer tid and a name" % where)
                else:
                    track_names[(e["pid"], e["tid"])] = args["name"]
            elif name in ("process_sort_index", "thread_sort_index"):
                if not isinstance(args.get("sort_index"), int):
                    probs.add("%s: %s without an integer sort_index" % (where, name))
                sorts.append(e)
            else:
                probs.add("%s: unknown metadata event %r" % (where, name))
            continue
        if not isinstance(e.get("tid"), int):
            probs.add("%s (ph %r) has no integer tid" % (where, ph))
            continue
        if not is_num(e.get("ts")) or to_ns(e["ts"]) is None:
            probs.add("%s: ts %r is not microseconds with at most 3 decimals" % (where, e.get("ts")))
            continue
        for k in ("name", "cat"):
            if not isinstance(e.get(k), str) or not e[k]:
                probs.add("%s: no %s" % (where, k))
        key = (e["pid"], e["tid"])
        if ph == "X":
            if not is_num(e.get("dur")) or e["dur"] < 0 or to_ns(e["dur"]) is None:
                probs.add("%s: dur %r is not >= 0 in microseconds with 3 decimals" %
                          (where, e.get("dur")))
                continue
        elif ph in ("s", "f"):
            if "id" not in e:
                probs.add("%s: a flow event without an id" % where)
                continue
            if ph == "f" and e.get("bp") != "e":
                probs.add("%s: a flow finish without \"bp\": \"e\"" % where)
            flows[e["id"]].append(e)
        elif ph == "B":
            open_b[key].append(e)
        elif ph == "E":
            if not open_b[key]:
                probs.add("%s: an E without its B on track %s" % (where, key))
            else:
                open_b[key].pop()
        else:
            probs.add("%s: phase %r, expected M, X, s, f (or B/E)" % (where, ph))
            continue
        tracks[key].append(e)
    for key, stack in open_b.items():
        if stack:
            probs.add("track %s: %d B without an E" % (key, len(stack)))

    # names
    for pid in sorted({k[0] for k in tracks}):
        if pid not in proc_names:
            probs.add("process %d has events but no process_name" % pid)
    for key in sorted(tracks):
        if key not in track_names:
            probs.add("track %s has events but no thread_name" % (key,))

    # per track: time order, nesting; slice intervals for the flows
    spans = {}
    for key, evs in tracks.items():
        last = None
        stack = []                      # ends of open slices, ns
        starts, ends = [], []
        for e in evs:
            t = to_ns(e["ts"])
            if last is not None and t < last:
                probs.add("track %s: ts %s after %s: time goes back" %
                          (key, e["ts"], last / 1000))
            last = t
            if e["ph"] != "X":
                continue
            end = t + to_ns(e["dur"])
            while stack and stack[-1] <= t:
                stack.pop()
            if stack and end > stack[-1]:
                probs.add("track %s: slice %r at %s ends at %s, after the slice it starts "
                          "in (%s): a partial overlap" %
                          (key, e["name"], e["ts"], end / 1000, stack[-1] / 1000))
            stack.append(end)
            starts.append(t)
            ends.append(end)
        # the largest end among the slices starting at or before each start
        pmax, m = [], None
        for x in ends:
            m = x if m is None or x > m else m
            pmax.append(m)
        spans[key] = (starts, pmax)

    def inside(key, t):
        starts, pmax = spans.get(key, ([], []))
        i = bisect.bisect_right(starts, t) - 1
        return i >= 0 and pmax[i] >= t

    nflows = defaultdict(int)
    for fid, evs in flows.items():
        s = [e for e in evs if e["ph"] == "s"]
        f = [e for e in evs if e["ph"] == "f"]
        if len(s) != 1 or len(f) != 1:
            probs.add("flow id %r has %d start(s) and %d finish(es), expected one of each" %
                      (fid, len(s), len(f)))
            continue
        if (s[0]["cat"], s[0]["name"]) != (f[0]["cat"], f[0]["name"]):
            probs.add("flow id %r: start %s/%s, finish %s/%s" %
                      (fid, s[0]["cat"], s[0]["name"], f[0]["cat"], f[0]["name"]))
        for e in (s[0], f[0]):
            if not inside((e["pid"], e["tid"]), to_ns(e["ts"])):
                probs.add("flow id %r: its %s at %s on track %s is inside no slice of that "
                          "track" % (fid, e["ph"], e["ts"], (e["pid"], e["tid"])))
        nflows[s[0]["cat"]] += 1

    # lanes: a round's (a nonblocking call's) track is a lane of a location's
    nslices = defaultdict(int)
    per_track = defaultdict(int)
    for key, evs in tracks.items():
        for e in evs:
            if e["ph"] != "X":
                continue
            nslices[e["cat"]] += 1
            if e["cat"] == "wrapper":
                per_track["%d:%d" % key] += 1
            lane_cat = e["cat"] == "round" or (e["cat"] == "mpi" and key[1] >= 1000)
            if lane_cat:
                pid, tid = key
                base, lane = divmod(tid - 1000, 100)
                parent = track_names.get((pid, base))
                name = track_names.get(key, "")
                if tid < 1000 or base < 1 or parent is None or not name.startswith(parent + ": "):
                    probs.add("track %s (%r) holds %s slices but is no lane of a location's "
                              "track (tid = 1000 + 100 x tid + lane)" % (key, name, e["cat"]))
                    break

    counts = meta.get("counts")
    if not isinstance(counts, dict) or set(counts) != set(COUNT_KEYS):
        probs.add("metadata counts is not {%s}: %r" % (", ".join(COUNT_KEYS), counts))
    else:
        for k in SLICE_CATS:
            if counts[k] != nslices.get(k, 0):
                probs.add("metadata counts %s = %r, the file has %d such slices" %
                          (k, counts[k], nslices.get(k, 0)))
        for k in FLOW_CATS:
            if counts[k] != nflows.get(k, 0):
                probs.add("metadata counts %s = %r, the file has %d such flows" %
                          (k, counts[k], nflows.get(k, 0)))
    other = set(nslices) - set(SLICE_CATS)
    if other:
        probs.add("slices of unknown cat: %s" % ", ".join(sorted(other)))
    other = set(nflows) - set(FLOW_CATS)
    if other:
        probs.add("flows of unknown cat: %s" % ", ".join(sorted(other)))
    return {
        "slices": {k: nslices.get(k, 0) for k in SLICE_CATS},
        "flows": {k: nflows.get(k, 0) for k in FLOW_CATS},
        "wrapper_per_track": dict(sorted(per_track.items())),
        "track_names": {"%d:%d" % k: v for k, v in sorted(track_names.items())},
    }


def main(argv):
    summary = False
    args = argv[1:]
    if args and args[0] == "--summary":
        summary, args = True, args[1:]
    if len(args) != 1 or args[0] in ("-h", "--help"):
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr if args else sys.stdout)
        return 0 if args and args[0] in ("-h", "--help") else 2
    path = args[0]
    probs = Problems(path)
    try:
        with open(path, encoding="utf-8") as fp:
            doc = json.load(fp)
    except (OSError, ValueError) as exc:
        print("%s: error: cannot read it as JSON: %s" % (path, exc), file=sys.stderr)
        return 1
    result = check(path, doc, probs)
    if probs:
        print("\n".join(probs.lines), file=sys.stderr)
        return 1
    if summary:
        json.dump(result, sys.stdout, indent=1, sort_keys=True)
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
