#!/usr/bin/env python3
"""gen-pathmaps.py - the sample pathmaps of pathmaps/, built independently of pathgen.

    python3 tests/oracles/gen-pathmaps.py DIR     write DIR/{paper,local}/*.pathmap,
                                                  DIR/{paper,local}/algo/*.pathmap,
                                                  DIR/demo.pathmap, DIR/algo-demo.pathmap
    python3 tests/oracles/gen-pathmaps.py --list  print file, hosts x threads, depth

The samples themselves are written by pathgen (pathmaps/MANIFEST, `make
pathmaps`).  This script is the oracle they are checked against: it builds
each tree from its shape and placement rules with code of its own, and
tests/pathgen/regen.sh requires pathgen's trees to be the same, names and
text included (below the header comment; the wrappers' trailing comments
left out).

The configurations are those of Bongo, Anshus, Bjorndalen, "Evaluating the
performance of the allreduce collective operation on clusters" (PATHS /
EventSpace; Bongo 2004 in docs/references.md), at the paper's
sizes (pathmaps/paper/) and scaled to one machine (pathmaps/local/).  The
format is docs/pathmap.md.  Python 3 standard library only.

Naming of wrappers (so that a trace can be read without the pathmap):
    root                  the core (PastSet element), on the cluster-root host
    cr0, cr1.0, cr2.3     cluster-root subtree: level 0 is next to the core,
                          higher levels are nearer the threads ("toplevel")
    h3, h3.l1.0, h3.l2.1  host subtree of host 3: h3 is its bottom wrapper,
                          h3.lN.i the i-th gred of level N
    p3                    proxy on host 3 carrying host 3's subtree
    p3.0, p3.1            several proxies of host 3 (the extra-links trees)
    p3.cr2.1              proxy on host 3 carrying the cluster-root wrapper
                          cr2.1 that was moved to host 3 (the split trees)
    mc, pgw, pb           multi-cluster root, gateway proxy, proxy to gateway
    across                the algorithm node between the hosts (algo/ files)
"""

import os
import sys
from collections import deque


class Thread:
    """A computational thread used as a leaf of a subtree."""

    def __init__(self, tid, host):
        self.tid = tid
        self.host = host


class Node:
    def __init__(self, kind, name, host, comment="", params=""):
        self.kind = kind
        self.name = name
        self.host = host        # None for an algorithm node (it spans hosts)
        self.parent = None
        self.comment = comment
        self.params = params    # an algorithm node's "run=... ..."
        self.children = []      # Node or Thread, in connection order


class Pathmap:
    def __init__(self):
        self.hosts = []         # host names, rank order
        self.labels = {}        # host name -> label used in wrapper names
        self.nodes = {}         # name -> Node, creation order
        self.core = None        # the root: a core or an algorithm node
        self.tops = set()       # names of host-subtree tops (proxy "p<label>")
        self.dtype = "int32"

    def host(self, name, label=None):
        self.hosts.append(name)
        self.labels[name] = name if label is None else label
        return name

    def label(self, host):
        return self.labels[host]

    def add(self, kind, name, host, comment="", params=""):
        if name in self.nodes:
            raise ValueError("duplicate node " + name)
        node = Node(kind, name, host, comment, params)
        self.nodes[name] = node
        if kind in ("core", "algo"):
            self.core = node
        return node

    def host_of(self, ref):
        return ref.host if isinstance(ref, Thread) else self.nodes[ref].host

    def connect(self, child, parent, pname=None):
        """Makes `parent` (a node name) the parent of `child` (a node name or
        a Thread), through a proxy on the child's host if they are on
        different hosts.  pname(child) names that proxy."""
        chost = self.host_of(child)
        phost = self.nodes[parent].host
        # An algorithm node spans its contributors' hosts: no proxy into it.
        if self.nodes[parent].kind != "algo" and chost != phost and not (isinstance(child, str)
                                   and self.nodes[child].kind == "proxy"):
            name = (pname or self.default_pname)(child)
            self.add("proxy", name, chost)
            self._link(child, name)
            child = name
        self._link(child, parent)

    def _link(self, child, parent):
        if isinstance(child, str):
            assert self.nodes[child].parent is None, child
            self.nodes[child].parent = parent
        self.nodes[parent].children.append(child)

    def default_pname(self, child):
        if isinstance(child, Thread):
            return "p" + self.label(child.host)
        lab = self.label(self.nodes[child].host)
        if child in self.tops:
            return "p" + lab
        return "p%s.%s" % (lab, child)

    # -- output --------------------------------------------------------

    def order(self):
        """Nodes in depth-first pre-order from the core: every parent is
        declared before its children and each subtree is contiguous."""
        out = []
        stack = [self.core.name]
        while stack:
            n = self.nodes[stack.pop()]
            out.append(n)
            kids = [c for c in n.children if isinstance(c, str)]
            stack.extend(reversed(kids))
        assert len(out) == len(self.nodes), "nodes not connected to the core"
        return out

    def threads(self):
        """(first, last, host, enter) ranges, by thread id."""
        entries = []
        for n in self.nodes.values():
            for c in n.children:
                if isinstance(c, Thread):
                    entries.append((c.tid, c.host, n.name))
        entries.sort()
        ranges = []
        for tid, host, enter in entries:
            if ranges and ranges[-1][1] == tid - 1 and ranges[-1][2:] == (host, enter):
                ranges[-1] = (ranges[-1][0], tid, host, enter)
            else:
                ranges.append((tid, tid, host, enter))
        return ranges

    def depth(self):
        """Wrappers on the longest path from an entry wrapper to the core."""
        best = 0
        for n in self.nodes.values():
            if any(isinstance(c, Thread) for c in n.children):
                d, m = 1, n
                while m.parent is not None:
                    d, m = d + 1, self.nodes[m.parent]
                best = max(best, d)
        return best

    def nthreads(self):
        return sum(b - a + 1 for a, b, _, _ in self.threads())

    def render(self, header):
        lines = [("# " + l).rstrip() for l in header]
        lines.append("#")
        lines.append("# Written by tests/oracles/gen-pathmaps.py, the oracle of the samples")
        lines.append("# in pathmaps/ (which pathgen writes: pathmaps/MANIFEST).")
        lines.append("")
        width = max(len(h) for h in self.hosts)
        for i, h in enumerate(self.hosts):
            lines.append("host %-*s  # rank %d" % (width, h, i))
        lines.append("")
        lines.append("tree sum type=%s op=sum" % self.dtype)
        nodes = self.order()
        nw = max(len(n.name) for n in nodes)
        hw = max([len(n.host) for n in nodes if n.host is not None] + [0])
        rows = []
        for n in nodes:
            if n.kind == "algo":
                words = "%-5s %-*s %s" % (n.kind, nw, n.name, n.params)
            else:
                words = "%-5s %-*s host=%-*s" % (n.kind, nw, n.name, hw, n.host)
            if n.parent is not None:
                words += " parent=%s" % n.parent
            comment = n.comment
            if n.kind == "proxy" and not comment:
                comment = "%s -> %s" % (n.host, self.nodes[n.parent].host)
            if n.kind == "gred" and not comment:
                comment = "fan-in %d" % len(n.children)
            rows.append((n, words.rstrip(), comment))
        cw = max(len(w) for _, w, _ in rows)
        prev = None
        for n, words, comment in rows:
            if prev is not None and n.host != prev.host:
                lines.append("")
            if comment:
                words = "%-*s  # %s" % (cw, words, comment)
            lines.append(words)
            prev = n
        lines.append("")
        for a, b, host, enter in self.threads():
            rng = str(a) if a == b else "%d-%d" % (a, b)
            lines.append("threads %s host=%s enter=%s" % (rng, host, enter))
        return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------
