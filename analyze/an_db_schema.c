/*
 * an_db_schema.c - the analysis database's schema: its tables and views
 * (docs/analysis-db.md documents every column), and the INSERT statements
 * whose column lists follow the tables'.
 */
#include "analyze/an_db_int.h"

const char *const an__db_schema_sql =
    "CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT);\n"
    "CREATE TABLE hosts(host INTEGER PRIMARY KEY, name TEXT, hostname TEXT, offset_ns REAL,"
    " error_ns REAL, drift_ppm REAL);\n"
    "CREATE TABLE locations(location INTEGER PRIMARY KEY, host INTEGER, role TEXT,"
    " thread INTEGER, proxy INTEGER, instance INTEGER, enter INTEGER, name TEXT,"
    " flushes INTEGER, visits INTEGER);\n"
    "CREATE TABLE threads(thread INTEGER PRIMARY KEY, host INTEGER, location INTEGER,"
    " enter INTEGER, nproxies INTEGER, nstages INTEGER);\n"
    "CREATE TABLE wrappers(node INTEGER PRIMARY KEY, name TEXT, kind TEXT, host INTEGER,"
    " parent INTEGER, level INTEGER, fanin INTEGER, part TEXT, nhosts INTEGER,"
    " line INTEGER);\n"
    "CREATE TABLE contributors(node INTEGER, contributor INTEGER, child INTEGER,"
    " thread INTEGER, name TEXT, PRIMARY KEY(node, contributor));\n"
    "CREATE TABLE paths(thread INTEGER, step INTEGER, node INTEGER, contributor INTEGER,"
    " PRIMARY KEY(thread, step));\n"
    "CREATE TABLE regions(region INTEGER PRIMARY KEY, instance INTEGER, node INTEGER);\n"
    "CREATE TABLE visits(instance INTEGER, op INTEGER, node INTEGER, contributor INTEGER,"
    " location INTEGER, t1 INTEGER, t2 INTEGER, t3 INTEGER, t4 INTEGER, arrival INTEGER,"
    " departure INTEGER, arrival_wait INTEGER, departure_wait INTEGER);\n"
    "CREATE TABLE ops(instance INTEGER, op INTEGER, bytes INTEGER, used INTEGER,"
    " t0 INTEGER, arrival_spread INTEGER, host_spread INTEGER, avg_elapsed REAL,"
    " imbalance REAL, PRIMARY KEY(instance, op));\n"
    "CREATE TABLE pap_hosts(instance INTEGER, op INTEGER, host INTEGER, a INTEGER,"
    " f INTEGER, e INTEGER, PRIMARY KEY(instance, op, host));\n"
    "CREATE TABLE p2p(bytes INTEGER PRIMARY KEY, ns REAL, source TEXT);\n"
    "CREATE TABLE stats(scope TEXT, node INTEGER, contributor INTEGER, thread INTEGER,"
    " metric TEXT, bytes INTEGER, n INTEGER, mean REAL, median REAL, stdev REAL, min REAL,"
    " max REAL, p10 REAL, p90 REAL);\n"
    "CREATE TABLE orders(node INTEGER, contributor INTEGER, arrival INTEGER,"
    " departure INTEGER, bytes INTEGER, count INTEGER);\n"
    "CREATE TABLE subtree_orders(node INTEGER, thread INTEGER, arrival INTEGER,"
    " departure INTEGER, bytes INTEGER, count INTEGER);\n"
    /* algorithm nodes (docs/analysis-db.md, "Algorithm nodes") */
    "CREATE TABLE algo_nodes(node INTEGER PRIMARY KEY, algo TEXT, bcast TEXT, root INTEGER,"
    " arrival TEXT, nranks INTEGER);\n"
    "CREATE TABLE algo_ranks(node INTEGER, rank INTEGER, host INTEGER, contributor INTEGER,"
    " location INTEGER, PRIMARY KEY(node, rank));\n"
    "CREATE TABLE algo_visits(instance INTEGER, op INTEGER, node INTEGER, rank INTEGER,"
    " host INTEGER, t1 INTEGER, t4 INTEGER, latency INTEGER, a INTEGER, f INTEGER, e INTEGER,"
    " PRIMARY KEY(instance, op, node, rank));\n"
    "CREATE TABLE algo_ops(instance INTEGER, op INTEGER, node INTEGER, bytes INTEGER,"
    " used INTEGER, t0 INTEGER, arrival_spread INTEGER, span INTEGER, avg_elapsed REAL,"
    " imbalance REAL, PRIMARY KEY(instance, op, node));\n"
    "CREATE TABLE algo_msgs(instance INTEGER, op INTEGER, node INTEGER, round INTEGER,"
    " src INTEGER, dst INTEGER, src_host INTEGER, dst_host INTEGER, send_step INTEGER,"
    " recv_step INTEGER, bytes INTEGER, send_post INTEGER, send_done INTEGER,"
    " recv_post INTEGER, recv_done INTEGER, late INTEGER);\n"
    "CREATE TABLE algo_rounds(instance INTEGER, op INTEGER, node INTEGER, round INTEGER,"
    " rank INTEGER, host INTEGER, nsend INTEGER, nrecv INTEGER, first_post INTEGER,"
    " last_done INTEGER, late INTEGER, wait INTEGER,"
    " PRIMARY KEY(instance, op, node, round, rank));\n"
    "CREATE TABLE algo_arrivals(instance INTEGER, op INTEGER, node INTEGER, rank INTEGER,"
    " host INTEGER, asked TEXT, source TEXT, missing INTEGER, missing_host INTEGER,"
    " error_ns INTEGER, lead_ns INTEGER, wait_ns INTEGER, t INTEGER,"
    " PRIMARY KEY(instance, op, node, rank));\n"
    "CREATE TABLE algo_arrival_stats(node INTEGER, bytes INTEGER, rank INTEGER, host INTEGER,"
    " metric TEXT, n INTEGER, mean REAL, median REAL, stdev REAL, min REAL, max REAL,"
    " p10 REAL, p90 REAL, max_abs REAL);\n";

