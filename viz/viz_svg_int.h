/*
 * viz_svg_int.h - SVG drawing primitives, apart from any data (perf's svghelper,
 * without its globals and with escaping).
 *
 * A viz_svg_t is an explicit writer: the FILE and the canvas size.  Every
 * piece of text that reaches the file goes through viz_svg_escape, so names
 * from a pathmap or a database can never inject markup.  Numbers are printed
 * with fixed formats ("%.2f" for coordinates) and no locale, so the same
 * input always gives the same bytes (golden tests rely on it).
 *
 * Marks that carry data sit in a <g> whose first child is a <title>: the
 * browser shows it as a tooltip.  Classes: one <style> per document; the
 * common classes are listed in viz_svg.c, and node kinds use their pathmap
 * keywords ("gred", "proxy", "core", "algo") as class names.
 *
 * Write errors are sticky in the FILE; the caller checks ferror/fclose.
 */
#ifndef VIZ_SVG_INT_H
#define VIZ_SVG_INT_H

#include <stdio.h>

typedef struct viz_svg {
    FILE  *out;
    double width, height;
} viz_svg_t;

typedef enum { VIZ_START, VIZ_MIDDLE, VIZ_END } viz_anchor_t;

/* Starts a document of w x h pixels: XML declaration, <svg>, a <title>
 * (escaped) and the <style> with the common classes plus `css` (trusted,
 * from the program; may be NULL), and a white background. */
void viz_svg_begin(viz_svg_t *s, FILE *out, double w, double h, const char *title,
                   const char *css);
void viz_svg_end(viz_svg_t *s);

/* Writes s with & < > " ' escaped and CR as &#13;.  Every character XML
 * 1.0 forbids (C0 controls but tab, LF and CR; U+FFFE, U+FFFF) or
 * discourages (U+007F..U+009F; the noncharacters U+FDD0..U+FDEF and
 * U+xFFFE, U+xFFFF of every plane) becomes U+FFFD, and so does each
 * maximal subpart of ill-formed UTF-8 (overlong forms, surrogates, past
 * U+10FFFF, cut short, stray continuation bytes).  NULL writes nothing. */
void viz_svg_escape(FILE *out, const char *s);

/* <g class="cls"><title>tooltip</title> ... </g>.  The tooltip is a printf
 * format; its result is escaped.  cls may be NULL. */
void viz_svg_group_begin(viz_svg_t *s, const char *cls, const char *tooltip_fmt, ...)
    __attribute__((format(printf, 3, 4)));
void viz_svg_group_end(viz_svg_t *s);

/* Shapes.  cls may be NULL; fill / stroke override the class's colour
 * ("#rrggbb" or NULL). */
void viz_svg_rect(viz_svg_t *s, double x, double y, double w, double h, const char *cls,
                  const char *fill);
void viz_svg_line(viz_svg_t *s, double x1, double y1, double x2, double y2, const char *cls);
void viz_svg_polyline(viz_svg_t *s, const double *x, const double *y, int n, const char *cls,
                      const char *stroke);
void viz_svg_circle(viz_svg_t *s, double cx, double cy, double r, const char *cls,
                    const char *fill);
void viz_svg_ellipse(viz_svg_t *s, double cx, double cy, double rx, double ry, const char *cls,
                     const char *fill);

/* Text at (x, y) (baseline), printf format, escaped.  _vertical rotates it
 * by -90 degrees around (x, y) (y-axis labels). */
void viz_svg_text(viz_svg_t *s, double x, double y, viz_anchor_t anchor, const char *cls,
                  const char *fmt, ...) __attribute__((format(printf, 6, 7)));
void viz_svg_text_vertical(viz_svg_t *s, double x, double y, const char *cls,
                           const char *fmt, ...) __attribute__((format(printf, 5, 6)));

#endif /* VIZ_SVG_INT_H */
