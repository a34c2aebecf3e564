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

ip_report_t *ip_report_create(void);
void ip_report_free(ip_report_t *r);

/* One call; any thread.  algo is "native" or the rule's text (static or
   kept as long as the library). */
void ip_report_add(ip_report_t *r, const void *site, ins_mpi_func_t func, const char *algo,
                   ins_mpi_fallback_t fallback, uint64_t bytes, uint64_t ns);

/* Collective over comm (the library's duplicate of MPI_COMM_WORLD): rank
   0 prints the table to out. */
void ip_report_print(ip_report_t *r, MPI_Comm comm, FILE *out);

#endif /* IP_REPORT_INT_H */