/* Views: the paper's tables over the stored rows (docs/analysis-db.md, Views). */
const char *const an__db_views_sql =
    "CREATE VIEW visit_metrics AS SELECT v.*, w.name, w.kind,"
    " CASE WHEN w.kind IN ('core', 'algo') THEN v.t4 - v.t1"
    "  ELSE (v.t4 - v.t1) - (v.t3 - v.t2) END"
    " AS latency, v.t2 - v.t1 AS down_own, v.t4 - v.t3 AS up_own"
    " FROM visits v JOIN wrappers w USING (node);\n"
    "CREATE VIEW wrapper_ops AS SELECT v.instance, v.op, v.node, w.name, w.kind,"
    " CASE w.kind WHEN 'gred' THEN MAX(CASE WHEN v.arrival = w.fanin THEN v.t2 - v.t1 END)"
    "  WHEN 'proxy' THEN ((MAX(v.t4) - MAX(v.t1)) - (MAX(v.t3) - MAX(v.t2))) / 2.0 END AS down,"
    " CASE w.kind WHEN 'gred' THEN MAX(CASE WHEN v.departure = 1 THEN v.t4 - v.t3 END)"
    "  WHEN 'proxy' THEN ((MAX(v.t4) - MAX(v.t1)) - (MAX(v.t3) - MAX(v.t2))) / 2.0 END AS up,"
    " CASE WHEN w.kind IN ('core', 'algo') THEN MAX(v.t4 - v.t1)"
    "  WHEN w.kind = 'proxy' THEN (MAX(v.t4) - MAX(v.t1)) - (MAX(v.t3) - MAX(v.t2)) END"
    " AS latency"
    " FROM visits v JOIN wrappers w USING (node) GROUP BY v.instance, v.op, v.node;\n"
    "CREATE VIEW order_matrix AS SELECT o.node, w.name, o.bytes, o.arrival, o.departure,"
    " SUM(o.count) AS count, 100.0 * SUM(o.count) / (SELECT SUM(x.count) FROM orders x"
    "  WHERE x.node = o.node AND x.bytes = o.bytes AND x.arrival = o.arrival) AS percent"
    " FROM orders o JOIN wrappers w USING (node) WHERE w.kind = 'gred'"
    " GROUP BY o.node, o.bytes, o.arrival, o.departure;\n"
    /* seq: chronological order along the path (arrival wait before down latency,
     * core, then the up path back to the entry wrapper, departure wait last) */
    "CREATE VIEW thread_stages AS SELECT p.thread, s.bytes, p.step, p.node, w.name, w.kind,"
    " w.part, CASE WHEN s.metric IN ('up', 'departure_wait') THEN 'up' ELSE 'down' END"
    " AS direction, s.metric AS stage,"
    " CASE WHEN s.metric = 'arrival_wait' THEN 2 * p.step"
    "  WHEN s.metric IN ('down', 'latency') THEN 2 * p.step + 1"
    "  WHEN s.metric = 'up' THEN 2 * t.nstages + 2 * (t.nstages - 1 - p.step)"
    "  ELSE 2 * t.nstages + 2 * (t.nstages - 1 - p.step) + 1 END AS seq,"
    " s.n, s.mean, s.median, s.stdev, s.min, s.max, s.p10, s.p90"
    " FROM paths p JOIN threads t ON t.thread = p.thread JOIN wrappers w ON w.node = p.node"
    " JOIN stats s ON s.scope = 'thread' AND s.thread = p.thread AND s.node = p.node;\n"
    "CREATE VIEW thread_parts AS SELECT s.thread, t.host, t.nproxies, s.bytes,"
    " SUM(CASE WHEN s.metric IN ('down', 'arrival_wait', 'latency') THEN s.mean ELSE 0 END)"
    " AS down_with_wait,"
    " SUM(CASE WHEN s.metric IN ('down', 'latency') THEN s.mean ELSE 0 END) AS down_no_wait,"
    " SUM(CASE WHEN s.metric IN ('up', 'departure_wait') THEN s.mean ELSE 0 END) AS up,"
    " SUM(CASE WHEN w.part = 'host' AND s.metric <> 'arrival_wait' THEN s.mean ELSE 0 END)"
    " AS host_no_wait,"
    " SUM(CASE WHEN w.part = 'cluster' AND s.metric <> 'arrival_wait' THEN s.mean ELSE 0 END)"
    " AS cluster_no_wait,"
    " SUM(CASE WHEN w.part = 'proxy' THEN s.mean ELSE 0 END) AS proxy,"
    " SUM(CASE WHEN w.part IN ('core', 'algo') THEN s.mean ELSE 0 END) AS core,"
    " SUM(CASE WHEN s.metric <> 'arrival_wait' THEN s.mean ELSE 0 END) AS total_no_wait,"
    " SUM(s.mean) AS total_with_wait"
    " FROM stats s JOIN wrappers w ON w.node = s.node JOIN threads t ON t.thread = s.thread"
    " WHERE s.scope = 'thread' GROUP BY s.thread, s.bytes;\n"
    "CREATE VIEW hotspots AS SELECT s.node, w.name, w.kind, w.part, s.metric, s.bytes, s.n,"
    " s.mean, s.median, s.p90 FROM stats s JOIN wrappers w USING (node)"
    " WHERE s.scope = 'wrapper' AND ((w.kind = 'gred' AND s.metric IN ('down', 'up',"
    " 'departure_wait')) OR (w.kind <> 'gred' AND s.metric = 'latency'))"
    " ORDER BY s.mean DESC;\n"
    "CREATE VIEW pap_threads AS SELECT v.instance, v.op, t.thread, t.host, v.t1 - o.t0 AS a,"
    " v.t4 - o.t0 AS f, v.t4 - v.t1 AS e FROM visits v"
    " JOIN locations l ON l.location = v.location"
    " JOIN threads t ON t.thread = l.thread AND t.enter = v.node"
    " JOIN ops o ON o.instance = v.instance AND o.op = v.op;\n"
    /* algorithm nodes: means over the used operations */
    "CREATE VIEW algo_host_means AS SELECT v.node, o.bytes, v.rank, v.host, COUNT(*) AS n,"
    " AVG(v.latency) AS latency, AVG(v.a) AS a, AVG(v.f) AS f,"
    " AVG((SELECT COALESCE(SUM(r.late), 0) FROM algo_rounds r WHERE r.instance = v.instance"
    "  AND r.op = v.op AND r.node = v.node AND r.rank = v.rank)) AS late"
    " FROM algo_visits v JOIN algo_ops o ON o.instance = v.instance AND o.op = v.op"
    " AND o.node = v.node WHERE o.used GROUP BY v.node, o.bytes, v.rank;\n"
    "CREATE VIEW algo_round_means AS SELECT r.node, o.bytes, r.round, r.rank, r.host,"
    " COUNT(*) AS n, AVG(r.first_post - o.t0) AS first_post, AVG(r.last_done - o.t0)"
    " AS last_done, AVG(r.late) AS late, AVG(r.wait) AS wait"
    " FROM algo_rounds r JOIN algo_ops o ON o.instance = r.instance AND o.op = r.op"
    " AND o.node = r.node WHERE o.used GROUP BY r.node, o.bytes, r.round, r.rank;\n"
    "CREATE VIEW algo_round_late AS SELECT m.node, o.bytes, m.round, COUNT(*) AS msgs,"
    " SUM(m.late) AS late_total, 1.0 * SUM(m.late) / (SELECT COUNT(*) FROM algo_ops x"
    "  WHERE x.node = m.node AND x.bytes = o.bytes AND x.used) AS late_per_op,"
    " MAX(m.late) AS late_max"
    " FROM algo_msgs m JOIN algo_ops o ON o.instance = m.instance AND o.op = m.op"
    " AND o.node = m.node WHERE o.used GROUP BY m.node, o.bytes, m.round;\n"
    /* a PAP-aware node's arrival sources, per rank over the used operations; the
     * distributions are in the table algo_arrival_stats */
    "CREATE VIEW algo_arrival_sources AS SELECT s.*, m.missing_hosts FROM"
    " (SELECT a.node, o.bytes, a.rank, a.host, COUNT(*) AS n, a.asked,"
    "  SUM(a.source = 'equal') AS equal, SUM(a.source = 'history') AS history,"
    "  SUM(a.source = 'edge') AS edge, SUM(a.source <> a.asked) AS fallbacks,"
    "  SUM(a.missing IS NOT NULL) AS missing"
    "  FROM algo_arrivals a JOIN algo_ops o ON o.instance = a.instance AND o.op = a.op"
    "  AND o.node = a.node WHERE o.used GROUP BY a.node, o.bytes, a.rank) s"
    " LEFT JOIN (SELECT node, bytes, rank, GROUP_CONCAT(name, ',') AS missing_hosts FROM"
    "  (SELECT DISTINCT a.node, o.bytes, a.rank, h.host, h.name FROM algo_arrivals a"
    "   JOIN algo_ops o ON o.instance = a.instance AND o.op = a.op AND o.node = a.node"
    "   JOIN hosts h ON h.host = a.missing_host WHERE o.used ORDER BY h.host)"
    "  GROUP BY node, bytes, rank) m"
    " ON m.node = s.node AND m.bytes = s.bytes AND m.rank = s.rank;\n";

