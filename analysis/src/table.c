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

bool table_has_column(const struct table *t, const char *name)
{
	int i;

	for (i = 0; i < t->ncols; i++)
		if (!strcmp(t->cols[i].name, name))
			return true;
	return false;
}

static bool is_text(enum col_type type)
{
	return type == COL_STR || type == COL_PATH;
}

/* Sorting state for qsort(), which passes no context */
static const struct table *sort_table;
static int sort_col;

static int by_sort_col(const void *x, const void *y)
{
	size_t i = *(const size_t *)x, j = *(const size_t *)y;
	const struct cell *a = &sort_table->cells[i * sort_table->ncols + sort_col];
	const struct cell *b = &sort_table->cells[j * sort_table->ncols + sort_col];
	int c = 0;

	if (a->null != b->null)
		c = a->null ? 1 : -1;		/* unknown last */
	else if (a->null)
		c = 0;
	else if (is_text(sort_table->cols[sort_col].type))
		c = strcmp(a->s, b->s);
	else if (a->v != b->v)		/* largest first; "max" is -1: last */
		c = a->v > b->v ? -1 : 1;
	return c ? c : (i > j) - (i < j);
}

bool table_sort(struct table *t, const char *name)
{
	struct cell *cells;
	size_t *order, r;
	int col;

	for (col = 0; col < t->ncols; col++)
		if (!strcmp(t->cols[col].name, name))
			break;
	if (col == t->ncols || !t->nrows)
		return col < t->ncols;
	order = malloc(t->nrows * sizeof(*order));
	cells = malloc(t->nrows * t->ncols * sizeof(*cells));
	if (!order || !cells) {
		free(order);
		free(cells);
		return false;
	}
	for (r = 0; r < t->nrows; r++)
		order[r] = r;
	sort_table = t;
	sort_col = col;
	qsort(order, t->nrows, sizeof(*order), by_sort_col);
	for (r = 0; r < t->nrows; r++)
		memcpy(&cells[r * t->ncols], &t->cells[order[r] * t->ncols],
		       t->ncols * sizeof(*cells));
	free(t->cells);
	free(order);
	t->cells = cells;
	t->cap = t->nrows;
	return true;
}

/* --fields picks the columns; without it text shows the brief ones */
static bool shown(const struct render_ctx *ctx, enum format fmt,
		  const struct table *t, const struct column *col)
{
	int i;

	if (t->all_columns)
		return true;
	if (!ctx->nfields)
		return fmt != FMT_TEXT || col->brief;
	for (i = 0; i < ctx->nfields; i++)
		if (!strcmp(ctx->fields[i], col->name))
			return true;
	return false;
}

/* Tables with sizes in pages carry the page size in csv */
static bool has_pages(const struct table *t)
{
	int i;

	for (i = 0; i < t->ncols; i++)
		if (t->cols[i].type == COL_PAGES || t->cols[i].type == COL_LIMIT)
			return true;
	return false;
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
	case COL_PATH:
		return c->s;
	case COL_LIMIT:
		if (c->v == CELL_NO_LIMIT)
			return "max";
		/* fall through */
	case COL_PAGES:
		snprintf(buf, len, "%.1fM",
			 (double)c->v * ctx->page_size / (1 << 20));
		return buf;
	case COL_CENTI:
		snprintf(buf, len, "%" PRId64 ".%02" PRId64, c->v / 100, c->v % 100);
		return buf;
	case COL_TIME:
		if (ctx->absolute)	/* seconds.microseconds, as trace-cmd */
			snprintf(buf, len, "%" PRIu64 ".%06" PRIu64,
				 ((uint64_t)c->v + 500) / 1000 / 1000000,
				 ((uint64_t)c->v + 500) / 1000 % 1000000);
		else
			snprintf(buf, len, "%.3f",
				 (double)(int64_t)((uint64_t)c->v - ctx->t0) / 1e9);
		return buf;
	default:
		snprintf(buf, len, "%" PRId64, c->v);
		return buf;
	}
}

/* A path last gives way to ctx->width down to this, not below */
#define PATH_MIN 12

