/*
 * ring.c - ring allreduce (reduce-scatter, then allgather), plain and
 * segmented, Open MPI convention.
 *
 * Source: Open MPI's coll/base (docs/references.md):
 * open-mpi/ompi ompi/mca/coll/base/coll_base_allreduce.c,
 * ompi_coll_base_allreduce_intra_ring and ..._ring_segmented.
 *
 * "ring".  The vector is cut into P blocks with the EL partition (the
 * first n mod P blocks one element larger); piece b is block b.  Rank r
 * sends to right = r+1 and receives from left = r-1 (mod P) in every round:
 *
 *   reduce-scatter, round k = 0..P-2:  send block (r-k) mod P     (reduce)
 *                                      recv block (r-k-1) mod P   (reduce)
 *   allgather, round P-1+k:            send block (r+1-k) mod P   (copy)
 *                                      recv block (r-k) mod P     (copy)
 *
 * so block b is reduced along the ring starting at rank b and is complete at
 * rank b-1 after round P-2.  Worked example, P = 4, n = 10: blocks
 * b0=[0,3) b1=[3,6) b2=[6,8) b3=[8,10); "0>1:b0" is rank 0 sending b0 to 1.
 *
 *   round 0  0>1:b0 1>2:b1 2>3:b2 3>0:b3   reduce
 *   round 1  0>1:b3 1>2:b0 2>3:b1 3>0:b2   reduce
 *   round 2  0>1:b2 1>2:b3 2>3:b0 3>0:b1   reduce  (now r owns b(r+1))
 *   round 3  0>1:b1 1>2:b2 2>3:b3 3>0:b0   copy
 *   round 4  0>1:b0 1>2:b1 2>3:b2 3>0:b3   copy
 *   round 5  0>1:b3 1>2:b0 2>3:b1 3>0:b2   copy
 *
 * "ring-seg".  Reads p->segcount (elements, > 0).  The number of
 * phases is np = n div (P*segcount), plus one when the remainder
 * rem = n mod (P*segcount) satisfies rem >= P and rem > (P*segcount) div 2.
 * Each EL block is cut again with EL into np pieces; the reduce-scatter runs
 * once per phase on piece ph of every block (rounds ph*(P-1)+k), then one
 * plain allgather moves whole blocks (rounds np*(P-1)+k): (np+1)(P-1)
 * rounds.  The partition is block-major, piece ph of block b being piece
 * b*np+ph, so a whole block is a contiguous piece range.  Worked example,
 * P = 4, n = 16, segcount = 2: np = 2, blocks of 4, pieces of 2 elements
 * (bX.pY covers [4X+2Y, 4X+2Y+2)):
 *
 *   rounds 0-2  as the plain ring's rounds 0-2 on b0.p0, b1.p0, b2.p0, b3.p0
 *               (round 0: 0>1:b0.p0 [0,2), 1>2:b1.p0 [4,6), ...; reduce)
 *   rounds 3-5  the same on the .p1 pieces (round 3: 0>1:b0.p1 [2,4), ...)
 *   rounds 6-8  the plain ring's allgather on whole blocks (round 6:
 *               0>1:b1 [4,8), 1>2:b2, 2>3:b3, 3>0:b0 [0,4); copy)
 *
 * When the phase rule gives np = 0 (n < P, or n <= (P*segcount) div 2) the
 * generator uses np = 1, whose schedule is exactly the plain ring's: that is
 * the degenerate case of the same algorithm, not a fallback to another one.
 * Open MPI switches to the plain ring whenever n < P*segcount (and from
 * there to recursive doubling when n < P); for n >= P its rule gives np = 1
 * in those cases too, so the schedules agree; for n < P we keep the ring
 * with empty blocks instead of switching algorithms.
 *
 * Flags: reduce-scatter sends carry RT_STEP_MOVE (the sender never reads
 * that block again until the allgather overwrites it), allgather sends
 * RT_STEP_FINAL.  Receives carry the same flags as their sends.
 *
 * Port model: B.  Every rank sends and receives in every round, but to
 * different peers (right and left) once P > 2, so the pairwise-exchange
 * model X does not hold.
 *
 * Limitations: commutative operations only (the ring reduces blocks in a
 * rank-rotated order).  n < P gives empty blocks, sent as empty messages.
 * P = 1 has no steps.  ring-seg rejects segcount <= 0 (and so nsegs) with
 * CM_ERR_INVALID, and phase counts whose pieces or rounds do not fit int32
 * with CM_ERR_UNSUPPORTED.
 *
 * Cost: 2(np+1)(P-1) steps per rank, generated directly in round order
 * (O(P*np) for one rank); with rank == -1 the ranks are the outer loop, so
 * the steps arrive grouped by rank and rt_sched_finish has nothing to sort.
 */
