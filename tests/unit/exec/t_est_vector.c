/*
 * t_est_vector.c - the arrival estimator's vector (rt__est_vector,
 * runtime/exec/estimate.c): relative to the earliest host, capped, and
 * with the dead band, times within the largest shared estimation error of
 * the earliest count as on time.  Expected vectors worked out by hand.
 */
#include <stdint.h>
#include "tests/tst.h"
#include "tests/test_list.h"
#include "runtime/exec/exec_int.h"

/* Records of 4 hosts: {estimate, flag, previous arrival, recent error}. */
static const int64_t rec[4 * 4] = {
    1000, 1, 500, 40,       /* host 0 */
    1030, 1, 480, 25,       /* host 1: 30 after the earliest, within 40 */
    1900, 1, 700, 10,       /* host 2: 900 after */
    1041, 1, 520, 0,        /* host 3: 41 after, just outside the band */
};

void t_est_vector_band(void)
{
    int64_t v[4];

    rt__est_vector(rec, 4, 0, INT64_MAX, true, v);
    TST_EQ_INT(v[0], 0);
    TST_EQ_INT(v[1], 0);                /* 30 <= 40: noise, on time */
    TST_EQ_INT(v[2], 900);
    TST_EQ_INT(v[3], 41);               /* 41 > 40: late by 41 */
}

void t_est_vector_no_band_history_cap(void)
{
    int64_t v[4];

    rt__est_vector(rec, 4, 0, INT64_MAX, false, v);      /* no band: as gathered */
    TST_EQ_INT(v[1], 30);
    TST_EQ_INT(v[3], 41);
    rt__est_vector(rec, 4, 2, INT64_MAX, false, v);      /* history: previous arrivals */
    TST_EQ_INT(v[0], 20);
    TST_EQ_INT(v[1], 0);
    TST_EQ_INT(v[2], 220);
    TST_EQ_INT(v[3], 40);
    rt__est_vector(rec, 4, 0, 500, true, v);             /* a late host is capped */
    TST_EQ_INT(v[2], 500);
    TST_EQ_INT(v[3], 41);
}