/*
 * @s in @room columns: its start and end around "...", where a path
 * says most (/system.slice/docker-...ffff.scope).  Cut between UTF-8
 * characters, not inside one.  Whether it was cut.
 */
static bool put_path(FILE *f, const char *s, int room)
{
	int len = strlen(s), head = (room - 3) / 2, tail = room - 3 - head;

	if (len <= room) {
		fputs(s, f);
		return false;
	}
	while (head > 0 && (s[head] & 0xc0) == 0x80)
		head--;
	while (tail > 0 && (s[len - tail] & 0xc0) == 0x80)
		tail--;
	fprintf(f, "%.*s...%s", head, s, s + len - tail);
	return true;
}

static void render_text(FILE *f, const struct render_ctx *ctx,
			const struct table *t)
{
	char buf[64];
	int *w, i, last = -1, room = 0;
	bool shortened = false;
	size_t r;

	fprintf(f, "%s\n", t->title);
	if (!t->nrows) {
		fprintf(f, "  (none)\n\n");
		return;
	}
	w = calloc(t->ncols, sizeof(*w));
	if (!w)
		return;
	for (i = 0; i < t->ncols; i++) {
		if (!shown(ctx, FMT_TEXT, t, &t->cols[i]))
			continue;
		last = i;
		w[i] = strlen(t->cols[i].label);
		for (r = 0; r < t->nrows; r++) {
			int n = strlen(text_cell(ctx, &t->cols[i],
						 &t->cells[r * t->ncols + i],
						 buf, sizeof(buf)));
			if (n > w[i])
				w[i] = n;
		}
	}
	/* A path last has what the other columns leave of the line */
	if (ctx->width && last >= 0 && t->cols[last].type == COL_PATH) {
		room = ctx->width;
		for (i = 0; i < last; i++)
			if (shown(ctx, FMT_TEXT, t, &t->cols[i]))
				room -= w[i] + 1;
		if (room < PATH_MIN)
			room = PATH_MIN;
	}
	/* Strings left-aligned, figures right-aligned, by one space */
	for (r = 0; r <= t->nrows; r++) {
		const char *sep = "";

		for (i = 0; i <= last; i++) {
			const struct column *col = &t->cols[i];
			const char *s;

			if (!shown(ctx, FMT_TEXT, t, col))
				continue;
			s = !r ? col->label :
				text_cell(ctx, col, &t->cells[(r - 1) * t->ncols + i],
					  buf, sizeof(buf));
			fputs(sep, f);
			sep = " ";
			if (i == last && room)
				shortened |= put_path(f, s, room);
			else
				fprintf(f, "%*s", !is_text(col->type) ? w[i] :
					i == last ? 0 : -w[i], s);
		}
		fputc('\n', f);
	}
	if (shortened)
		fprintf(f, "(paths shortened to fit %d columns: -f csv prints them whole)\n",
			ctx->width);
	if (t->left_out)
		fprintf(f, "(%zu more left out by --top; --top 0 shows all)\n",
			t->left_out);
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

/*
 * csv and json: raw figures; "max" stays the kernel's word (a string in
 * json), unknown is empty or null: the two never look alike.
 */
static void raw_cell(FILE *f, enum format fmt, const struct column *col,
		     const struct cell *c)
{
	if (c->null) {
		if (fmt == FMT_JSON)
			fputs("null", f);
	} else if (is_text(col->type)) {
		if (fmt == FMT_JSON)
			json_string(f, c->s);
		else
			csv_string(f, c->s);
	} else if (col->type == COL_LIMIT && c->v == CELL_NO_LIMIT) {
		fputs(fmt == FMT_JSON ? "\"max\"" : "max", f);
	} else if (col->type == COL_TIME) {
		fprintf(f, "%" PRIu64, (uint64_t)c->v);
	} else if (col->type == COL_CENTI) {
		fprintf(f, "%" PRId64 ".%02" PRId64, c->v / 100, c->v % 100);
	} else {
		fprintf(f, "%" PRId64, c->v);
	}
}

static void render_csv(FILE *f, const struct render_ctx *ctx,
		       const struct table *t)
{
	const char *sep = "";
	bool pages = has_pages(t);
	size_t r;
	int i;

	for (i = 0; i < t->ncols; i++)
		if (shown(ctx, FMT_CSV, t, &t->cols[i])) {
			fprintf(f, "%s%s", sep, t->cols[i].name);
			sep = ",";
		}
	fprintf(f, "%s\n", pages ? ",page_size" : "");
	for (r = 0; r < t->nrows; r++) {
		sep = "";
		for (i = 0; i < t->ncols; i++) {
			if (!shown(ctx, FMT_CSV, t, &t->cols[i]))
				continue;
			fputs(sep, f);
			raw_cell(f, FMT_CSV, &t->cols[i],
				 &t->cells[r * t->ncols + i]);
			sep = ",";
		}
		if (pages)
			fprintf(f, ",%d", ctx->page_size);
		fputc('\n', f);
	}
}

static void json_row(FILE *f, const struct render_ctx *ctx,
		     const struct table *t, size_t r)
{
	const char *sep = "";
	int i;

	fputc('{', f);
	for (i = 0; i < t->ncols; i++) {
		if (ctx && !shown(ctx, FMT_JSON, t, &t->cols[i]))
			continue;
		fprintf(f, "%s\"%s\":", sep, t->cols[i].name);
		raw_cell(f, FMT_JSON, &t->cols[i], &t->cells[r * t->ncols + i]);
		sep = ",";
	}
	fputc('}', f);
}

static void render_json(FILE *f, const struct render_ctx *ctx,
			struct table *const *tables, int n,
			const struct table *meta)
{
	size_t r;
	int k;

	fprintf(f, "{\"format_version\":%d", JSON_FORMAT_VERSION);
	if (meta && meta->nrows) {
		fputs(",\"capture\":", f);
		json_row(f, NULL, meta, 0);
	}
	for (k = 0; k < n; k++) {
		fprintf(f, ",\"%s\":[", tables[k]->name);
		for (r = 0; r < tables[k]->nrows; r++) {
			fputs(r ? ",\n" : "\n", f);
			json_row(f, ctx, tables[k], r);
		}
		fputs("]", f);
		if (tables[k]->left_out)
			fprintf(f, ",\"%s_left_out\":%zu", tables[k]->name,
				tables[k]->left_out);
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
			render_csv(f, ctx, tables[k]);
		break;
	case FMT_JSON:
		render_json(f, ctx, tables, n, meta);
		break;
	}
	return ferror(f) ? -1 : 0;
}

/*
 * The length of the UTF-8 sequence @s starts with, 0 when it is not one
 * (a stray or cut byte, an overlong form, a surrogate, past U+10FFFF):
 * a cgroup name is any bytes, and json and xml hold only UTF-8.
 */
static int utf8_len(const unsigned char *s)
{
	int n, i;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4;
	else
		return 0;
	for (i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;	/* the NUL ends it here too */
	if ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] >= 0xa0) ||
	    (s[0] == 0xf0 && s[1] < 0x90) || (s[0] == 0xf4 && s[1] >= 0x90))
		return 0;
	return n;
}

/* Bytes that are not UTF-8 become U+FFFD, one each, as Go's json does */
void json_string(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	fputc('"', f);
	while (*p) {
		int n = utf8_len(p);

		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p < 0x20)
			fprintf(f, "\\u%04x", *p);
		else if (!n)
			fputs("\\ufffd", f);
		else
			fwrite(p, 1, n, f);
		p += n ? n : 1;
	}
	fputc('"', f);
}

/* What XML 1.0 cannot hold (controls, U+FFFE, U+FFFF, not UTF-8): U+FFFD */
void xml_string(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	while (*p) {
		int n = utf8_len(p);

		switch (*p) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		default:
			if (*p < 0x20 || !n || (n == 3 && p[0] == 0xef &&
						p[1] == 0xbf && p[2] >= 0xbe))
				fputs("&#xfffd;", f);
			else
				fwrite(p, 1, n, f);
		}
		p += n ? n : 1;
	}
}
