/*
 * viz_svg.c - SVG drawing primitives (see viz_svg.h).
 *
 * The only place that writes SVG syntax.  Text goes through viz_svg_escape;
 * numbers through "%.2f" (the C locale: papviz never calls setlocale), so a
 * document is a pure function of what the charts ask for.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "viz/viz_svg.h"

/* Classes every chart may use.  Node kinds keep their pathmap keywords. */
static const char common_css[] =
    "text{font-family:'DejaVu Sans',Verdana,Arial,sans-serif;font-size:12px;fill:#222}\n"
    ".title{font-size:16px;font-weight:bold}\n"
    ".subtitle{font-size:12px;fill:#555}\n"
    ".small{font-size:10px}\n"
    ".axis{stroke:#333;stroke-width:1}\n"
    ".tick{stroke:#333;stroke-width:1}\n"
    ".grid{stroke:#e4e4e4;stroke-width:1}\n"
    ".zero{stroke:#888;stroke-width:1;stroke-dasharray:4 3}\n"
    ".legend{fill:#fff;stroke:#bbb}\n"
    ".series{fill:none;stroke-width:1.5}\n"
    ".host{fill:#f6f6f6;stroke:#999}\n"
    ".edge{stroke:#777;stroke-width:1.2;fill:none}\n"
    ".gred{fill:#cfe3f7;stroke:#2a6099}\n"
    ".proxy{fill:#fde7c8;stroke:#b3690e}\n"
    ".core{fill:#f7cfcf;stroke:#a12a2a}\n"
    ".algo{fill:#dff2d8;stroke:#3c7a2a;stroke-dasharray:3 2}\n"
    ".thread{fill:#fff;stroke:#444}\n";

/* Length of the valid UTF-8 sequence at p (2..4), or 0. */
static int utf8_len(const unsigned char *p)
{
    int n = p[0] >= 0xf0 && p[0] <= 0xf4 ? 4 : p[0] >= 0xe0 ? 3 : p[0] >= 0xc2 ? 2 : 0;
    for (int i = 1; i < n; i++)
        if ((p[i] & 0xc0) != 0x80)
            return 0;
    return n;
}

void viz_svg_escape(FILE *out, const char *s)
{
    if (s == NULL)
        return;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p >= 0x80) {       /* copy valid UTF-8; anything else is '?' */
            int n = utf8_len(p);
            if (n == 0) {
                fputc('?', out);
            } else {
                fwrite(p, 1, (size_t)n, out);
                p += n - 1;
            }
            continue;
        }
        switch (*p) {
        case '&':  fputs("&amp;", out); break;
        case '<':  fputs("&lt;", out); break;
        case '>':  fputs("&gt;", out); break;
        case '"':  fputs("&quot;", out); break;
        case '\'': fputs("&#39;", out); break;
        default:
            fputc(*p < 0x20 && *p != '\t' && *p != '\n' ? '?' : *p, out);
        }
    }
}

/* Formats and escapes; a format that cannot be formatted writes nothing. */
static void escape_v(FILE *out, const char *fmt, va_list ap)
{
    char buf[512];
    va_list aq;
    va_copy(aq, ap);
    int n = vsnprintf(buf, sizeof buf, fmt, aq);
    va_end(aq);
    if (n < 0)
        return;
    if ((size_t)n < sizeof buf) {
        viz_svg_escape(out, buf);
        return;
    }
    char *big = malloc((size_t)n + 1);
    if (big == NULL)
        return;
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    viz_svg_escape(out, big);
    free(big);
}

void viz_svg_begin(viz_svg_t *s, FILE *out, double w, double h, const char *title,
                   const char *css)
{
    s->out = out;
    s->width = w;
    s->height = h;
    fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
            "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%.0f\""
            " height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\">\n<title>", w, h, w, h);
    viz_svg_escape(out, title);
    fprintf(out, "</title>\n<style>\n%s%s</style>\n", common_css, css ? css : "");
    fprintf(out, "<rect x=\"0\" y=\"0\" width=\"%.0f\" height=\"%.0f\" fill=\"#ffffff\"/>\n",
            w, h);
}

void viz_svg_end(viz_svg_t *s)
{
    fputs("</svg>\n", s->out);
}