# Shapes: a subtree is first built as a nested list (a list is a gred, its
# items its contributors; a non-list is a leaf), then realized into nodes.

def chunks(items, k):
    return [items[i:i + k] for i in range(0, len(items), k)]


def shape_nary(items):
    """One gred with every contributor (a lone leaf needs no gred)."""
    return items[0] if len(items) == 1 else list(items)


def shape_kary(items, k):
    """Bottom-up: greds of k consecutive contributors, then greds of k of
    those, ...  quad of 8 = 2 greds of 4 then 1 of 2; quad of 30 = 8 greds
    (7 of 4, 1 of 2), then 2, then 1.  A group of one is not wrapped."""
    cur = list(items)
    while len(cur) > 1:
        cur = [c if len(c) > 1 else c[0] for c in chunks(cur, k)]
    return cur[0]


def shape_binary(items):
    """Top-down halving: every gred has two contributors; depth ceil(log2 n).
    For a power of two this is the same as pairing bottom-up."""
    if len(items) == 1:
        return items[0]
    if len(items) == 2:
        return list(items)
    half = (len(items) + 1) // 2
    return [shape_binary(items[:half]), shape_binary(items[half:])]


SHAPES = {
    "nary": shape_nary,
    "quad": lambda items: shape_kary(items, 4),
    "binary": shape_binary,
}


def toplevel_groups(nested):
    """Groups whose contributors are all leaves, left to right."""
    out = []

    def walk(g):
        if not isinstance(g, list):
            return
        if all(not isinstance(c, list) for c in g):
            out.append(g)
        for c in g:
            walk(c)
    walk(nested)
    return out


def leaves(nested):
    if not isinstance(nested, list):
        return [nested]
    return [x for c in nested for x in leaves(c)]


def realize(pm, nested, host, namefn, place=None, pname=None):
    """Creates the greds of `nested` breadth-first, so level N gred i is
    namefn(N, i) (namefn(0, None) for the bottom one).  place maps id(group)
    to a host for that group and the groups above it (default: `host`).
    Returns the bottom node name, or the leaf itself if there is no gred."""
    if not isinstance(nested, list):
        return nested
    place = place or {}
    counters = {}

    def make(g, lvl, phost):
        if lvl == 0:
            name = namefn(0, None)
        else:
            idx = counters.get(lvl, 0)
            counters[lvl] = idx + 1
            name = namefn(lvl, idx)
        h = place.get(id(g), phost)
        pm.add("gred", name, h)
        return name, h

    # Breadth-first, each gred's contributors connected in order, so the
    # greds of a level are numbered left to right.
    top, h = make(nested, 0, host)
    queue = deque([(nested, 0, top, h)])
    while queue:
        g, lvl, name, h = queue.popleft()
        for c in g:
            if isinstance(c, list):
                cname, ch = make(c, lvl + 1, h)
                pm.connect(cname, name, pname)
                queue.append((c, lvl + 1, cname, ch))
            else:
                pm.connect(c, name, pname)
    return top


def host_names(lab):
    return lambda lvl, idx: "h%s" % lab if lvl == 0 else "h%s.l%d.%d" % (lab, lvl, idx)


def cr_names(prefix=""):
    return lambda lvl, idx: prefix + ("cr0" if lvl == 0 else "cr%d.%d" % (lvl, idx))


# ---------------------------------------------------------------------------
# A single cluster: host subtrees + cluster-root subtree + core.

def host_subtree(pm, host, tids, shape, extralinks=False, root_host=None):
    """Builds host `host`'s subtree over threads `tids`; returns its top (a
    node name, or a Thread when one thread needs no gred).  With extralinks
    the bottom gred is placed on root_host and each of its contributors
    reaches it through its own proxy p<label>.<k> (Figure 11)."""
    lab = pm.label(host)
    nested = SHAPES[shape]([Thread(t, host) for t in tids])
    place, pname = {}, None
    if extralinks and isinstance(nested, list) and host != root_host:
        place[id(nested)] = root_host
        for c in nested:
            if isinstance(c, list):
                place[id(c)] = host
        first = min(tids)

        def pname(child):
            if isinstance(child, Thread):          # n-ary: one link per thread
                return "p%s.%d" % (lab, child.tid - first)
            return "p%s.%s" % (lab, child.rsplit(".", 1)[1])   # hN.l1.k -> pN.k
    top = realize(pm, nested, host, host_names(lab), place, pname)
    if isinstance(top, str):
        pm.tops.add(top)
    return top


def cluster_root(pm, tops, root_host, shape, split=None, prefix=""):
    """Builds the cluster-root subtree over the host-subtree tops (the root
    host's own top contributes directly, the others through proxies p<i>).
    split(nested, leaf_host) -> {id(group): host} moves groups to other
    hosts.  Returns the bottom wrapper (or the lone top)."""
    if shape == "binarynow":
        # Groups of four hosts (the quad tree's eight toplevel wrappers), each
        # reduced by a binary subtree, then a binary tree over the groups.
        groups = [shape_binary(c) for c in chunks(tops, 4)]
        nested = shape_binary(groups)
    else:
        nested = SHAPES[shape](tops)
    place = split(nested, pm.host_of) if split else None
    return realize(pm, nested, root_host, cr_names(prefix), place)


