/*
 * tools/lib/report/html_hist.c - an error histogram as inline SVG. Bar heights
 * are logarithmic in the count (a few bad elements among thousands must
 * still show), each bar stacked: exact or within tolerance at the bottom in
 * the class colour, beyond tolerance on top in red (purple for NaN/inf),
 * the count written above.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <math.h>
#include <stdio.h>

#include "html_common.h"

#define BAR_W 64
#define BAR_GAP 8
#define PLOT_H 120
#define PLOT_TOP 18
#define PLOT_LEFT 8
#define LABEL_H 30

static double bar_height(int64_t count, int64_t max)
{
    if (count <= 0 || max <= 0)
        return 0.0;
    return PLOT_H * log10(1.0 + (double)count) / log10(1.0 + (double)max);
}

static void put_segment(FILE *out, int x, double y, double h,
                        const char *colour)
{
    if (h > 0.0)
        fprintf(out, "<rect x=\"%d\" y=\"%.1f\" width=\"%d\" height=\"%.1f\" "
                     "fill=\"%s\"/>\n",
                x, y, BAR_W, h, colour);
}

void kvg_html_histogram(FILE *out, const kvg_report_tensor *t,
                        const kvg_error_hist *h)
{
    int64_t max = 0;
    int b, width = PLOT_LEFT + h->nbins * (BAR_W + BAR_GAP);
    int height = PLOT_TOP + PLOT_H + LABEL_H;
    (void)t;
    for (b = 0; b < h->nbins; b++)
        if (h->bin[b].within + h->bin[b].beyond > max)
            max = h->bin[b].within + h->bin[b].beyond;
    fprintf(out, "<svg class=\"hist\" xmlns=\"http://www.w3.org/2000/svg\" "
                 "width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\">\n",
            width, height, width, height);
    for (b = 0; b < h->nbins; b++) {
        const kvg_hist_bin *bin = &h->bin[b];
        int64_t total = bin->within + bin->beyond;
        double ht = bar_height(total, max);
        double hw = total ? ht * (double)bin->within / (double)total : 0.0;
        int x = PLOT_LEFT + b * (BAR_W + BAR_GAP);
        double base = PLOT_TOP + PLOT_H;
        int last = b == h->nbins - 1;
        put_segment(out, x, base - hw, hw,
                    kvg_html_class_colour(b == 0 ? KVG_EC_EXACT
                                                 : KVG_EC_WITHIN));
        put_segment(out, x, base - ht, ht - hw,
                    kvg_html_class_colour(last ? KVG_EC_NONFINITE
                                               : KVG_EC_OUT));
        fprintf(out, "<text class=\"cnt\" x=\"%d\" y=\"%.1f\">%lld</text>\n",
                x + BAR_W / 2, base - ht - 4, (long long)total);
        fprintf(out, "<text class=\"bin\" x=\"%d\" y=\"%.1f\">",
                x + BAR_W / 2, base + 14);
        kvg_html_put(out, bin->label);
        fputs("</text>\n", out);
    }
    fprintf(out, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" "
                 "stroke=\"#555555\"/>\n",
            PLOT_LEFT, PLOT_TOP + PLOT_H, width, PLOT_TOP + PLOT_H);
    fputs("</svg>\n", out);
}
