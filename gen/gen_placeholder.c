/* Placeholder so that bin/pathgen links before gen/'s sources land; the
 * model's helper removes this file when gen_write.c lands. */
#include <stddef.h>
#include "gen/api/gen_map.h"

cm_status_t gen_map_render(const gen_map_t *m, char **text_p, cm_err_t *err)
{
    (void)m;
    (void)text_p;
    return CM_ERR(err, CM_ERR_UNSUPPORTED, "gen_map_render: not built yet");
}
