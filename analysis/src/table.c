// SPDX-License-Identifier: GPL-2.0
/* Tables and their text, CSV and JSON renderers */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "table.h"

void table_init(struct table *t, const char *name, const char *title,
		const struct column *cols, int ncols)
{
	memset(t, 0, sizeof(*t));
	t->name = name;
	t->title = title;
	t->cols = cols;
	t->ncols = ncols;
}

void table_free(struct table *t)
{
	size_t i;

	for (i = 0; i < t->nrows * t->ncols; i++)
		free(t->cells[i].s);
	free(t->cells);
	t->cells = NULL;
	t->nrows = t->cap = 0;
}

struct cell *table_row(struct table *t)
{
	struct cell *row;
	int i;

	if (t->nrows == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 32;
		struct cell *c = realloc(t->cells, cap * t->ncols * sizeof(*c));

		if (!c)
			return NULL;
		t->cells = c;
		t->cap = cap;
	}
	row = &t->cells[t->nrows++ * t->ncols];
	for (i = 0; i < t->ncols; i++)
		row[i] = (struct cell){ .null = true };
	return row;
}

void cell_int(struct cell *c, int64_t v)
{
	c->v = v;
	c->null = false;
}

bool cell_str(struct cell *c, const char *s)
{
	free(c->s);
	c->s = strdup(s);
	c->null = !c->s;
	return c->s != NULL;
}

bool parse_format(const char *s, enum format *f)
{
	static const char *const names[] = { "text", "csv", "json" };
	int i;

	for (i = 0; i < 3; i++)
		if (!strcmp(s, names[i])) {
			*f = i;
			return true;
		}
	return false;
}

/* One cell as text for people, into buf */
static const char *text_cell(const struct render_ctx *ctx,
			     const struct column *col, const struct cell *c,
			     char *buf, size_t len)
{
	if (c->null)
		return "-";
	switch (col->type) {
	case COL_STR:
		return c->s;
	case COL_LIMIT:
		if (c->v == CELL_NO_LIMIT)
			return "max";
		/* fall through */
	case COL_PAGES:
		snprintf(buf, len, "%.1fM",
			 (double)c->v * ctx->page_size / (1 << 20));
		return buf;
	case COL_TIME:
		snprintf(buf, len, "%.3f",
			 (double)(int64_t)((uint64_t)c->v - ctx->t0) / 1e9);
		return buf;
	default:
		snprintf(buf, len, "%" PRId64, c->v);
		return buf;
	}
}

static void render_text(FILE *f, const struct render_ctx *ctx,
			const struct table *t)
{
	char buf[64];
	size_t r;
	int *w, i;

	fprintf(f, "%s\n", t->title);
	if (!t->nrows) {
		fprintf(f, "  (none)\n\n");
		return;
	}
	w = calloc(t->ncols, sizeof(*w));
	if (!w)
		return;
	for (i = 0; i < t->ncols; i++)
		w[i] = strlen(t->cols[i].label);
	for (r = 0; r < t->nrows; r++)
		for (i = 0; i < t->ncols; i++) {
			int n = strlen(text_cell(ctx, &t->cols[i],
						 &t->cells[r * t->ncols + i],
						 buf, sizeof(buf)));
			if (n > w[i])
				w[i] = n;
		}
	/* Strings left-aligned, figures right-aligned */
	for (i = 0; i < t->ncols; i++)
		fprintf(f, "  %*s", t->cols[i].type != COL_STR ? w[i] :
			i == t->ncols - 1 ? 0 : -w[i], t->cols[i].label);
	fputc('\n', f);
	for (r = 0; r < t->nrows; r++) {
		for (i = 0; i < t->ncols; i++)
			fprintf(f, "  %*s",
				t->cols[i].type != COL_STR ? w[i] :
				i == t->ncols - 1 ? 0 : -w[i],
				text_cell(ctx, &t->cols[i],
					  &t->cells[r * t->ncols + i],
					  buf, sizeof(buf)));
		fputc('\n', f);
	}
	fputc('\n', f);
	free(w);
}

