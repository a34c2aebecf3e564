# hand.sh - sourced by viz.sh: tooltips of the synthetic charts against values
# worked out by hand from the visit tables of tests/oracles/synth_trace.c (the
# same tables tests/analyze/synthetic.sh documents).  Times in ns, shown in
# µs with 3 decimals.  $W/svg holds the charts; has FILE TEXT checks one.
S=$W/svg

# ---- orders of g0 (gred3): contributors threads 0, 1, 2 ----------------------
# arrival order by t1, departure order by t4 (ties by contributor index):
#   op 0  t1 0, 250, 400        -> a = 1, 2, 3;  t4 800, 830, 780     -> d = 2, 3, 1
#   op 1  t1 10500, 10080, 10200 -> a = 3, 1, 2; t4 10720, 10680, 10700 -> d = 3, 1, 2
#   op 2  t1 20150, 20300, 20050 -> a = 2, 3, 1; t4 20640, 20600, 20640 -> d = 2, 1, 3
# (a, d) pairs: op 0 (1,2) (2,3) (3,1); op 1 (3,3) (1,1) (2,2); op 2 (2,2) (3,1) (1,3)
F=$S/gred3-orders-g0.svg
has "$F" "arrival order 1, departure order 1: 1 of 3 operations (33.33 % of the row)"
has "$F" "arrival order 1, departure order 2: 1 of 3 operations (33.33 % of the row)"
has "$F" "arrival order 2, departure order 1: 0 of 3 operations (0.00 % of the row)"
has "$F" "arrival order 2, departure order 2: 2 of 3 operations (66.67 % of the row)"
has "$F" "arrival order 3, departure order 1: 2 of 3 operations (66.67 % of the row)"
has "$F" "arrival order 3, departure order 3: 1 of 3 operations (33.33 % of the row)"

# ---- pap (gred3) ----------------------------------------------------------------
# t0 = the first arrival at an entry wrapper: op 0: 0 (thread 0), op 1: 10050
# (thread 4), op 2: 20050 (thread 2).
# thread 0: a = 0, 450, 100 -> 550/3 = 183.333; e = 800, 220, 490 -> 503.333;
#           f = a + e = 686.667
# thread 3: a = 150, 70, 50 -> 90; e = 890, 830, 750 -> 823.333; f = 913.333
# host B (its last thread): a = 300, 70, 150 -> 173.333; f = 1040, 900, 800 ->
#           913.333; e = f - a = 740
F=$S/gred3-pap.svg
has "$F" "thread 0 on A: arrival a = 0.183 µs after the first arrival, elapsed e = 0.503 µs, finish f = 0.687 µs (means over 3 operations)"
has "$F" "thread 3 on B: arrival a = 0.090 µs after the first arrival, elapsed e = 0.823 µs, finish f = 0.913 µs (means over 3 operations)"
has "$F" "host B (rank 1): arrival a = 0.173 µs after the first arrival, elapsed e = 0.740 µs, finish f = 0.913 µs"
# ē per op = mean of the 5 threads' e: op 0 (800+580+380+890+700)/5 = 670,
# op 1 (220+600+500+830+870)/5 = 604, op 2 (490+300+590+750+620)/5 = 550;
# mean 608, median 604
has "$F" "mean 0.608 µs"
has "$F" "median 0.604 µs"

# ---- timemap of thread 0 (gred3), no arrival waits ---------------------------
# Path g0 -> top -> root.  Per op (0, 1, 2), from the visit tables:
#   g0 down  = t2 - t1 of the last arrival: 430-400, 10520-10500, 20330-20300
#              = 30, 20, 30 -> 26.667;  top down: last arrival p1, g0, p1:
#              620-600, 10540-10520, 20470-20450 = 20, 20, 20 -> 20
#   root     = t4 - t1: 80, 60, 60 -> 66.667
#   top up   = first departure - t3: 730-700, 10630-10600, 20570-20530 -> 33.333
#   top departure wait of g0: 760-730, 10650-10630, 20580-20570 -> 20
#   g0 up    = 780-760, 10680-10650, 20600-20580 -> 23.333
#   g0 departure wait of thread 0: 800-780, 10720-10680, 20640-20600 -> 33.333
# x = 0 at entering root: the path starts at -(26.667 + 20) = -46.667 and ends
# at 66.667 + 33.333 + 20 + 23.333 + 33.333 = 176.667; the drawn stages add up
# to 46.667 + 176.667 = 223.333; the thread's time per allreduce is
# (800 + 220 + 490) / 3 = 503.333.
F=$S/gred3-timemap-wait.svg
has "$F" "time per allreduce (mean) 0.503 µs, without arrival waits 0.223 µs"
F=$S/gred3-timemap-compare.svg
has "$F" "gred g0: down
mean 0.027 µs, median 0.030 µs, n 3
from -0.047 to -0.020 µs (0 = entering the core)"
has "$F" "core root: latency
mean 0.067 µs, median 0.060 µs, n 3
from 0.000 to 0.067 µs (0 = entering the core)"
has "$F" "gred g0: departure wait
mean 0.033 µs, median 0.040 µs, n 3
from 0.143 to 0.177 µs (0 = entering the core)"

