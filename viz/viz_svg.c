/*
 * viz_svg.c - SVG drawing primitives (see viz_svg_int.h).
 *
 * The only place that writes SVG syntax.  Text goes through viz_svg_escape;
 * numbers through "%.2f" (the C locale: papviz never calls setlocale), so a
 * document is a pure function of what the charts ask for.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "viz/viz_svg_int.h"

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

/*
 * Decodes the UTF-8 sequence at p (well-formed per Unicode's Table 3-7: no
 * overlong forms, no surrogates, nothing past U+10FFFF).  Returns the bytes
 * it takes, and *cp the code point, or CP_BAD for an ill-formed sequence:
 * then the return is the length of its maximal subpart (the lead byte and
 * the continuation bytes that could still have completed it, at least 1),
 * so that each such subpart becomes one replacement character, as Unicode
 * recommends.  The terminating NUL is never a continuation byte.
 */
#define CP_BAD 0xffffffffu

static int utf8_decode(const unsigned char *p, uint32_t *cp)
{
    unsigned char lo = 0x80, hi = 0xbf;   /* range of the second byte */
    int n;

    *cp = CP_BAD;
    if (p[0] < 0x80) {
        *cp = p[0];
        return 1;
    }
    if (p[0] >= 0xc2 && p[0] <= 0xdf)
        n = 2;
    else if (p[0] >= 0xe0 && p[0] <= 0xef)
        n = 3, lo = p[0] == 0xe0 ? 0xa0 : 0x80, hi = p[0] == 0xed ? 0x9f : 0xbf;
    else if (p[0] >= 0xf0 && p[0] <= 0xf4)
        n = 4, lo = p[0] == 0xf0 ? 0x90 : 0x80, hi = p[0] == 0xf4 ? 0x8f : 0xbf;
    else
        return 1;                          /* 80..C1, F5..FF start nothing */
    if (p[1] < lo || p[1] > hi)
        return 1;
    uint32_t v = p[0] & (0x7f >> n);
    for (int i = 1; i < n; i++) {
        if ((p[i] & 0xc0) != 0x80)
            return i;
        v = v << 6 | (p[i] & 0x3f);
    }
    *cp = v;
    return n;
}

/*
 * May code point c appear in our documents?  XML 1.0's Char production
 * forbids the C0 controls but tab, LF and CR, the surrogates (never decoded
 * here) and U+FFFE, U+FFFF; section 2.2 discourages the controls U+007F..
 * U+009F and the noncharacters (U+FDD0..U+FDEF and the last two code points
 * of every plane), which Unicode reserves for a program's internal use.
 * We drop all of these, forbidden and discouraged alike: a name is text
 * for a reader, and none of them shows as anything.
 */
static int xml_char_ok(uint32_t c)
{
    if (c < 0x20)
        return c == '\t' || c == '\n' || c == '\r';
    if (c >= 0x7f && c <= 0x9f)
        return 0;
    if (c >= 0xfdd0 && c <= 0xfdef)
        return 0;
    return (c & 0xfffe) != 0xfffe && c <= 0x10ffff;
}

/* U+FFFD REPLACEMENT CHARACTER, in UTF-8. */
static const char replacement[] = "\xef\xbf\xbd";

void viz_svg_escape(FILE *out, const char *s)
{
    if (s == NULL)
        return;
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        uint32_t c;
        int n = utf8_decode(p, &c);

        if (c == CP_BAD || !xml_char_ok(c)) {
            fputs(replacement, out);
        } else {
            switch (c) {
            case '&':  fputs("&amp;", out); break;
            case '<':  fputs("&lt;", out); break;
            case '>':  fputs("&gt;", out); break;
            case '"':  fputs("&quot;", out); break;
            case '\'': fputs("&#39;", out); break;
            /* A raw CR would reach the reader as LF (as a space in an
               attribute): the reference keeps it. */
            case '\r': fputs("&#13;", out); break;
            default:   fwrite(p, 1, (size_t)n, out);
            }
        }
        p += n;
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