static void csv_string(FILE *f, const char *s)
{
	if (!strpbrk(s, ",\"\n\r")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

/* csv and json: raw figures; "max" stays a word, unknown is empty/null */
static void raw_cell(FILE *f, enum format fmt, const struct column *col,
		     const struct cell *c)
{
	if (c->null) {
		if (fmt == FMT_JSON)
			fputs("null", f);
	} else if (col->type == COL_STR) {
		if (fmt == FMT_JSON)
			json_string(f, c->s);
		else
			csv_string(f, c->s);
	} else if (col->type == COL_LIMIT && c->v == CELL_NO_LIMIT) {
		fputs(fmt == FMT_JSON ? "\"max\"" : "max", f);
	} else if (col->type == COL_TIME) {
		fprintf(f, "%" PRIu64, (uint64_t)c->v);
	} else {
		fprintf(f, "%" PRId64, c->v);
	}
}

static void render_csv(FILE *f, const struct table *t)
{
	size_t r;
	int i;

	fputc('#', f);
	for (i = 0; i < t->ncols; i++)
		fprintf(f, "%s%s", i ? "," : "", t->cols[i].name);
	fputc('\n', f);
	for (r = 0; r < t->nrows; r++) {
		for (i = 0; i < t->ncols; i++) {
			if (i)
				fputc(',', f);
			raw_cell(f, FMT_CSV, &t->cols[i],
				 &t->cells[r * t->ncols + i]);
		}
		fputc('\n', f);
	}
}

static void json_row(FILE *f, const struct table *t, size_t r)
{
	int i;

	fputc('{', f);
	for (i = 0; i < t->ncols; i++) {
		fprintf(f, "%s\"%s\":", i ? "," : "", t->cols[i].name);
		raw_cell(f, FMT_JSON, &t->cols[i], &t->cells[r * t->ncols + i]);
	}
	fputc('}', f);
}

static void render_json(FILE *f, struct table *const *tables, int n,
			const struct table *meta)
{
	size_t r;
	int k;

	fputc('{', f);
	if (meta && meta->nrows) {
		fputs("\"capture\":", f);
		json_row(f, meta, 0);
	}
	for (k = 0; k < n; k++) {
		fprintf(f, "%s\"%s\":[", meta || k ? "," : "", tables[k]->name);
		for (r = 0; r < tables[k]->nrows; r++) {
			fputs(r ? ",\n" : "\n", f);
			json_row(f, tables[k], r);
		}
		fputs("]", f);
	}
	fputs("}\n", f);
}

static void render_meta_text(FILE *f, const struct render_ctx *ctx,
			     const struct table *meta)
{
	char buf[64];
	int i;

	if (!meta || !meta->nrows)
		return;
	for (i = 0; i < meta->ncols; i++)
		fprintf(f, "%s: %s\n", meta->cols[i].label,
			text_cell(ctx, &meta->cols[i], &meta->cells[i],
				  buf, sizeof(buf)));
	fputc('\n', f);
}

int render_tables(FILE *f, enum format fmt, const struct render_ctx *ctx,
		  struct table *const *tables, int n, const struct table *meta)
{
	int k;

	switch (fmt) {
	case FMT_TEXT:
		render_meta_text(f, ctx, meta);
		for (k = 0; k < n; k++)
			render_text(f, ctx, tables[k]);
		break;
	case FMT_CSV:
		for (k = 0; k < n; k++)
			render_csv(f, tables[k]);
		break;
	case FMT_JSON:
		render_json(f, tables, n, meta);
		break;
	}
	return ferror(f) ? -1 : 0;
}

void json_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char ch = *s;

		if (ch == '"' || ch == '\\')
			fprintf(f, "\\%c", ch);
		else if (ch < 0x20)
			fprintf(f, "\\u%04x", ch);
		else
			fputc(ch, f);
	}
	fputc('"', f);
}

void xml_string(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		default:
			if ((unsigned char)*s >= 0x20)
				fputc(*s, f);
		}
	}
}
