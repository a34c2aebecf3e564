/*
 * cm_arena.c - blocks chained in a list; each allocation bumps a pointer in
 * the newest block, and a request larger than a block gets a block of its
 * own.  Expected workload: thousands of small names and a few arrays.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "common/cm_arena.h"

#define ARENA_BLOCK_SIZE (64u * 1024u)
#define ARENA_ALIGN      16u

typedef struct arena_block {
    struct arena_block *next;
    size_t              used;
    size_t              size;
    _Alignas(16) unsigned char data[];
} arena_block_t;

struct cm_arena {
    arena_block_t *head;
};

cm_arena_t *cm_arena_create(void)
{
    return calloc(1, sizeof(cm_arena_t));
}

void cm_arena_destroy(cm_arena_t *arena)
{
    arena_block_t *block, *next;

    if (arena == NULL)
        return;
    for (block = arena->head; block != NULL; block = next) {
        next = block->next;
        free(block);
    }
    free(arena);
}

static arena_block_t *arena_block_new(size_t size)
{
    arena_block_t *block = malloc(sizeof(*block) + size);

    if (block == NULL)
        return NULL;
    block->next = NULL;
    block->used = 0;
    block->size = size;
    return block;
}

void *cm_arena_alloc(cm_arena_t *arena, size_t size)
{
    arena_block_t *block = arena->head;
    size_t need = (size + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1);
    void *p;

    if (size > SIZE_MAX / 2)
        return NULL;
    if (block == NULL || block->size - block->used < need) {
        block = arena_block_new(need > ARENA_BLOCK_SIZE ? need : ARENA_BLOCK_SIZE);
        if (block == NULL)
            return NULL;
        block->next = arena->head;
        arena->head = block;
    }
    p = block->data + block->used;
    block->used += need;
    memset(p, 0, size);
    return p;
}

char *cm_arena_strndup(cm_arena_t *arena, const char *s, size_t len)
{
    char *copy = cm_arena_alloc(arena, len + 1);

    if (copy == NULL)
        return NULL;
    memcpy(copy, s, len);
    copy[len] = '\0';
    return copy;
}
