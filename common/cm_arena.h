/*
 * cm_arena.h - a bump allocator for data that lives and dies together.
 *
 * A parsed pathmap is one arena: every name and array in it is carved from
 * a few large blocks and freed at once by cm_arena_destroy.  Nothing is
 * freed individually.  Not thread-safe while allocating; the memory it hands
 * out may be read by any thread afterwards.
 */
#ifndef CM_ARENA_H
#define CM_ARENA_H

#include <stddef.h>

typedef struct cm_arena cm_arena_t;

/* NULL when out of memory. */
cm_arena_t *cm_arena_create(void);
void        cm_arena_destroy(cm_arena_t *arena);

/* Zeroed, 16-byte aligned memory owned by the arena; NULL when out of memory. */
void *cm_arena_alloc(cm_arena_t *arena, size_t size);

/* A NUL-terminated copy of s[0..len) owned by the arena. */
char *cm_arena_strndup(cm_arena_t *arena, const char *s, size_t len);

#endif /* CM_ARENA_H */