def single_cluster(H, T, host_shape, cr_shape, split=None, extralinks=False,
                   host_shape_of=None):
    pm = Pathmap()
    hosts = [pm.host("host%d" % i, str(i)) for i in range(H)]
    root_host = hosts[0]
    pm.add("core", "root", root_host, "the core: stores the sum")
    tops = []
    for i, h in enumerate(hosts):
        shape = host_shape_of(i) if host_shape_of else host_shape
        tops.append(host_subtree(pm, h, range(i * T, i * T + T), shape,
                                 extralinks, root_host))
    bottom = cluster_root(pm, tops, root_host, cr_shape, split)
    pm.connect(bottom, "root")
    return pm


# Split placements (which toplevel cluster-root wrappers move where).

def split_to_last_contributor(nested, host_of):
    """split4W (Fig 15): every toplevel wrapper except the one holding the
    cluster-root host's subtree moves to the host of its last contributor
    (cr2.1 of hosts 2,3 -> host 3), so thread 9 (host 2) has two proxies and
    thread 13 (host 3) one, as in Figures 17 and 18."""
    place = {}
    for g in toplevel_groups(nested)[1:]:
        place[id(g)] = host_of(g[-1])
    return place


def split_to_first_contributor(nested, host_of):
    """NOW split: seven of the eight toplevel wrappers (groups of four hosts)
    move to the first host of their group (cr2.1 of hosts 4-7 -> host 4)."""
    place = {}
    for g in toplevel_groups(nested)[1:]:
        place[id(g)] = host_of(leaves(g)[0])
    return place


def split_groups_of_four(nested, host_of):
    """binary NOW: the subtree of each group of four hosts (except the first)
    moves to the group's first host; then threads 0 / 4, 56 / 11, 36 have
    zero / one / two proxies on their paths as in Table 4."""
    place = {}
    # nested = shape_binary(groups); the groups are the subtrees with 2..4
    # leaves whose first leaf is a multiple of 4 hosts.
    def walk(g):
        if not isinstance(g, list):
            return
        lv = leaves(g)
        hosts = [host_of(x) for x in lv]
        idx = [int(h[4:]) for h in hosts]
        if len(lv) <= 4 and idx[0] % 4 == 0 and idx[-1] < idx[0] + 4:
            if idx[0] != 0:
                place[id(g)] = hosts[0]
            return
        for c in g:
            walk(c)
    walk(nested)
    return place


# ---------------------------------------------------------------------------
# Multi-cluster through a gateway (section 7.2).

def gateway_local():
    pm = Pathmap()
    a = pm.host("a")
    gw = pm.host("gw")
    b = pm.host("b")
    pm.add("core", "root", a, "the core, on cluster a's root host")
    pm.add("gred", "mc", a, "multi-cluster root: one contribution per cluster")
    pm.connect("mc", "root")
    ha = host_subtree(pm, a, [0, 1], "nary")
    pm.connect(ha, "mc")
    pm.add("proxy", "pgw", gw, "gw -> a: the gateway relays b's sum to a")
    pm.connect("pgw", "mc")
    hb = host_subtree(pm, b, [2, 3], "nary")
    pm.add("proxy", "pb", b, "b -> gw: b reaches cluster a only through gw")
    pm.connect(hb, "pb")
    pm.connect("pb", "pgw")
    return pm


def multicluster_paper():
    """split4W (hosts a0-a7, threads 0-31) + gw + binary8W (hosts b0-b3,
    threads 32-63); the root wrapper mc is on the 4W cluster-root host."""
    pm = Pathmap()
    A = [pm.host("a%d" % i) for i in range(8)]
    gw = pm.host("gw")
    B = [pm.host("b%d" % i) for i in range(4)]
    pm.add("core", "root", A[0], "the core, on the 4W cluster-root host")
    pm.add("gred", "mc", A[0], "multi-cluster root: a.cr0 and the 8W cluster via gw")
    pm.connect("mc", "root")
    tops = [host_subtree(pm, h, range(4 * i, 4 * i + 4), "binary") for i, h in enumerate(A)]
    a_cr = cluster_root(pm, tops, A[0], "binary", split_to_last_contributor, "a.")
    pm.connect(a_cr, "mc")
    pm.add("proxy", "pgw", gw, "gw -> a0: the gateway relays the 8W sum")
    pm.connect("pgw", "mc")
    tops = [host_subtree(pm, h, range(32 + 8 * i, 40 + 8 * i), "binary") for i, h in enumerate(B)]
    b_cr = cluster_root(pm, tops, B[0], "binary", None, "b.")
    pm.add("proxy", "pb0", B[0], "b0 -> gw: the 8W cluster reaches a0 only through gw")
    pm.connect(b_cr, "pb0")
    pm.connect("pb0", "pgw")
    return pm


# ---------------------------------------------------------------------------
# Algorithm nodes (docs/pathmap.md, "Algorithm nodes"): each host's subtree
# (a gred of its threads, or the lone thread itself) enters one algo node
# "across" that runs an algorithm between the hosts.

def algo_cluster(H, T, params, host_shape="nary", dtype="int32"):
    pm = Pathmap()
    pm.dtype = dtype
    hosts = [pm.host("host%d" % i, str(i)) for i in range(H)]
    pm.add("algo", "across", None,
           "the root: spans host0-host%d, rank i = host i" % (H - 1), params)
    for i, h in enumerate(hosts):
        pm.connect(host_subtree(pm, h, range(i * T, i * T + T), host_shape), "across")
    return pm


def ac(*a, **k):
    return lambda: algo_cluster(*a, **k)


def algo_local(algo, H, T, params, what, extra=()):
    """One file of pathmaps/local/algo/: H hosts x T threads, a gred per
    host when T > 1, `params` on the algo line."""
    name = "%s-%dx%d" % (algo, H, T)
    entry = ("%s - %s" % (name, what),
             "%d hosts x %d thread%s = %d threads; %s." % (
                 H, T, "s" if T > 1 else "", H * T,
                 "a gred per host enters the algorithm node" if T > 1
                 else "each thread enters the algorithm node directly"))
    path = ("  threads -> hN -> across" if T > 1 else "  thread N -> across")
    header = list(entry) + list(extra) + ["", path + "   (algo line: " + params + ")"]
    return ("local/algo/%s.pathmap" % name, header, ac(H, T, params))


