/*
 * ip_report_int.h - paprun --report: per call site, what the program's
 * collectives cost, printed at MPI_Finalize by rank 0 (docs/paprun.md,
 * "The report").
 *
 * Each call is added on the thread that made it; at the end every rank's
 * figures are gathered to rank 0, which joins them by call site name
 * (cm_site_name: the same on every rank) and prints one table: per site
 * and collective, calls, bytes, the algorithm(s), mean time in the call,
 * the wait spread (the largest minus the smallest of the ranks' mean time
 * in the call: how long the earliest ranks wait for the latest, which is
 * the rank with the smallest mean), and fallbacks per reason.
 */
#ifndef IP_REPORT_INT_H
#define IP_REPORT_INT_H

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include "instrument/api/ins_mpi.h"

typedef struct ip_report ip_report_t;

/* An empty report; NULL out of memory.  Freed with ip_report_free. */
ip_report_t *ip_report_create(void);

/* Frees r and every thread's table (NULL: nothing).  No thread may add to
   r any more. */
void ip_report_free(ip_report_t *r);

/*
 * One call; any thread, no lock after the thread's first call on r (which
 * allocates the thread's table and links it into r under a mutex).  Rows
 * are keyed by (site, func, algo pointer); site is the caller's return
 * address; algo is "native" or the rule's text (static or kept as long
 * as the library); fallback is INS_FB_NONE or why the rule's algorithm
 * did not run; ns the time in the call.  A call that cannot be counted
 * (out of memory) is counted as such and reported.
 */
void ip_report_add(ip_report_t *r, const void *site, ins_mpi_func_t func, const char *algo,
                   ins_mpi_fallback_t fallback, uint64_t bytes, uint64_t ns);

/*
 * One choice of an auto rule for a call already added (same site, func
 * and algo, the rule's text): `chosen` (the candidate's name, static or
 * kept as long as the library) is counted on the row.  The row's
 * algorithm is then printed as its choices: "auto: prr 62%, ring 38%"
 * (each candidate's share of the row's choices over all ranks, rounded,
 * most chosen first).  Any thread, as ip_report_add.
 */
void ip_report_chose(ip_report_t *r, const void *site, ins_mpi_func_t func, const char *algo,
                     const char *chosen);

/*
 * Collective over comm (the library's duplicate of MPI_COMM_WORLD; PMPI_
 * calls only): rank 0 prints the table to out (the other ranks' out is
 * not used and may be NULL).  Call it once no thread adds any more (at
 * MPI_Finalize, when every MPI call of the program has completed).  The
 * table, one row per (site, collective, algorithm text) over all ranks,
 * most time lost waiting (spread x calls) first:
 *
 *   site        function file:line (addr2line -f -C on rank 0 on the site's
 *               module; a label longer than 24 characters gets a line of
 *               its own), else dladdr's symbol, else module+0xOFFSET
 *   collective  MPI_Allreduce, ...
 *   calls       per rank: the most of any rank
 *   bytes       per call: all ranks' bytes over all ranks' calls
 *   algorithm   the algorithm text; for an auto rule its choices,
 *               "auto: prr 62%, ring 38%" (ip_report_chose)
 *   mean        us in the call: the mean over ranks of each rank's mean
 *   spread      us: the largest rank mean minus the smallest
 *   last        the rank with the smallest mean, the last to arrive ("-"
 *               when the spread is 0 or one rank made the calls)
 *   fallbacks   per reason, the most of any rank, most first: "count: 12,
 *               datatype: 3", or "-"; on a line of their own, under the
 *               collective, when the row would be wider than 100 columns
 *
 * Rows join by the site's name (cm_site_name), so one site is one row on
 * every rank; a collective whose ranks call it from different sites is
 * one row per site.  Out of memory or if the gather fails, rank 0 prints
 * one line that says so instead of the table.
 */
void ip_report_print(ip_report_t *r, MPI_Comm comm, FILE *out);

#endif /* IP_REPORT_INT_H */
