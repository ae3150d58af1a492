// SPDX-License-Identifier: GPL-2.0
/*
 * The SVG timeline: one panel per cgroup, each tier's usage against its
 * high and max over time, with a mark under every bucket in which that
 * tier was reclaimed (triangle) or refused a migration (cross).  Plain
 * SVG 1.1, no script, so any browser opens it.
 */
#include <inttypes.h>
#include <stdlib.h>

#include "svg.h"

#define WIDTH 960
#define PANEL 220
#define LEFT 70
#define RIGHT 150
#define HEADER 30
#define TOP 40
#define PLOT (PANEL - 80)

static const char *const colours[] = {
	"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b",
};

static double mib(uint64_t pages, int page_size)
{
	return (double)pages * page_size / (1 << 20);
}

/* One tier's series: usage solid, high dotted, max dashed */
static void tier_lines(FILE *f, const struct analysis *a,
		       const struct tier_state *t, const char *colour,
		       double x0, double xs, double y0, double ys)
{
	static const char *const dash[] = { "", "2,3", "6,4" };
	int line;

	for (line = 0; line < 3; line++) {
		struct carry c;
		uint32_t k;
		bool open = false;

		carry_init(&c, t);
		for (k = 0; k < a->nb; k++) {
			uint64_t v;

			carry_bucket(&c, t, k);
			v = line == 0 ? c.usage : line == 1 ? c.high : c.max;
			if (!c.known || no_limit(a, v)) {
				if (open)
					fputs("\"/>\n", f);
				open = false;
				continue;
			}
			if (!open)
				fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"%s\"%s%s%s points=\"",
					colour, line ? "1" : "2",
					*dash[line] ? " stroke-dasharray=\"" : "",
					dash[line], *dash[line] ? "\"" : "");
			open = true;
			fprintf(f, "%.1f,%.1f ", x0 + k * xs, y0 - v * ys);
			fprintf(f, "%.1f,%.1f ", x0 + (k + 1) * xs, y0 - v * ys);
		}
		if (open)
			fputs("\"/>\n", f);
	}
}

static void panel(FILE *f, const struct analysis *a,
		  const struct cgroup_state *cg, int idx, int page_size)
{
	double y0 = HEADER + idx * PANEL + TOP + PLOT, x0 = LEFT;
	double xs = (double)(WIDTH - LEFT - RIGHT) / (a->nb ? a->nb : 1);
	uint64_t top = 1;
	int s, n = 0, tick;
	uint32_t k, i;
	double ys;

	/* Scale: the highest usage, high or max drawn */
	for (s = 0; s < TIER_MAX_SLOTS; s++) {
		const struct tier_state *t = &cg->tier[s];
		const struct bucket *b;
		struct carry c;

		if (!t->seen)
			continue;
		carry_init(&c, t);
		for (k = 0; k < a->nb; k++) {
			carry_bucket(&c, t, k);
			if (!c.known)
				continue;
			if (c.usage > top)
				top = c.usage;
			b = tier_bucket(t, k);
			if (b && b->peak > top)
				top = b->peak;
			if (!no_limit(a, c.high) && c.high > top)
				top = c.high;
			if (!no_limit(a, c.max) && c.max > top)
				top = c.max;
		}
	}
	top += top / 10;
	ys = (double)PLOT / top;

	fprintf(f, "<text x=\"%d\" y=\"%.0f\" font-weight=\"bold\">", LEFT,
		y0 - PLOT - 12);
	xml_string(f, cg->path ? cg->path : "(unnamed)");
	fprintf(f, " (id %" PRIu64 ")%s</text>\n", cg->id,
		cg->removed ? ", removed" : "");
	fprintf(f, "<rect x=\"%d\" y=\"%.0f\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#999\"/>\n",
		LEFT, y0 - PLOT, WIDTH - LEFT - RIGHT, PLOT);
	for (tick = 0; tick <= 4; tick++) {
		uint64_t v = top * tick / 4;
		double x = x0 + (WIDTH - LEFT - RIGHT) * tick / 4.0;

		fprintf(f, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" font-size=\"10\">%.0fM</text>\n",
			LEFT - 4, y0 - v * ys + 3, mib(v, page_size));
		fprintf(f, "<text x=\"%.1f\" y=\"%.0f\" text-anchor=\"middle\" font-size=\"10\">%.2fs</text>\n",
			x, y0 + 26,
			(double)(a->t0 - a->first_ts) / 1e9 +
			(double)a->nb * a->interval / 1e9 * tick / 4);
	}

	for (s = 0; s < TIER_MAX_SLOTS; s++) {
		const struct tier_state *t = &cg->tier[s];
		const char *colour = colours[s % 6];

		if (!t->seen)
			continue;
		tier_lines(f, a, t, colour, x0, xs, y0, ys);
		for (i = 0; i < t->nb; i++) {
			const struct bucket *b = &t->b[i];
			double x = x0 + (b->k + 0.5) * xs;

			if (b->reclaims)
				fprintf(f, "<path d=\"M%.1f,%.1f l-4,-7 h8 z\" fill=\"%s\"><title>tier %d: %u reclaims, %" PRId64 " pages</title></path>\n",
					x, y0 + 14.0, colour, s,
					b->reclaims, b->reclaimed);
			if (b->refused_folios)
				fprintf(f, "<path d=\"M%.1f,%.1f l6,6 m0,-6 l-6,6\" stroke=\"%s\" stroke-width=\"2\"><title>tier %d: %u folios refused, %" PRId64 " pages</title></path>\n",
					x - 3, y0 + 2.0, colour, s,
					b->refused_folios, b->refused_pages);
		}
		fprintf(f, "<line x1=\"%d\" y1=\"%.0f\" x2=\"%d\" y2=\"%.0f\" stroke=\"%s\" stroke-width=\"2\"/>",
			WIDTH - RIGHT + 10, y0 - PLOT + 10 + n * 16,
			WIDTH - RIGHT + 30, y0 - PLOT + 10 + n * 16, colour);
		fprintf(f, "<text x=\"%d\" y=\"%.0f\" font-size=\"11\">tier %d%s",
			WIDTH - RIGHT + 34, y0 - PLOT + 14 + n * 16, s,
			t->nodes[0] ? " node " : "");
		xml_string(f, t->nodes);	/* a side file's word */
		fputs("</text>\n", f);
		n++;
	}
}

static bool drawn(const struct cgroup_state *cg, const struct report_opts *o)
{
	int s;

	for (s = 0; s < TIER_MAX_SLOTS; s++)
		if (cg->tier[s].seen)
			return cgroup_selected(cg, o);
	return false;
}

int svg_timeline(FILE *f, const struct analysis *a,
		 const struct report_opts *o, int page_size)
{
	uint32_t i, n = 0;

	for (i = 0; i < a->nr_cg; i++)
		n += drawn(&a->cg[i], o);
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%u\" font-family=\"sans-serif\" font-size=\"12\">\n"
		"<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
		"<text x=\"%d\" y=\"18\" font-size=\"13\">memcg tier usage (solid), high (dotted) and max (dashed); &#9660; reclaim, &#215; refused migration</text>\n",
		WIDTH, HEADER + (n ? n : 1) * PANEL, LEFT);
	n = 0;
	for (i = 0; i < a->nr_cg; i++)
		if (drawn(&a->cg[i], o))
			panel(f, a, &a->cg[i], n++, page_size);
	fputs("</svg>\n", f);
	return ferror(f) ? -1 : 0;
}