ALGO_LOCAL = [
    algo_local("ring", 4, 1, "run=ring",
               "ring allreduce (reduce-scatter, then allgather) between the hosts"),
    algo_local("ring-seg", 2, 2, "run=ring-seg segsize=16",
               "segmented ring, 16-element segments (ring-seg has no default size)"),
    algo_local("rd", 2, 1, "run=rd", "recursive doubling between two single-thread hosts"),
    algo_local("rd", 4, 2, "run=rd",
               "recursive doubling across four hosts, a gred per host",
               ["The shape of local/nary-4x2 with the cluster root replaced by rd;",
                "compare with gsum --native at 8 ranks (docs/benchmarks.md)."]),
    algo_local("rabenseifner", 4, 2, "run=rabenseifner",
               "Rabenseifner's allreduce (recursive halving, then doubling)",
               ["Rabenseifner needs at least 4 elements at 4 hosts (the largest power",
                "of two not above the host count), checked per operation: with int32",
                "run gsum with -s 16 or more."]),
    algo_local("slt", 3, 2, "run=slt arrival=history",
               "sorted linear tree (PAP-aware, Proficz 2018 section 4.1)",
               ["Three hosts, a count that is no power of two; the chain is ordered by",
                "each host's arrival in the previous operation of the instance."]),
    algo_local("prr", 4, 2, "run=prr round=2000 arrival=history",
               "pre-reduced ring (PAP-aware, Proficz 2018 section 4.2)",
               ["tau = 2 us; arrival times from the previous operation of the instance."]),
    algo_local("nap", 4, 2, "run=nap ppn=2",
               "node-aware allreduce (Bienz, Olson, Gropp 2019), four hosts as 2 nodes of 2"),
    algo_local("native", 2, 2, "run=native",
               "MPI_Allreduce between the hosts: a gred per host, then the MPI library",
               ["The two-level baseline (as Open MPI's HAN component builds it)."]),
    algo_local("clv-binomial-bcast", 4, 2, "run=clv bcast=binomial-bcast arrival=history",
               "Clairvoyant reduce to host0, then a binomial broadcast",
               ["Proficz & Ocetkiewicz 2020; one segment, d = 5 us (the defaults)."]),
    algo_local("binomial-reduce-binomial-bcast", 3, 1,
               "run=binomial-reduce bcast=binomial-bcast root=host1",
               "binomial reduce to host1, then its binomial broadcast"),
    algo_local("chain-reduce-chain-bcast", 2, 2,
               "run=chain-reduce bcast=chain-bcast segments=4 port=b",
               "pipelined chain reduce and broadcast, 4 segments, port model B"),
    algo_local("bintree-reduce", 4, 1, "run=bintree-reduce shape=ompi",
               "pipelined binary tree reduce (Open MPI's shape), then the default binomial broadcast"),
    algo_local("greedy-reduce", 3, 2, "run=greedy-reduce segments=2",
               "greedy pipelined reduce (Lowery & Langou), 2 segments, then a binomial broadcast"),
    algo_local("clv-linear", 2, 2, "run=clv-linear round=2000 arrival=history",
               "Clairvoyant, literal linear-search version, then a binomial broadcast"),
]

# The papers' sizes.  PATHS (Bongo 2004): its clusters with their best host
# subtrees and an algorithm in place of the cluster-root subtree.  Proficz
# 2018: 48 Tryton nodes (24 cores each) exchanging 1 M floats over 1 Gbps
# Ethernet, section 5, and the 16-node machine-learning run, section 6.
# Proficz & Ocetkiewicz 2020: up to 48 nodes, section 6.  Bienz, Olson,
# Gropp 2019: 16 nodes of 16 processes, one rank per process.
TAU_1GBE = ["round=700000: tau (PRR) or d (Clairvoyant) is about the time of one",
            "87 KB segment (1 M floats / 48) over 1 Gbps Ethernet, 0.7 ms; our estimate,",
            "the paper gives no value."]