# ---- departures of the whole tree (gred3), by departure order -----------------
# t4 of the 5 threads at their entry wrappers, sorted, minus the first:
#   op 0: 780 800 830 1000 1040        -> 0 20 50 220 260
#   op 1: 10680 10700 10720 10920 10950 -> 0 20 40 240 270
#   op 2: 20600 20640 20640 20820 20850 -> 0 40 40 220 250
# means 0, 26.667, 43.333, 226.667, 260.  Up latency of the subtree: the up
# latencies on the first departure's path (thread 2, 1, 1): top + g0 =
# 30+20, 30+30, 40+20 -> 56.667
F=$S/gred3-departures-root.svg
has "$F" "departure 1 of 5 (x = 0)
up latency 0.057 µs + departure wait 0.000 µs = 0.057 µs"
has "$F" "departure 2 of 5 (x = 1)
up latency 0.057 µs + departure wait 0.027 µs = 0.083 µs"
has "$F" "departure 4 of 5 (x = 3)
up latency 0.057 µs + departure wait 0.227 µs = 0.283 µs"
has "$F" "departure 5 of 5 (x = 4)
up latency 0.057 µs + departure wait 0.260 µs = 0.317 µs"
# gred top: up 33.333 (above); the second departure waits 30, 20, 10 -> 20
F=$S/gred3-departures-top.svg
has "$F" "departure 2 of 2 (x = 1)
up latency 0.033 µs + departure wait 0.020 µs = 0.053 µs"

# ---- the algorithm node (synth_trace algo: hosts A, B, C = ranks 0, 1, 2) ----
# Operation 0, times in ns on the trace's time line: t1 = 500, 800, 200,
# t4 = 2900, 3000, 2700, so t0 = 200 (C), span 3000 - 200 = 2800, arrival
# spread 800 - 200 = 600.  Its messages (send post, send done, receive post,
# receive done): round 0 B->A 900 1000 600 1100 (A waits 300), round 1 C->A
# 300 1500 1150 1400, round 2 A->B 1500 1700 1100 1800 (B waits 400) and A->C
# 1510 1720 1600 1900.  Late senders: 300 + 400 = 700, the longest 400 on B in
# round 2.  Relative to t0, A->B is sent at 1.300, done 1.500, received from
# 0.900 to 1.600 µs.
F=$S/algo-schedule-op0.svg
has "$F" "Span 2.800 µs, arrival spread 0.600 µs; late senders cost 0.700 µs over all hosts, the longest wait 0.400 µs on B (rank 1) in round 2."
has "$F" "host A, rank 0 of 3 in the node
arrives t1 = 0.300 µs, departs t4 = 2.700 µs (from t0)
at the node e = t4 - t1 = 2.400 µs
waiting for late senders: 0.300 µs (1 receive)"
has "$F" "round 2: A (rank 0) → B (rank 1), 4 bytes
send posted 1.300, completed 1.500 µs
receive posted 0.900, completed 1.600 µs
late sender: 0.400 µs"
has "$F" "B (rank 1) waits 0.400 µs for A (rank 0) in round 2: late sender
receive posted at 0.900 µs, the send only at 1.300 µs"
has "$F" "waiting for late senders: 0.000 µs (0 receives)"
# the tree: the node spans A, B and C; C's thread 4 enters it directly
F=$S/algo-tree.svg
has "$F" "joins 3 hosts (rank in the algorithm: host): 0: A, 1: B, 2: C"
has "$F" "thread 4 → across: host C joins the algorithm as rank 2 of 3"
has "$F" ">run=binomial-reduce bcast=binomial-bcast root=A</text>"
