/*
 * gen_input_int.h - helpers shared by pathgen's input readers
 * (gen/gen_input.c, gen/gen_input_map.c) and gen_build.  Internal to gen/.
 */
#ifndef GEN_INPUT_INT_H
#define GEN_INPUT_INT_H

#include <stdint.h>
#include "gen/api/gen_build.h"

#define GEN_INPUT_HOSTS_MAX   4096u      /* RT_PATHMAP_HOSTS_MAX */
#define GEN_INPUT_THREADS_MAX 65536u     /* threads per tree the parser takes */

/* Append to the input; 0, or -1 when out of memory. */
int gen_input_add_cluster(gen_input_t *in, const char *name);
int gen_input_add_host(gen_input_t *in, const char *name, uint32_t cpus, uint32_t cluster,
                       int gateway);
/* Appends fmt (one %s: arg) to in->sources, after a space. */
int gen_input_add_source(gen_input_t *in, const char *fmt, const char *arg);
/* The host called name, or GEN_NONE. */
uint32_t gen_input_find_host(const gen_input_t *in, const char *name);

#endif /* GEN_INPUT_INT_H */