ALGO_PAPER = [
    ("paper/algo/binary8w-rd.pathmap", [
        "binary8w-rd - the 8W cluster's binary host subtrees, recursive doubling across",
        "Paper: Bongo 2004 section 6.1 (binary8w), with an algorithm node in place of",
        "the cluster-root subtree and its proxies.  4 hosts x 8 threads = 32 threads.",
        "",
        "  2 threads -> hN.l2.i -> hN.l1.j -> hN -> across",
    ], ac(4, 8, "run=rd", "binary")),
    ("paper/algo/binary8w-native.pathmap", [
        "binary8w-native - binary8w's host subtrees, MPI_Allreduce across",
        "Paper: Bongo 2004 section 6.1; the two-level baseline of today's MPI",
        "libraries (Open MPI's HAN).  4 hosts x 8 threads = 32 threads.",
        "",
        "  2 threads -> hN.l2.i -> hN.l1.j -> hN -> across",
    ], ac(4, 8, "run=native", "binary")),
    ("paper/algo/binary4w-rd.pathmap", [
        "binary4w-rd - the 4W cluster's binary host subtrees, recursive doubling across",
        "Paper: Bongo 2004 section 6.2.  8 hosts x 4 threads = 32 threads.",
        "",
        "  2 threads -> hN.l1.i -> hN -> across",
    ], ac(8, 4, "run=rd", "binary")),
    ("paper/algo/now-rd.pathmap", [
        "now-rd - the NOW cluster, a gred per host, recursive doubling across",
        "Paper: Bongo 2004 section 6.3.  30 hosts x 2 threads = 60 threads; 30 is no",
        "power of two, so rd folds the 14 extra hosts in and out.",
        "",
        "  2 threads -> hN -> across",
    ], ac(30, 2, "run=rd")),
    ("paper/algo/blade-ring.pathmap", [
        "blade-ring - the Blade cluster, each thread enters a ring across",
        "Paper: Bongo 2004 section 6.4.  10 hosts x 1 thread = 10 threads.",
        "",
        "  thread N -> across",
    ], ac(10, 1, "run=ring")),
    ("paper/algo/proficz2018-ring-48x24.pathmap", [
        "proficz2018-ring-48x24 - the ring, the baseline of Proficz 2018",
        "Paper: Proficz 2018 section 5 (Table 3, Figs. 10-12): 48 nodes, 1 M floats.",
        "48 hosts x 24 threads (a Tryton node's cores) = 1152 threads, a gred per host.",
        "",
        "  24 threads -> hN -> across",
    ], ac(48, 24, "run=ring", dtype="float")),
    ("paper/algo/proficz2018-rabenseifner-48x24.pathmap", [
        "proficz2018-rabenseifner-48x24 - Rabenseifner's allreduce at Proficz 2018's size",
        "Paper: Proficz 2018 section 5 (compared there with ring, SLT and PRR).",
        "48 hosts x 24 threads = 1152 threads, a gred per host.",
        "",
        "  24 threads -> hN -> across",
    ], ac(48, 24, "run=rabenseifner", dtype="float")),
    ("paper/algo/proficz2018-slt-48x24.pathmap", [
        "proficz2018-slt-48x24 - the sorted linear tree (PAP-aware)",
        "Paper: Proficz 2018 sections 4.1 and 5.  48 hosts x 24 threads, a gred per",
        "host; the arrival times of the previous operation order the chain.",
        "",
        "  24 threads -> hN -> across",
    ], ac(48, 24, "run=slt arrival=history", dtype="float")),
    ("paper/algo/proficz2018-prr-48x24.pathmap", [
        "proficz2018-prr-48x24 - the pre-reduced ring (PAP-aware)",
        "Paper: Proficz 2018 sections 4.2 and 5 (Table 4).  48 hosts x 24 threads.",
    ] + TAU_1GBE + [
        "",
        "  24 threads -> hN -> across",
    ], ac(48, 24, "run=prr round=700000 arrival=history", dtype="float")),
    ("paper/algo/proficz2018-prr-16x24.pathmap", [
        "proficz2018-prr-16x24 - PRR in the machine-learning run of Proficz 2018",
        "Paper: Proficz 2018 section 6: distributed SGD on 16 nodes, 24 threads each.",
        "16 hosts x 24 threads = 384 threads, a gred per host.",
    ] + TAU_1GBE + [
        "",
        "  24 threads -> hN -> across",
    ], ac(16, 24, "run=prr round=700000 arrival=history", dtype="float")),
    ("paper/algo/clairvoyant2020-clv-48x24.pathmap", [
        "clairvoyant2020-clv-48x24 - Clairvoyant reduce, then a binomial broadcast",
        "Paper: Proficz & Ocetkiewicz 2020 section 6 (up to 48 nodes).  48 hosts x 24",
        "threads, a gred per host; 48 segments, arrival times from the previous",
        "operation (the paper estimates them in a background thread).",
    ] + TAU_1GBE + [
        "",
        "  24 threads -> hN -> across",
    ], ac(48, 24, "run=clv bcast=binomial-bcast segments=48 round=700000 arrival=history",
          dtype="float")),
    ("paper/algo/clairvoyant2020-binomial-48x24.pathmap", [
        "clairvoyant2020-binomial-48x24 - binomial reduce and broadcast, the baseline",
        "Paper: Proficz & Ocetkiewicz 2020 section 6 (binomial tree among the",
        "compared algorithms).  48 hosts x 24 threads, a gred per host.",
        "",
        "  24 threads -> hN -> across",
    ], ac(48, 24, "run=binomial-reduce bcast=binomial-bcast", dtype="float")),
    ("paper/algo/bienz2019-nap-256x1.pathmap", [
        "bienz2019-nap-256x1 - the node-aware allreduce over 16 nodes of 16 processes",
        "Paper: Bienz, Olson, Gropp 2019 section III: 16 nodes x 16 processes per",
        "node need one inter-node step.  Each process is a host here (256 ranks,",
        "ranks node*16 + local), one thread each, ppn=16.",
        "",
        "  thread N -> across",
    ], ac(256, 1, "run=nap ppn=16")),
]

# ---------------------------------------------------------------------------
# The files.  Each entry: path, header lines, builder.

def sc(*a, **k):
    return lambda: single_cluster(*a, **k)


def split4w2_shape(i):
    # Hosts 1, 2, 4, 6 hold no part of the cluster-root subtree in split4w.
    return "nary" if i in (1, 2, 4, 6) else "binary"


def split2_local_shape(i):
    return "nary" if i in (1, 2) else "binary"