#include <stdint.h>
#include <stdlib.h>
#include "runtime/algo/algo_int.h"

/*
 * Open MPI's COLL_BASE_COMPUTED_SEGCOUNT (coll_base_functions.h): a byte
 * segment size to an element count, rounding a leftover above half an
 * element up; a segment size below one element or not below the whole
 * vector means no segmentation (segcount = count).  Declared in algo_int.h.
 */
int64_t rt_algo_ring_segcount(int64_t segsize, int64_t typesize,
                              int64_t count)
{
    int64_t segcount = count;

    if (typesize > 0 && segsize >= typesize && segsize / typesize < count) {
        segcount = segsize / typesize;
        if (segsize - segcount * typesize > typesize / 2)
            segcount++;
    }
    return segcount;
}

/* Appends rank r's steps: np reduce-scatter phases, then the allgather. */
static cm_status_t ring_rank_steps(rt_sched_t *s, int32_t nranks, int32_t np,
                                   int32_t r)
{
    const int32_t right = (r + 1) % nranks;
    const int32_t left = (r + nranks - 1) % nranks;
    const unsigned move = RT_STEP_MOVE, final = RT_STEP_FINAL;
    cm_status_t st = CM_OK;
    int32_t round = 0;

    for (int32_t ph = 0; ph < np; ph++) {
        /* sb = (r-k) mod P is the block sent at step k, rb = sb-1 the one
           received; both walk backwards around the ring. */
        int32_t sb = r;
        for (int32_t k = 0; k < nranks - 1; k++, round++) {
            int32_t rb = sb == 0 ? nranks - 1 : sb - 1;
            st = rt_sched_step(s, r, round, right, RT_STEP_SEND, RT_ACT_REDUCE,
                               move, sb * np + ph, 1);
            if (st == CM_OK)
                st = rt_sched_step(s, r, round, left, RT_STEP_RECV,
                                   RT_ACT_REDUCE, move, rb * np + ph, 1);
            if (st != CM_OK)
                return st;
            sb = rb;
        }
    }
    /* Allgather: rank r starts with its complete block r+1 and forwards
       what it received in the previous round. */
    int32_t sb = right;
    for (int32_t k = 0; k < nranks - 1; k++, round++) {
        int32_t rb = sb == 0 ? nranks - 1 : sb - 1;
        st = rt_sched_step(s, r, round, right, RT_STEP_SEND, RT_ACT_COPY,
                           final, sb * np, np);
        if (st == CM_OK)
            st = rt_sched_step(s, r, round, left, RT_STEP_RECV, RT_ACT_COPY,
                               final, rb * np, np);
        if (st != CM_OK)
            return st;
        sb = rb;
    }
    return CM_OK;
}

/* Appends the steps of every rank (rank == -1) or of one rank, then
   finishes the schedule. */
static cm_status_t ring_build(rt_sched_t *s, const char *name, int32_t np,
                              int32_t rank, cm_err_t *err)
{
    int32_t lo = rank < 0 ? 0 : rank;
    int32_t hi = rank < 0 ? s->nranks : rank + 1;

    if (s->nranks > 1) {
        /* Every rank sends and receives once per round: one allocation. */
        size_t per_rank = 2 * ((size_t)np + 1) * (size_t)(s->nranks - 1);

        if (rt_sched_reserve(s, per_rank * (size_t)(hi - lo)) != CM_OK)
            return CM_ERR(err, CM_ERR_NOMEM, "%s: no memory for %zu steps",
                          name, per_rank * (size_t)(hi - lo));
        for (int32_t r = lo; r < hi; r++) {
            cm_status_t st = ring_rank_steps(s, s->nranks, np, r);
            if (st != CM_OK)
                return CM_ERR(err, st, "%s: appending rank %d's steps failed",
                              name, (int)r);
        }
    }
    return rt_sched_finish(s, err);
}

