/*
 * viz_algo.c - the one text of an algorithm node's parameters (viz_algo_int.h).
 */
#include <stdarg.h>
#include <stdio.h>

#include "viz/viz_algo_int.h"

/* Appends to buf at *at, never past len - 1 bytes. */
static void add(char *buf, size_t len, size_t *at, const char *fmt, ...)
{
    va_list ap;
    int n;

    if (*at >= len)
        return;
    va_start(ap, fmt);
    n = vsnprintf(buf + *at, len - *at, fmt, ap);
    va_end(ap);
    if (n > 0)
        *at = *at + (size_t)n < len ? *at + (size_t)n : len;
}

void viz_algo_text(const an_model_algo_t *a, char *buf, size_t len)
{
    size_t at = 0;

    if (len == 0)
        return;
    buf[0] = '\0';
    if (a == NULL || a->algo == NULL || a->algo[0] == '\0')
        return;
    add(buf, len, &at, "run=%s", a->algo);
    if (a->bcast != NULL && a->bcast[0] != '\0')
        add(buf, len, &at, " bcast=%s", a->bcast);
    if (a->root >= 0)
        add(buf, len, &at, " root=%d", a->root);
    if (a->arrival != NULL && a->arrival[0] != '\0')
        add(buf, len, &at, " arrival=%s", a->arrival);
}