FILES = [
    # ---------------------------------------------------------------- 8W
    ("paper/nary8w.pathmap", [
        "nary8w - 8W cluster, initial configuration (hierarchy aware n-ary tree)",
        "Paper: section 6.1, Figure 8.  4 hosts x 8 threads = 32 threads.",
        "Host subtree: one gred of 8 threads.  Cluster-root subtree: one gred cr0",
        "of the 4 host subtrees (host0's directly, the others through p1-p3).",
        "",
        "  8 threads -> hN -> pN -> cr0 -> root          (host0: h0 -> cr0 -> root)",
    ], sc(4, 8, "nary", "nary")),
    ("paper/quad8w.pathmap", [
        "quad8w - 8W cluster, a level added to every host subtree (speedup 1.17)",
        "Paper: section 6.1, Figure 9.  4 hosts x 8 threads = 32 threads.",
        "Host subtree quad: 2 greds of 4 threads (hN.l1.0, hN.l1.1), then hN of 2.",
        "Cluster-root subtree: one gred cr0 of 4 (quad = n-ary for 4 hosts).",
        "",
        "  4 threads -> hN.l1.i -> hN -> pN -> cr0 -> root",
    ], sc(4, 8, "quad", "nary")),
    ("paper/binaryquad8w.pathmap", [
        "binaryquad8w - 8W cluster, binary host subtrees, quad cluster-root subtree",
        "Paper: section 6.1, Figure 9 (another host level, speedup 1.17 over quad8w).",
        "4 hosts x 8 threads = 32 threads.",
        "Host subtree binary: 4 greds of 2 threads, 2 of 2, hN of 2 (3 levels).",
        "Cluster-root subtree: one gred cr0 of 4.",
        "",
        "  2 threads -> hN.l2.i -> hN.l1.j -> hN -> pN -> cr0 -> root",
    ], sc(4, 8, "binary", "quad")),
    ("paper/binary8w.pathmap", [
        "binary8w - 8W cluster, the best 8W configuration (total speedup 1.49)",
        "Paper: section 6.1 and 6.1.1, Figures 9, 12-14, Tables 2-3.",
        "4 hosts x 8 threads = 32 threads; thread 17 (host2) is the slowest, thread 0",
        "(host0) the fastest.",
        "Host subtree binary (3 levels); cluster-root subtree binary (2 levels):",
        "cr1.0 = h0 + p1, cr1.1 = p2 + p3, cr0 = cr1.0 + cr1.1.",
        "",
        "  2 threads -> hN.l2.i -> hN.l1.j -> hN -> pN -> cr1.k -> cr0 -> root",
    ], sc(4, 8, "binary", "binary")),
    ("paper/binary8w-extralinks.pathmap", [
        "binary8w-extralinks - binary8w with additional network links",
        "Paper: section 6.1, Figure 11 (no gain for binary8W).  4 hosts x 8 threads.",
        "The bottom (root) wrapper hN of every other host's subtree is moved to the",
        "cluster-root host0: each of hN's two contributors hN.l1.0 / hN.l1.1 reaches it",
        "through its own proxy pN.0 / pN.1, so hosts 1-3 have two links each.",
        "",
        "  2 threads -> hN.l2.i -> hN.l1.j -> pN.j -> hN(host0) -> cr1.k -> cr0 -> root",
    ], sc(4, 8, "binary", "binary", extralinks=True)),
    # ---------------------------------------------------------------- 4W
    ("paper/nary4w.pathmap", [
        "nary4w - 4W cluster, initial configuration (hierarchy aware n-ary tree)",
        "Paper: section 6.2 (same shape as Figure 8).  8 hosts x 4 threads = 32.",
        "Host subtree: one gred of 4 threads; cluster-root subtree: one gred cr0 of 8.",
        "",
        "  4 threads -> hN -> pN -> cr0 -> root",
    ], sc(8, 4, "nary", "nary")),
    ("paper/nary4w-extralinks.pathmap", [
        "nary4w-extralinks - nary4w with additional LAN links (slowdown 1.49)",
        "Paper: section 6.2, Figure 11.  8 hosts x 4 threads = 32 threads.",
        "The host subtree's only wrapper hN is moved to the cluster-root host0, so",
        "every thread of hosts 1-7 enters its own proxy pN.k (k = 0..3, the thread's",
        "index on its host) whose parent hN is on host0: 28 links into host0.",
        "",
        "  thread -> pN.k -> hN(host0) -> cr0 -> root",
    ], sc(8, 4, "nary", "nary", extralinks=True)),
    ("paper/binary4w.pathmap", [
        "binary4w - 4W cluster, binary tree (speedup 1.07 over nary4w)",
        "Paper: section 6.2, Figures 16-18.  8 hosts x 4 threads = 32 threads.",
        "Host subtree binary: hN.l1.0, hN.l1.1 (2 threads each), hN.",
        "Cluster-root subtree binary, three levels, all on host0:",
        "cr2.0 = h0 + p1, cr2.1 = p2 + p3, cr2.2 = p4 + p5, cr2.3 = p6 + p7;",
        "cr1.0 = cr2.0 + cr2.1, cr1.1 = cr2.2 + cr2.3; cr0 = cr1.0 + cr1.1.",
        "",
        "  2 threads -> hN.l1.i -> hN -> pN -> cr2.k -> cr1.j -> cr0 -> root",
    ], sc(8, 4, "binary", "binary")),
    ("paper/split4w.pathmap", [
        "split4w - 4W cluster, binary4w with the cluster root split (speedup 1.10)",
        "Paper: section 6.2, Figure 15.  8 hosts x 4 threads = 32 threads.",
        "Three of the four toplevel cluster-root wrappers move to other hosts:",
        "cr2.1 to host3, cr2.2 to host5, cr2.3 to host7, each reaching cr1.* on host0",
        "through a proxy pN.cr2.k.  cr2.0 stays on host0: host0's subtree feeds it.",
        "The host of the last contributor is chosen so that thread 9 (host2) has two",
        "proxies and thread 13 (host3) one, as in Figures 17-18 (the paper does not",
        "name the hosts).  Hosts 1, 2, 4, 6 hold no part of the cluster root.",
        "",
        "  host2: 2 threads -> h2.l1.i -> h2 -> p2 -> cr2.1(host3) -> p3.cr2.1 -> cr1.0 -> cr0 -> root",
    ], sc(8, 4, "binary", "binary", split=split_to_last_contributor)),
    ("paper/split4w-2.pathmap", [
        "split4w-2 - split4w with n-ary host subtrees where no cluster root part is",
        "Paper: section 6.2, Figures 17-19 (speedup 1.05 over split4w).",
        "8 hosts x 4 threads = 32 threads.",
        "As split4w, but hosts 1, 2, 4, 6 (no part of the cluster-root subtree) have",
        "one gred of 4 threads as in nary4w; hosts 0, 3, 5, 7 keep binary subtrees.",
        "",
        "  host2: 4 threads -> h2 -> p2 -> cr2.1(host3) -> p3.cr2.1 -> cr1.0 -> cr0 -> root",
    ], sc(8, 4, "binary", "binary", split=split_to_last_contributor,
          host_shape_of=split4w2_shape)),
    # ---------------------------------------------------------------- NOW
    ("paper/quadnow.pathmap", [
        "quadnow - NOW cluster, initial configuration (quad tree)",
        "Paper: section 6.3.  30 hosts x 2 threads = 60 threads.",
        "Host subtree: one gred hN of 2 threads.  Cluster-root subtree quad, all on",
        "host0: eight toplevel greds cr2.0-cr2.7 of four hosts each (cr2.7: hosts",
        "28-29), cr1.0 = cr2.0-3, cr1.1 = cr2.4-7, cr0 = cr1.0 + cr1.1.",
        "",
        "  2 threads -> hN -> pN -> cr2.k -> cr1.j -> cr0 -> root",
    ], sc(30, 2, "nary", "quad")),
    ("paper/splitnow.pathmap", [
        "splitnow - NOW cluster, quad tree with the cluster root split (speedup 2.44)",
        "Paper: section 6.3.  30 hosts x 2 threads = 60 threads.",
        "Seven of the eight toplevel wrappers move to the first host of their group:",
        "cr2.k (hosts 4k..4k+3) runs on host 4k and reaches cr1.* on host0 through",
        "p4k.cr2.k; cr2.0 stays on host0, whose subtree contributes to it.",
        "",
        "  host5: 2 threads -> h5 -> p5 -> cr2.1(host4) -> p4.cr2.1 -> cr1.0 -> cr0 -> root",
    ], sc(30, 2, "nary", "quad", split=split_to_first_contributor)),
    ("paper/binarynow.pathmap", [
        "binarynow - NOW cluster, binary tree (speedup 1.37 over splitnow)",
        "Paper: section 6.3, Figure 20, Table 4.  30 hosts x 2 threads = 60 threads.",
        "Host subtree: one gred of 2 threads.  Cluster-root subtree binary: pairs of",
        "hosts (cr4.*), groups of four hosts (cr3.0-cr3.7; cr3.7 is the pair 28-29),",
        "then cr2.*, cr1.*, cr0 on host0.  As in splitnow, the subtree of each group",
        "of four hosts except the first runs on the group's first host 4k, so",
        "thread 0 has no proxy, threads 4 and 56 one, threads 11 and 36 two (Table 4).",
        "",
        "  host5: 2 threads -> h5 -> p5 -> cr4.2(host4) -> cr3.1 -> p4.cr3.1 -> cr2.0 -> cr1.0 -> cr0 -> root",
    ], sc(30, 2, "nary", "binarynow", split=split_groups_of_four)),
    # ---------------------------------------------------------------- Blade
    ("paper/flatblade.pathmap", [
        "flatblade - Blade cluster, the best Blade configuration (flat tree)",
        "Paper: section 6.4, Figure 21.  10 hosts x 1 thread = 10 threads.",
        "One gred cr0 on host0 that all ten threads contribute to: thread 0 directly,",
        "thread N on hostN through its proxy pN.",
        "",
        "  thread N -> pN -> cr0 (fan-in 10) -> root",
    ], sc(10, 1, "nary", "nary")),
    ("paper/binaryblade.pathmap", [
        "binaryblade - Blade cluster with a binary cluster-root subtree",
        "Paper: section 6.4 (\"adding additional levels does not improve performance\").",
        "10 hosts x 1 thread = 10 threads.  Binary over the ten threads, all greds on",
        "host0 (10 -> 5+5 -> 3+2 -> 2+1), thread N on hostN entering its proxy pN.",
        "",
        "  thread N -> pN -> [cr3.k ->] cr2.k -> cr1.j -> cr0 -> root",
    ], sc(10, 1, "nary", "binary")),
    # ---------------------------------------------------------------- 7.2
    ("paper/multicluster-split4w-binary8w.pathmap", [
        "multicluster-split4w-binary8w - 4W and 8W clusters combined through a gateway",
        "Paper: section 7.2.  13 hosts: a0-a7 (4W, 4 threads each, threads 0-31),",
        "gw (gateway, no threads), b0-b3 (8W, 8 threads each, threads 32-63).",
        "Cluster a is split4w (wrappers a.cr*), cluster b is binary8w (b.cr*).  The",
        "root wrapper mc is on the 4W cluster-root host a0; b.cr0 reaches it through",
        "pb0 (b0 -> gw) and pgw (gw -> a0).",
        "",
        "  8W thread -> hbN.l2 -> hbN.l1 -> hbN -> pbN -> b.cr1 -> b.cr0 -> pb0 -> pgw -> mc -> root",
    ], multicluster_paper),
    # ---------------------------------------------------------------- local
    ("local/gred-1x2.pathmap", [
        "gred-1x2 - the cheapest tree: one gred and the core on one host",
        "Scaled from: Figure 2 (the gred wrapper) / section 3.1.  1 host x 2 threads.",
        "No network: the baseline for the cost of one gred and the core.",
        "",
        "  threads 0-1 -> h0 -> root",
    ], sc(1, 2, "nary", "nary")),
    ("local/binary-1x4.pathmap", [
        "binary-1x4 - a binary host subtree alone (no network)",
        "Scaled from: binary8w's host subtree (section 6.1, Figure 9).  1 host x 4 threads.",
        "",
        "  2 threads -> h0.l1.i -> h0 -> root",
    ], sc(1, 4, "binary", "nary")),
    ("local/nary-2x2.pathmap", [
        "nary-2x2 - hierarchy aware n-ary tree, two hosts",
        "Scaled from: nary8w / nary4w (Figure 8).  2 hosts x 2 threads = 4 threads.",
        "",
        "  2 threads -> hN -> pN -> cr0 -> root        (host0: h0 -> cr0 -> root)",
    ], sc(2, 2, "nary", "nary")),
    ("local/quad-2x4.pathmap", [
        "quad-2x4 - quad host subtrees: one gred of 4 threads per host",
        "Scaled from: quad8w (section 6.1; its toplevel greds have 4 threads).",
        "2 hosts x 4 threads = 8 threads.  With 4 threads a quad host subtree is one",
        "gred, so this is also the n-ary tree at this size; compare binaryquad-2x4",
        "(one more host level).",
        "",
        "  4 threads -> hN -> pN -> cr0 -> root",
    ], sc(2, 4, "quad", "quad")),
    ("local/binaryquad-2x4.pathmap", [
        "binaryquad-2x4 - binary host subtrees, quad cluster-root subtree",
        "Scaled from: binaryquad8w (section 6.1, Figure 9).  2 hosts x 4 threads.",
        "Host subtree: hN.l1.0, hN.l1.1 (2 threads each), hN.  Cluster root: cr0.",
        "At 2 hosts the quad and the binary cluster root are the same single gred, so",
        "this tree equals binary-2x4; binary-4x2 vs nary-4x2 shows the extra",
        "cluster-root level.",
        "",
        "  2 threads -> hN.l1.i -> hN -> pN -> cr0 -> root",
    ], sc(2, 4, "binary", "quad")),
    ("local/binary-2x4.pathmap", [
        "binary-2x4 - binary host subtrees and binary cluster-root subtree",
        "Scaled from: binary8w (section 6.1).  2 hosts x 4 threads = 8 threads.",
        "Same tree as binaryquad-2x4 at this size (see there).",
        "",
        "  2 threads -> hN.l1.i -> hN -> pN -> cr0 -> root",
    ], sc(2, 4, "binary", "binary")),
    ("local/binary-extralinks-2x4.pathmap", [
        "binary-extralinks-2x4 - binary-2x4 with additional network links",
        "Scaled from: binary8w-extralinks (Figure 11).  2 hosts x 4 threads.",
        "h1 runs on host0; h1.l1.0 and h1.l1.1 reach it through proxies p1.0, p1.1.",
        "",
        "  2 threads -> h1.l1.i -> p1.i -> h1(host0) -> cr0 -> root",
    ], sc(2, 4, "binary", "binary", extralinks=True)),
    ("local/nary-4x2.pathmap", [
        "nary-4x2 - n-ary tree over four hosts",
        "Scaled from: nary4w (section 6.2); also the quad NOW tree at 4 hosts",
        "(quad of 4 = one gred).  4 hosts x 2 threads = 8 threads.",
        "",
        "  2 threads -> hN -> pN -> cr0 (fan-in 4) -> root",
    ], sc(4, 2, "nary", "nary")),
    ("local/binary-4x2.pathmap", [
        "binary-4x2 - binary cluster-root subtree over four hosts",
        "Scaled from: binary4w / binary8w (sections 6.1-6.2).  4 hosts x 2 threads.",
        "cr1.0 = h0 + p1, cr1.1 = p2 + p3, cr0 = cr1.0 + cr1.1, all on host0.",
        "",
        "  2 threads -> hN -> pN -> cr1.k -> cr0 -> root",
    ], sc(4, 2, "binary", "binary")),
    ("local/split-4x2.pathmap", [
        "split-4x2 - binary-4x2 with the cluster root split",
        "Scaled from: split4w (Figure 15).  4 hosts x 2 threads = 8 threads.",
        "The toplevel wrapper cr1.1 (hosts 2, 3) moves to host3 and reaches cr0 on",
        "host0 through p3.cr1.1; cr1.0 stays (host0's subtree feeds it).  Threads 4-5",
        "(host2) have two proxies on their path, threads 6-7 one, 2-3 one, 0-1 none.",
        "",
        "  host2: 2 threads -> h2 -> p2 -> cr1.1(host3) -> p3.cr1.1 -> cr0 -> root",
    ], sc(4, 2, "binary", "binary", split=split_to_last_contributor)),
    ("local/split2-4x2.pathmap", [
        "split2-4x2 - split-4x2 with n-ary host subtrees where no cluster root part is",
        "Scaled from: split4w-2 (section 6.2).  4 hosts x 2 threads = 8 threads.",
        "Hosts 1 and 2 (no cluster-root part) get n-ary host subtrees.  With 2",
        "threads per host n-ary and binary host subtrees are the same single gred,",
        "so this tree equals split-4x2; the difference needs more threads per host",
        "(see paper/split4w-2).",
        "",
        "  host2: 2 threads -> h2 -> p2 -> cr1.1(host3) -> p3.cr1.1 -> cr0 -> root",
    ], sc(4, 2, "binary", "binary", split=split_to_last_contributor,
          host_shape_of=split2_local_shape)),
    ("local/nary-extralinks-2x2.pathmap", [
        "nary-extralinks-2x2 - nary-2x2 with additional network links",
        "Scaled from: nary4w-extralinks (Figure 11).  2 hosts x 2 threads.",
        "h1 runs on host0; each thread of host1 enters its own proxy p1.0 / p1.1.",
        "",
        "  thread 2/3 -> p1.0/p1.1 -> h1(host0) -> cr0 -> root",
    ], sc(2, 2, "nary", "nary", extralinks=True)),
    ("local/pair-2x1.pathmap", [
        "pair-2x1 - the smallest tree across hosts: 2 hosts x 1 thread, one proxy",
        "Scaled from: flatblade (section 6.4) at 2 hosts.  2 hosts x 1 thread.",
        "Thread 0 enters cr0 on host0 directly; thread 1 enters the proxy p1,",
        "which carries its contribution to cr0.  The last arrival at cr0",
        "continues into the core root.  One link, no gred on host1: the cost of",
        "a proxy hop against MPI_Allreduce on 2 ranks (bench/compare-native.sh).",
        "",
        "  thread 0 -> cr0 (fan-in 2) -> root",
        "  thread 1 -> p1 -> cr0 -> root",
    ], sc(2, 1, "nary", "nary")),
    ("local/flat-4x1.pathmap", [
        "flat-4x1 - flat tree over single-thread hosts",
        "Scaled from: flatblade (section 6.4).  4 hosts x 1 thread = 4 threads.",
        "One gred cr0 on host0: thread 0 enters it, thread N enters proxy pN.",
        "",
        "  thread N -> pN -> cr0 (fan-in 4) -> root",
    ], sc(4, 1, "nary", "nary")),
    ("local/binary-4x1.pathmap", [
        "binary-4x1 - binary tree over single-thread hosts",
        "Scaled from: binaryblade (section 6.4).  4 hosts x 1 thread = 4 threads.",
        "",
        "  thread N -> pN -> cr1.k -> cr0 -> root",
    ], sc(4, 1, "nary", "binary")),
    ("local/gateway-3x2.pathmap", [
        "gateway-3x2 - two one-host clusters joined through a gateway host",
        "Scaled from: section 7.2 (multi-cluster via a gateway; see",
        "paper/multicluster-split4w-binary8w).  3 hosts: a (threads 0-1), gw (no",
        "threads, only a relaying proxy), b (threads 2-3).",
        "",
        "  a: threads 0-1 -> ha -> mc -> root",
        "  b: threads 2-3 -> hb -> pb -> pgw(gw) -> mc(a) -> root",
    ], gateway_local),
    # ---------------------------------------------------------------- demo
    ("demo.pathmap", [
        "demo - the tree `make demo` runs: 2 hosts x 2 threads joined by a proxy",
        "The example of docs/pathmap.md with trace-friendly names (doc -> here):",
        "g0 -> h0, g1 -> h1, top -> cr0, p1 and root unchanged.  Shape of nary8w",
        "(Figure 8) at its smallest.",
        "",
        "Threads 0 and 1 reduce in h0 and threads 2 and 3 in h1.  The last arrival",
        "at h1 continues into the proxy p1, which sends the partial sum to host0,",
        "where a service thread runs cr0 for it.  The last contribution to cr0",
        "continues into the core root; the sum then travels back the same way.",
        "",
        "  threads 0-1 -> h0 -> cr0 -> root",
        "  threads 2-3 -> h1 -> p1 -> cr0 -> root",
        "",
        "Run: mpirun -np 2 bin/gsum -p pathmaps/demo.pathmap -n 20000",
    ], sc(2, 2, "nary", "nary")),
    ("algo-demo.pathmap", [
        "algo-demo - the demo with an algorithm node: 2 hosts x 2 threads, a gred per",
        "host, recursive doubling between the hosts (docs/pathmap.md, second example).",
        "",
        "Threads 0 and 1 reduce in h0 and threads 2 and 3 in h1.  The last arrival",
        "at each gred continues into the algorithm node across, where it runs",
        "recursive doubling with the other host over MPI; both come back with the",
        "sum and hand it to the threads waiting in their gred.  No proxy, no core.",
        "",
        "  threads 0-1 -> h0 -> across      threads 2-3 -> h1 -> across",
        "",
        "Run: mpirun -np 2 bin/gsum -p pathmaps/algo-demo.pathmap -n 20000",
    ], ac(2, 2, "run=rd")),
] + ALGO_LOCAL + ALGO_PAPER


def main(argv):
    if len(argv) != 2 or argv[1].startswith("-") and argv[1] != "--list":
        sys.stderr.write(__doc__)
        return 2
    for rel, header, build in FILES:
        pm = build()
        if argv[1] == "--list":
            print("%-48s %3d hosts %3d threads  depth %d" %
                  (rel, len(pm.hosts), pm.nthreads(), pm.depth()))
            continue
        path = os.path.join(argv[1], rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(pm.render(header))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
