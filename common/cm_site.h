/*
 * cm_site.h - a code address of this process as a name that outlives it:
 * "MODULE+0xOFFSET", where MODULE is the path of the executable or shared
 * object that holds the address and OFFSET is the address that
 * `addr2line -e MODULE` takes (the offset from the module's load address
 * for a position-independent module, the address itself for a fixed one).
 * The same call site has the same name on every rank, whatever address
 * space layout each process got.
 */
#ifndef CM_SITE_H
#define CM_SITE_H

#include <stddef.h>

/*
 * Writes the name of `addr` into buf (always NUL-terminated; truncated to
 * size).  An address in no module is "?+0xADDR".  Returns buf.  Not
 * async-signal-safe (dladdr); thread-safe.
 */
char *cm_site_name(const void *addr, char *buf, size_t size);

#endif /* CM_SITE_H */
