/*
 * cm_site.c - code addresses as "MODULE+0xOFFSET" (cm_site.h).
 */
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "common/cm_site.h"

/* The main program's path: dladdr names it as the kernel was told
   (argv[0], possibly relative), /proc/self/exe as it is. */
static char cm_site_exe[4096];
static pthread_once_t cm_site_once = PTHREAD_ONCE_INIT;

static void cm_site_read_exe(void)
{
    ssize_t n = readlink("/proc/self/exe", cm_site_exe, sizeof(cm_site_exe) - 1);

    cm_site_exe[n > 0 ? n : 0] = '\0';
}

/* Whether the ELF image mapped at base is position-independent (ET_DYN),
   whose addresses addr2line takes as offsets from the base. */
static int cm_site_is_pic(const void *base)
{
    const unsigned char *ident = base;

    if (memcmp(ident, ELFMAG, SELFMAG) != 0)
        return 1;
    if (ident[EI_CLASS] == ELFCLASS64)
        return ((const Elf64_Ehdr *)base)->e_type == ET_DYN;
    return ((const Elf32_Ehdr *)base)->e_type == ET_DYN;
}

/* Whether base is the main program's load address: the first module
   dl_iterate_phdr reports, at its bias plus its lowest segment. */
static int cm_site_main_cb(struct dl_phdr_info *info, size_t size, void *data)
{
    uintptr_t low = UINTPTR_MAX;

    (void)size;
    for (int i = 0; i < info->dlpi_phnum; i++)
        if (info->dlpi_phdr[i].p_type == PT_LOAD && info->dlpi_phdr[i].p_vaddr < low)
            low = info->dlpi_phdr[i].p_vaddr;
    *(uintptr_t *)data = info->dlpi_addr + (low == UINTPTR_MAX ? 0 : low);
    return 1;   /* the first one only */
}

static int cm_site_is_main(const void *base)
{
    uintptr_t main_base = 0;

    dl_iterate_phdr(cm_site_main_cb, &main_base);
    return (uintptr_t)base == main_base;
}

char *cm_site_name(const void *addr, char *buf, size_t size)
{
    Dl_info info;

    if (size == 0)
        return buf;
    if (dladdr(addr, &info) == 0 || info.dli_fbase == NULL) {
        snprintf(buf, size, "?+0x%" PRIxPTR, (uintptr_t)addr);
        return buf;
    }
    const char *module = info.dli_fname;
    /* The main program: glibc names it by argv[0] (maybe relative) or "". */
    if (module == NULL || module[0] != '/') {
        pthread_once(&cm_site_once, cm_site_read_exe);
        if (cm_site_exe[0] != '\0' && cm_site_is_main(info.dli_fbase))
            module = cm_site_exe;
    }
    uintptr_t off = (uintptr_t)addr;
    if (cm_site_is_pic(info.dli_fbase))
        off -= (uintptr_t)info.dli_fbase;
    snprintf(buf, size, "%s+0x%" PRIxPTR, module, off);
    return buf;
}
