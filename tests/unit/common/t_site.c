/*
 * t_site.c - code addresses as "MODULE+0xOFFSET" (common/cm_site.c).
 *
 * The oracle is binutils' addr2line, which knows nothing of cm_site: the
 * name of a function's address, handed to `addr2line -f -e MODULE
 * OFFSET`, must give that function back, and MODULE must be the running
 * program as /proc/self/exe names it.
 */
#include <gnu/libc-version.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "common/cm_site.h"
#include "tests/tst.h"
#include "tests/test_list.h"

/* A function with a name addr2line can find (the runner is built with -g). */
__attribute__((noinline)) int t_site_marker_fn(int x);
__attribute__((noinline)) int t_site_marker_fn(int x)
{
    return x * 3 + 1;
}

/* Splits "MODULE+0xOFF" at its last '+'. */
static void split(const char *name, char *module, size_t size, char *off, size_t offsize)
{
    const char *plus = strrchr(name, '+');

    TST_NOT_NULL(plus);
    TST_TRUE((size_t)(plus - name) < size);
    memcpy(module, name, (size_t)(plus - name));
    module[plus - name] = '\0';
    snprintf(off, offsize, "%s", plus + 1);
    TST_TRUE(strncmp(off, "0x", 2) == 0);
}

void t_site_main_program(void)
{
    char name[4200], module[4200], off[64], exe[4096], cmd[8400], fn[256] = "";

    cm_site_name((const void *)(uintptr_t)t_site_marker_fn, name, sizeof(name));
    split(name, module, sizeof(module), off, sizeof(off));
    ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    TST_TRUE(n > 0);
    exe[n] = '\0';
    TST_EQ_STR(module, exe);

    snprintf(cmd, sizeof(cmd), "addr2line -f -e '%s' %s", module, off);
    FILE *p = popen(cmd, "r");
    TST_NOT_NULL(p);
    TST_NOT_NULL(fgets(fn, sizeof(fn), p));
    pclose(p);
    fn[strcspn(fn, "\n")] = '\0';
    TST_EQ_STR(fn, "t_site_marker_fn");
    TST_EQ_INT(t_site_marker_fn(2), 7);
}

void t_site_shared_object(void)
{
    char name[4200], module[4200], off[64];

    /* gnu_get_libc_version lives in libc (and no sanitizer intercepts it,
       as ASan does fopen): the module is libc's path, and the offset is
       from libc's base, so far below the address itself. */
    cm_site_name((const void *)(uintptr_t)gnu_get_libc_version, name, sizeof(name));
    split(name, module, sizeof(module), off, sizeof(off));
    TST_TRUE(strstr(module, "/libc.so") != NULL);
    TST_TRUE(strtoull(off, NULL, 16) < (uintptr_t)gnu_get_libc_version);

    /* An address in no module, and a tiny buffer: truncated, terminated. */
    cm_site_name((const void *)(uintptr_t)16, name, sizeof(name));
    TST_EQ_STR(name, "?+0x10");
    char tiny[5];
    cm_site_name((const void *)(uintptr_t)16, tiny, sizeof(tiny));
    TST_EQ_STR(tiny, "?+0x");
}