const char *const an__db_stmt_sql[S_N] = {
    [S_VISIT] = "INSERT INTO visits VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?)",
    [S_OP] = "INSERT INTO ops VALUES(?,?,?,?,?,?,?,?,NULL)",
    [S_PAP_HOST] = "INSERT INTO pap_hosts VALUES(?,?,?,?,?,?)",
    [S_STAT] = "INSERT INTO stats VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
    [S_ORDER] = "INSERT INTO orders VALUES(?,?,?,?,?,?)",
    [S_SUBORDER] = "INSERT INTO subtree_orders VALUES(?,?,?,?,?,?)",
    [S_META] = "INSERT OR REPLACE INTO meta VALUES(?,?)",
    [S_P2P] = "INSERT INTO p2p VALUES(?,?,?)",
    [S_ALGO_VISIT] = "INSERT INTO algo_visits VALUES(?,?,?,?,?,?,?,?,?,?,?)",
    [S_ALGO_OP] = "INSERT INTO algo_ops VALUES(?,?,?,?,?,?,?,?,?,NULL)",
    [S_ALGO_MSG] = "INSERT INTO algo_msgs VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
    [S_ALGO_ROUND] = "INSERT INTO algo_rounds VALUES(?,?,?,?,?,?,?,?,?,?,?,?)",
    [S_ALGO_ARRIVAL] = "INSERT INTO algo_arrivals VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?)",
    [S_ALGO_ARRIVAL_STAT] = "INSERT INTO algo_arrival_stats VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
};

const an_row_sql_t an__db_row_sql[NKIND] = {
    [S_VISIT] = { "visits", "(?,?,?,?,?,?,?,?,?,?,?,?,?)", 13 },
    [S_OP] = { "ops", "(?,?,?,?,?,?,?,?,NULL)", 8 },
    [S_PAP_HOST] = { "pap_hosts", "(?,?,?,?,?,?)", 6 },
};
