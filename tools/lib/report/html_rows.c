/*
 * tools/lib/report/html_rows.c - a packed cache judged field by field
 * (kvg_compare_result.rows) in the HTML report: one line per kind of byte
 * (payload, scales, pass-through, pad, untouched) with its own verdict,
 * and the places compare named ("slot 1207: scale of group 3 of nope is
 * 2^-7 (0x78), golden 2^-6 (0x79); ..."), since byte indices into a
 * uint8 tensor tell an engineer nothing about which field is wrong.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdio.h>

#include "html_common.h"

void kvg_html_rows(FILE *out, const kvg_compare_result *r)
{
    int k, i;

    fputs("<div><h3>Packed rows, field by field (layout ", out);
    kvg_html_put(out, r->row_layout_name[0] ? r->row_layout_name : "-");
    fprintf(out, "; %lld of %lld slots written)</h3><table><tr>"
                 "<th class=\"l\">field</th><th class=\"l\">rule</th>"
                 "<th>verdict</th><th>units</th><th>failing</th>"
                 "<th>not bit-identical</th><th>max distance</th>"
                 "<th class=\"l\">where</th></tr>\n",
            (long long)r->row_slots_written, (long long)r->row_slots);
    for (k = 0; k < KVG_COMPARE_ROW_KINDS; k++) {
        const kvg_compare_row_verdict *v = &r->rows[k];
        if (v->units == 0 && v->differ == 0) { /* no vacuous PASS badge */
            fprintf(out, "<tr><td class=\"l\">%s</td><td class=\"l\" "
                         "colspan=\"7\">none in this tensor</td></tr>\n",
                    kvg_compare_row_kind_name((kvg_compare_row_kind)k));
            continue;
        }
        fprintf(out, "<tr><td class=\"l\">%s</td><td class=\"l\">%s</td>"
                     "<td><span class=\"badge %s\">%s</span></td>"
                     "<td>%lld</td><td>%lld</td><td>%lld</td><td>%lld</td>"
                     "<td class=\"l\">",
                kvg_compare_row_kind_name((kvg_compare_row_kind)k),
                kvg_compare_criterion_name(v->criterion),
                kvg_verdict_name(v->verdict), kvg_verdict_name(v->verdict),
                (long long)v->units, (long long)v->failing,
                (long long)v->differ, (long long)v->max_dist);
        for (i = 0; i < v->listed; i++) {
            if (i)
                fputs("<br>", out);
            kvg_html_put(out, v->place[i].text);
        }
        if (v->differ > v->listed && v->listed > 0)
            fprintf(out, "<br>... %lld more",
                    (long long)(v->differ - v->listed));
        fputs("</td></tr>\n", out);
    }
    fputs("</table></div>\n", out);
}
