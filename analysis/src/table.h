/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A report is a list of tables; one renderer per output format turns the
 * same tables into aligned text for people, or CSV and JSON for scripts,
 * so the formats cannot disagree on a figure.
 */
#ifndef TABLE_H
#define TABLE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

enum col_type {
	COL_STR,
	COL_PATH,	/* a string; text shortens it, last, to fit ctx->width */
	COL_INT,
	COL_PAGES,	/* text: MiB; csv, json: pages */
	COL_LIMIT,	/* pages, or "max" (json too: null is unknown) */
	COL_TIME,	/* text: seconds into the capture; csv, json: ns */
	COL_CENTI,	/* hundredths, written with two decimals */
};

struct column {
	const char *name;	/* csv and json key, and for --fields */
	const char *label;	/* text header */
	enum col_type type;
	bool brief;		/* text shows it without --fields */
};

/* A COL_LIMIT cell's value for "no limit" */
#define CELL_NO_LIMIT INT64_C(-1)

struct cell {
	int64_t v;
	char *s;
	bool null;		/* unknown: "-", empty, null */
};

struct table {
	const char *name;
	const char *title;
	const struct column *cols;
	int ncols;
	struct cell *cells;
	size_t nrows, cap;
	size_t left_out;	/* rows --top left out */
	bool all_columns;	/* shown whole, whatever --fields says */
};

struct render_ctx {
	uint64_t t0;		/* time 0 of text timestamps, ns */
	bool absolute;		/* text: timestamps as trace-cmd report prints them */
	int page_size;
	const char *const *fields;	/* --fields: columns by name, or NULL */
	int nfields;
	/*
	 * text: lines at most this long, 0 for no limit.  Only a COL_PATH
	 * last gives way, shortened in the middle, and the table says so.
	 */
	int width;
};

/* Text reports and top's screen fit this many columns: the path gives way */
#define TEXT_WIDTH 100

/* The JSON layout's version: raised whenever a key changes meaning */
#define JSON_FORMAT_VERSION 3

void table_init(struct table *t, const char *name, const char *title,
		const struct column *cols, int ncols);
void table_free(struct table *t);
/* A new row, all cells unknown; NULL when out of memory */
struct cell *table_row(struct table *t);
void cell_int(struct cell *c, int64_t v);
bool cell_str(struct cell *c, const char *s);

/*
 * Rows ordered by the column named @name: numbers largest first, text
 * in byte order, unknown cells last, ties in their old order.  False
 * when there is no such column or memory ran out (the table unchanged).
 */
bool table_sort(struct table *t, const char *name);

enum format { FMT_TEXT, FMT_CSV, FMT_JSON };

bool parse_format(const char *s, enum format *f);
/* Whether @t has a column named @name */
bool table_has_column(const struct table *t, const char *name);
/* JSON: @meta is written first as a "capture" object, if given */
int render_tables(FILE *f, enum format fmt, const struct render_ctx *ctx,
		  struct table *const *tables, int n, const struct table *meta);

/* Writers shared with the SVG output */
void json_string(FILE *f, const char *s);
void xml_string(FILE *f, const char *s);

#endif
