/*
 * t_svg.c - the SVG escaper (viz/viz_svg.c) on hand-written byte strings.
 *
 * Every piece of text papviz writes goes through viz_svg_escape, so what it
 * lets through decides whether a document is well-formed XML.  XML 1.0's
 * Char production allows #x9 | #xA | #xD | [#x20-#xD7FF] | [#xE000-#xFFFD]
 * | [#x10000-#x10FFFF]; the escaper also replaces the Unicode noncharacters
 * (U+FDD0..U+FDEF, the last two code points of every plane) and the
 * controls U+007F..U+009F, which XML 1.0 section 2.2 discourages.  R below
 * is U+FFFD, the replacement, in UTF-8.  Ill-formed UTF-8 gives one R per
 * maximal subpart (Unicode 15, section 3.9, "U+FFFD substitution of maximal
 * subparts"): a lead byte with the continuation bytes that could still
 * have completed it, or a lone byte that cannot start a sequence.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/tst.h"
#include "tests/test_list.h"
#include "viz/viz_svg_int.h"

#define R "\xef\xbf\xbd"

/* What viz_svg_escape writes for s (the caller frees it). */
static char *escaped(const char *s)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);

    TST_TRUE(out != NULL);
    viz_svg_escape(out, s);
    TST_EQ_INT(fclose(out), 0);
    return buf;
}

/* escape(IN) == WANT, as strings (the escaper's output has no NUL). */
static void check(const char *in, const char *want)
{
    char *got = escaped(in);

    TST_EQ_STR(got, want);
    free(got);
}

void t_svg_escape_markup(void)
{
    check("a<b>&\"'z", "a&lt;b&gt;&amp;&quot;&#39;z");
    check("", "");
    /* Tab and newline pass; CR is a Char, but a parser would turn a raw
       one into LF (or a space in an attribute), so it goes as a reference. */
    check("a\tb\nc\rd", "a\tb\nc&#13;d");
    char *none = escaped(NULL);
    TST_EQ_STR(none, "");
    free(none);
}

void t_svg_escape_controls(void)
{
    check("\x01" "a\x08" "b\x0b\x0c\x1f", R "a" R "b" R R R);
    check("x\x7fy", "x" R "y");                  /* DEL */
    check("\xc2\x80\xc2\x85\xc2\x9f", R R R);     /* C1: U+0080, U+0085, U+009F */
    check("\xc2\xa0", "\xc2\xa0");                /* U+00A0 NBSP is text */
}

void t_svg_escape_valid_utf8(void)
{
    check("caf\xc3\xa9", "caf\xc3\xa9");                    /* U+00E9 */
    check("\xe2\x82\xac", "\xe2\x82\xac");                  /* U+20AC */
    check("\xed\x9f\xbf", "\xed\x9f\xbf");                  /* U+D7FF, below surrogates */
    check("\xee\x80\x80", "\xee\x80\x80");                  /* U+E000, above them */
    check("\xef\xb7\x8f\xef\xb7\xb0", "\xef\xb7\x8f\xef\xb7\xb0");  /* U+FDCF, U+FDF0 */
    check("\xef\xbf\xbd", R);                               /* U+FFFD itself */
    check("\xf0\x90\x80\x80", "\xf0\x90\x80\x80");          /* U+10000 */
    check("\xf0\x9f\x98\x80", "\xf0\x9f\x98\x80");          /* U+1F600 */
    check("\xf4\x8f\xbf\xbd", "\xf4\x8f\xbf\xbd");          /* U+10FFFD */
}

void t_svg_escape_noncharacters(void)
{
    check("a\xef\xbf\xbe" "b", "a" R "b");          /* U+FFFE */
    check("\xef\xbf\xbf", R);                       /* U+FFFF */
    check("\xef\xb7\x90\xef\xb7\xaf", R R);         /* U+FDD0, U+FDEF */
    check("\xf0\x9f\xbf\xbe\xf0\x9f\xbf\xbf", R R); /* U+1FFFE, U+1FFFF */
    check("\xf4\x8f\xbf\xbe\xf4\x8f\xbf\xbf", R R); /* U+10FFFE, U+10FFFF */
}

void t_svg_escape_bad_utf8(void)
{
    check("\x80", R);                               /* a lone continuation byte */
    check("a\xbf" "b", "a" R "b");
    check("\xc0\xaf", R R);                         /* overlong '/': C0 never starts one */
    check("\xe0\x80\xaf", R R R);                   /* overlong, E0 needs A0..BF next */
    check("\xed\xa0\x80", R R R);                   /* U+D800, a surrogate */
    check("\xed\xbf\xbf", R R R);                   /* U+DFFF */
    check("\xf4\x90\x80\x80", R R R R);             /* U+110000, past Unicode */
    check("\xf5\x80\x80\x80", R R R R);             /* F5..FF never start one */
    check("\xfe\xff", R R);
    check("\xe2\x82", R);                           /* cut short at the end */
    check("\xe2\x82x", R "x");                      /* cut short by ASCII */
    check("\xf0\x9f\x98<", R "&lt;");               /* ... or by markup */
    check("\xc3\xc3\xa9", R "\xc3\xa9");            /* a new lead byte restarts */
}