cm_status_t rt_algo_ring(rt_sched_t *s, const rt_algo_params_t *p,
                         int32_t rank, cm_err_t *err)
{
    cm_status_t st = rt_algo_check_common(p, rank, "ring", err);
    int64_t *off;

    if (st != CM_OK)
        return st;
    off = malloc(((size_t)p->nranks + 1) * sizeof *off);
    if (off == NULL)
        return CM_ERR(err, CM_ERR_NOMEM, "ring: no memory for %d blocks",
                      (int)p->nranks);
    rt_part_el(p->count, p->nranks, off);
    st = rt_sched_begin(s, "ring", RT_COLL_ALLREDUCE, RT_PORT_B, p, rank,
                        p->nranks, off, err);
    free(off);
    if (st != CM_OK)
        return st;
    return ring_build(s, "ring", 1, rank, err);
}

/*
 * The phase count of ring-seg (header), at least 1.  P*segcount may exceed the
 * int64 range; it is then larger than any n, which gives np = 0.
 */
static int64_t ring_seg_phases(int32_t nranks, int64_t n, int64_t segcount)
{
    int64_t chunk, np, rem;

    if (segcount > INT64_MAX / nranks)
        return 1;
    chunk = (int64_t)nranks * segcount;
    np = n / chunk;
    rem = n % chunk;
    if (rem >= nranks && rem > chunk / 2)
        np++;
    return np > 0 ? np : 1;
}

cm_status_t rt_algo_ring_seg(rt_sched_t *s, const rt_algo_params_t *p,
                             int32_t rank, cm_err_t *err)
{
    cm_status_t st = rt_algo_check_common(p, rank, "ring-seg", err);
    int64_t np, q, rq, *off;
    int32_t nranks, npieces;

    if (st != CM_OK)
        return st;
    if (p->segcount <= 0)
        return CM_ERR(err, CM_ERR_INVALID,
                      "ring-seg: needs segcount > 0 elements (got %lld%s)",
                      (long long)p->segcount,
                      p->nsegs > 0 ? "; nsegs is not supported" : "");
    nranks = p->nranks;
    np = ring_seg_phases(nranks, p->count, p->segcount);
    /* P*np pieces and (np+1)(P-1) rounds must fit the int32 fields. */
    if (np > (INT32_MAX - 1) / nranks ||
        (nranks > 1 && np + 1 > INT32_MAX / (nranks - 1)))
        return CM_ERR(err, CM_ERR_UNSUPPORTED,
                      "ring-seg: %lld phases of %d blocks are too many pieces "
                      "or rounds (raise segcount)", (long long)np, (int)nranks);
    npieces = nranks * (int32_t)np;
    off = malloc(((size_t)npieces + 1) * sizeof *off);
    if (off == NULL)
        return CM_ERR(err, CM_ERR_NOMEM, "ring-seg: no memory for %d pieces",
                      (int)npieces);
    /* EL blocks, each cut again with EL into np pieces (block-major). */
    q = p->count / nranks;
    rq = p->count % nranks;
    for (int32_t b = 0; b < nranks; b++) {
        int64_t boff = b * q + (b < rq ? b : rq);
        int64_t bsize = q + (b < rq ? 1 : 0);
        int64_t pq = bsize / np, pr = bsize % np;
        for (int64_t ph = 0; ph < np; ph++)
            off[b * np + ph] = boff + ph * pq + (ph < pr ? ph : pr);
    }
    off[npieces] = p->count;
    st = rt_sched_begin(s, "ring-seg", RT_COLL_ALLREDUCE, RT_PORT_B, p, rank,
                        npieces, off, err);
    free(off);
    if (st != CM_OK)
        return st;
    return ring_build(s, "ring-seg", (int32_t)np, rank, err);
}