static void attr_class(FILE *out, const char *cls)
{
    if (cls != NULL) {
        fputs(" class=\"", out);
        viz_svg_escape(out, cls);
        fputc('"', out);
    }
}

static void attr_colour(FILE *out, const char *name, const char *colour)
{
    if (colour != NULL) {
        fprintf(out, " %s=\"", name);
        viz_svg_escape(out, colour);
        fputc('"', out);
    }
}

void viz_svg_group_begin(viz_svg_t *s, const char *cls, const char *tooltip_fmt, ...)
{
    fputs("<g", s->out);
    attr_class(s->out, cls);
    fputs("><title>", s->out);
    va_list ap;
    va_start(ap, tooltip_fmt);
    escape_v(s->out, tooltip_fmt, ap);
    va_end(ap);
    fputs("</title>\n", s->out);
}

void viz_svg_group_end(viz_svg_t *s)
{
    fputs("</g>\n", s->out);
}

void viz_svg_rect(viz_svg_t *s, double x, double y, double w, double h, const char *cls,
                  const char *fill)
{
    fprintf(s->out, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\"",
            x, y, w < 0 ? 0 : w, h < 0 ? 0 : h);
    attr_class(s->out, cls);
    attr_colour(s->out, "fill", fill);
    fputs("/>\n", s->out);
}

void viz_svg_line(viz_svg_t *s, double x1, double y1, double x2, double y2, const char *cls)
{
    fprintf(s->out, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\"", x1, y1, x2, y2);
    attr_class(s->out, cls);
    fputs("/>\n", s->out);
}

void viz_svg_polyline(viz_svg_t *s, const double *x, const double *y, int n, const char *cls,
                      const char *stroke)
{
    fputs("<polyline points=\"", s->out);
    for (int i = 0; i < n; i++)
        fprintf(s->out, "%s%.2f,%.2f", i ? " " : "", x[i], y[i]);
    fputc('"', s->out);
    attr_class(s->out, cls);
    attr_colour(s->out, "stroke", stroke);
    fputs("/>\n", s->out);
}

void viz_svg_circle(viz_svg_t *s, double cx, double cy, double r, const char *cls,
                    const char *fill)
{
    fprintf(s->out, "<circle cx=\"%.2f\" cy=\"%.2f\" r=\"%.2f\"", cx, cy, r);
    attr_class(s->out, cls);
    attr_colour(s->out, "fill", fill);
    fputs("/>\n", s->out);
}

void viz_svg_ellipse(viz_svg_t *s, double cx, double cy, double rx, double ry, const char *cls,
                     const char *fill)
{
    fprintf(s->out, "<ellipse cx=\"%.2f\" cy=\"%.2f\" rx=\"%.2f\" ry=\"%.2f\"", cx, cy, rx, ry);
    attr_class(s->out, cls);
    attr_colour(s->out, "fill", fill);
    fputs("/>\n", s->out);
}

static const char *const anchor_name[] = {
    [VIZ_START] = "start", [VIZ_MIDDLE] = "middle", [VIZ_END] = "end",
};

/* Ends a <text> start tag begun by the caller: class, the escaped text, </text>. */
static void text_rest(FILE *out, const char *cls, const char *fmt, va_list ap)
{
    attr_class(out, cls);
    fputc('>', out);
    escape_v(out, fmt, ap);
    fputs("</text>\n", out);
}

void viz_svg_text(viz_svg_t *s, double x, double y, viz_anchor_t anchor, const char *cls,
                  const char *fmt, ...)
{
    fprintf(s->out, "<text x=\"%.2f\" y=\"%.2f\"", x, y);
    if (anchor != VIZ_START)
        fprintf(s->out, " text-anchor=\"%s\"", anchor_name[anchor]);
    va_list ap;
    va_start(ap, fmt);
    text_rest(s->out, cls, fmt, ap);
    va_end(ap);
}

void viz_svg_text_vertical(viz_svg_t *s, double x, double y, const char *cls,
                           const char *fmt, ...)
{
    fprintf(s->out, "<text x=\"%.2f\" y=\"%.2f\" text-anchor=\"middle\""
            " transform=\"rotate(-90 %.2f %.2f)\"", x, y, x, y);
    va_list ap;
    va_start(ap, fmt);
    text_rest(s->out, cls, fmt, ap);
    va_end(ap);
}
