// SPDX-License-Identifier: GPL-2.0
/*
 * memcg-tier-report: per-cgroup, per-tier timelines and churn reports from
 * a trace-cmd capture of the memcg_tier events.  See memcg-tier-report(1).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "args.h"
#include "output.h"
#include "read.h"
#include "report.h"
#include "svg.h"
#include "top.h"

#define VERSION "2.0"

static const char *prog = "memcg-tier-report";

/* A macro's value as a string literal */
#define STR_(x) #x
#define STR(x) STR_(x)

static void usage(FILE *f)
{
	fprintf(f,
"Usage: %s [REPORT] [OPTION]... [-i TRACE.dat | TRACE.dat]\n"
"       %s top [OPTION]... [-i TRACE.dat]\n"
"\n"
"Reports what tiered memcg limits did in a capture recorded with\n"
"tracing/record.sh (or trace-cmd record -e memcg_tier -e cgroup).\n"
"\n"
"REPORT is one of\n"
"  summary   per cgroup and tier: usage, peak, limits, charges, reclaim,\n"
"            refused migrations, steering (the default)\n"
"  timeline  the same per time bucket\n"
"  churn     reclaim charged straight back, promote/demote ping-pong,\n"
"            bursts of refused migrations, steering that flips; worst first\n"
"  all       the three, in that order (not with -f csv)\n"
"  top       the events live, a table every second, or a capture replayed\n"
"            through the same screen (-i); its own options: top --help\n"
"\n"
"Options:\n"
"  -i, --input FILE        the capture (default: trace.dat)\n"
"  -f, --format FMT        text (default), csv (one report: a header line,\n"
"                          raw pages and ns, page_size) or json\n"
"  -F, --fields LIST       the columns to show, by their csv names, comma\n"
"                          separated (default: text a set that fits 100\n"
"                          columns, csv and json all of them)\n"
"  -o, --output FILE       write the report to FILE (a regular file is\n"
"                          replaced whole, never half-written) instead of\n"
"                          standard output\n"
"      --svg FILE          also write a per-cgroup timeline of tier usage\n"
"                          against tier limits, for a browser\n"
"  -c, --cgroup PATH|ID    only this cgroup (repeatable); PATH as under\n"
"                          /sys/fs/cgroup, ID its cgroup id (inode number)\n"
"      --since TIME        ignore records before TIME into the capture\n"
"      --until TIME        stop reading at TIME into the capture\n"
"  -b, --bucket TIME       timeline bucket length (default: the smallest\n"
"                          10ms x 2^n giving at most 200 buckets)\n"
"  -w, --window TIME       reclaimed pages charged back to the same tier\n"
"                          within TIME count as churn (default 1s)\n"
"      --top N             churn findings to show, 0 for all (default 20,\n"
"                          at most %d)\n"
"  -t, --absolute-time     text: timestamps as trace-cmd report prints\n"
"                          them, not seconds from the capture's start\n"
"      --buffer NAME       the buffer instance to read (trace-cmd record\n"
"                          -B NAME); 'top' for the main buffer\n"
"      --no-header         text: leave out the capture's description\n"
"      --cgroup-map FILE   'ID PATH' lines naming cgroups made before the\n"
"                          capture (default: TRACE.cgroups, if present)\n"
"      --tier-stat FILE    memory.tier_stat snapshot taken at the start, for\n"
"                          tier nodes, capacities, min/low and starting\n"
"                          usage (default: TRACE.tier_stat.start, if present)\n"
"      --tier-stat-end FILE\n"
"                          the snapshot taken at the end, for the pages\n"
"                          promoted and demoted into each tier (default:\n"
"                          TRACE.tier_stat.end, if present)\n"
"  -h, --help              this help\n"
"      --version           the version\n"
"\n"
"TIME is a number with an optional unit: ns, us, ms or s (default s).\n"
"No output may be the capture, one of its side files or another output.\n"
"\n"
"Exit status: 0 ok; 1 the capture or a file could not be read or\n"
"written; 2 wrong usage; 3 the capture is damaged: the reports were\n"
"written, led by what they cannot be trusted for (also on stderr).\n",
		prog, prog, TOP_MAX);
}

enum { OPT_SVG = 256, OPT_SINCE, OPT_UNTIL, OPT_TOP, OPT_MAP, OPT_STAT, OPT_STAT_END,
       OPT_NO_HEADER, OPT_VERSION, OPT_BUFFER };

static const struct option long_opts[] = {
	{ "input", required_argument, NULL, 'i' },
	{ "format", required_argument, NULL, 'f' },
	{ "fields", required_argument, NULL, 'F' },
	{ "output", required_argument, NULL, 'o' },
	{ "svg", required_argument, NULL, OPT_SVG },
	{ "cgroup", required_argument, NULL, 'c' },
	{ "since", required_argument, NULL, OPT_SINCE },
	{ "until", required_argument, NULL, OPT_UNTIL },
	{ "bucket", required_argument, NULL, 'b' },
	{ "window", required_argument, NULL, 'w' },
	{ "top", required_argument, NULL, OPT_TOP },
	{ "absolute-time", no_argument, NULL, 't' },
	{ "buffer", required_argument, NULL, OPT_BUFFER },
	{ "cgroup-map", required_argument, NULL, OPT_MAP },
	{ "tier-stat", required_argument, NULL, OPT_STAT },
	{ "tier-stat-end", required_argument, NULL, OPT_STAT_END },
	{ "no-header", no_argument, NULL, OPT_NO_HEADER },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, OPT_VERSION },
	{ NULL, 0, NULL, 0 },
};

static const char *const report_names[] = { "summary", "timeline", "churn" };

struct cli {
	struct analysis_config cfg;
	struct report_opts ro;
	const char *trace, *out_path, *svg_path, *map_opt, *stat_opt;
	const char *stat_end_opt;
	const char *buffer;
	const char **cgroups;		/* --cgroup, argc long */
	bool want[NR_REPORTS];
	enum format fmt;
	bool header, absolute;
	char *fields_buf;		/* --fields, split in place */
	const char *fields[64];
	int nfields;
};

/* --fields a,b,c: names checked against the reports' columns later */
static int parse_fields(struct cli *c, const char *arg)
{
	char *tok, *save = NULL;

	free(c->fields_buf);
	c->fields_buf = strdup(arg);
	c->nfields = 0;
	if (!c->fields_buf)
		return 1;
	for (tok = strtok_r(c->fields_buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (c->nfields == (int)(sizeof(c->fields) / sizeof(c->fields[0])))
			return usage_error(prog, "--fields: more than 64 columns in '%s'", arg);
		c->fields[c->nfields++] = tok;
	}
	return c->nfields ? 0 : usage_error(prog, "--fields: no column named in '%s'", arg);
}

/* 0, or the exit status of a usage error */
static int parse_args(struct cli *c, int argc, char **argv)
{
	const char *input = NULL;
	unsigned long long top;
	char *end;
	int opt, i;

	while ((opt = getopt_long(argc, argv, "i:f:F:o:c:b:w:th", long_opts,
				  NULL)) != -1) {
		switch (opt) {
		case 'i':
			input = optarg;
			break;
		case 'f':
			if (!parse_format(optarg, &c->fmt))
				return usage_error(prog, "unknown format '%s' (text, csv, json)", optarg);
			break;
		case 'F':
			if (parse_fields(c, optarg))
				return 2;
			break;
		case 'o':
			c->out_path = optarg;
			break;
		case OPT_SVG:
			c->svg_path = optarg;
			break;
		case 'c':
			c->cgroups[c->ro.nr_cgroups++] = optarg;
			break;
		case OPT_SINCE:
			if (!parse_time(optarg, &c->cfg.since))
				return usage_error(prog, "--since: '%s' is not a time (e.g. 2.5, 300ms)", optarg);
			break;
		case OPT_UNTIL:
			if (!parse_time(optarg, &c->cfg.until) || !c->cfg.until)
				return usage_error(prog, "--until: '%s' is not a time after the start (e.g. 10, 1500ms)", optarg);
			break;
		case 'b':
			if (!parse_time(optarg, &c->cfg.interval) ||
			    c->cfg.interval < 1000)
				return usage_error(prog, "--bucket: '%s' is not a time of at least 1us", optarg);
			break;
		case 'w':
			if (!parse_time(optarg, &c->cfg.window))
				return usage_error(prog, "--window: '%s' is not a time", optarg);
			break;
		case OPT_TOP:
			errno = 0;
			top = strtoull(optarg, &end, 10);
			if (end == optarg || *end || *optarg == '-' || errno ||
			    top > TOP_MAX)
				return usage_error(prog, "--top: '%s' is not a count from 0 to " STR(TOP_MAX), optarg);
			c->ro.top = (int)top;
			break;
		case 't':
			c->absolute = true;
			break;
		case OPT_BUFFER:
			c->buffer = optarg;
			break;
		case OPT_MAP:
			c->map_opt = optarg;
			break;
		case OPT_STAT:
			c->stat_opt = optarg;
			break;
		case OPT_STAT_END:
			c->stat_end_opt = optarg;
			break;
		case OPT_NO_HEADER:
			c->header = false;
			break;
		case 'h':
			usage(stdout);
			return -1;
		case OPT_VERSION:
			printf("%s %s\n", prog, VERSION);
			return -1;
		default:
			fprintf(stderr, "Try '%s --help'.\n", prog);
			return 2;
		}
	}
	if (argc - optind == 0)
		c->want[REPORT_SUMMARY] = true;
	if (argc - optind >= 1) {
		const char *r = argv[optind];
		bool any = false;

		for (i = 0; i < NR_REPORTS; i++) {
			c->want[i] = !strcmp(r, "all") || !strcmp(r, report_names[i]);
			any |= c->want[i];
		}
		if (any)
			optind++;
		else if (argc - optind > 1)
			return usage_error(prog, "unknown report '%s' (summary, timeline, churn, all)", r);
		else
			c->want[REPORT_SUMMARY] = true;
	}
	if (argc - optind > 1 || (argc - optind == 1 && input))
		return usage_error(prog, "%s", "too many arguments: give [REPORT] and one capture, as -i FILE or TRACE.dat");
	c->trace = argc - optind == 1 ? argv[optind] : input ? input : "trace.dat";
	if (c->cfg.until && c->cfg.until <= c->cfg.since)
		return usage_error(prog, "--until must come after --since%s", "");
	if (c->fmt == FMT_CSV && c->want[0] + c->want[1] + c->want[2] > 1)
		return usage_error(prog, "%s", "csv holds one table: name one report (summary, timeline or churn)");
	return 0;
}

/* Every column --fields names must be one of the chosen reports' */
static const char *unknown_field(const struct cli *c, struct table *const *t,
				 int n)
{
	int f, k;

	for (f = 0; f < c->nfields; f++) {
		for (k = 0; k < n; k++)
			if (table_has_column(t[k], c->fields[f]))
				break;
		if (k == n)
			return c->fields[f];
	}
	return NULL;
}

/*
 * The files this run reads: the capture and every side file of it (read
 * or not), and the map and snapshot it was given.  No output may be one.
 */
static int check_outputs(const struct cli *c, const char *map,
			 const char *stat_path, const char *stat_end)
{
	static const char *const sides[] = { "cgroups", "tier_stat.start",
					     "tier_stat.end" };
	struct file_id in[8], out[2];
	const char *in_name[8], *out_name[2] = { c->out_path, c->svg_path };
	int nin = 0, nout = 0, i, j;
	struct stat st;
	char *side;

	in_name[nin] = c->trace;
	nin += file_id_of(c->trace, &in[nin]) && !in[nin].name;
	for (i = 0; i < 3; i++) {
		side = sidecar(c->trace, sides[i]);
		if (side && file_id_of(side, &in[nin]) && !in[nin].name)
			in_name[nin++] = sides[i];
		free(side);
	}
	if (map && file_id_of(map, &in[nin]) && !in[nin].name)
		in_name[nin++] = map;
	if (stat_path && file_id_of(stat_path, &in[nin]) && !in[nin].name)
		in_name[nin++] = stat_path;
	if (stat_end && file_id_of(stat_end, &in[nin]) && !in[nin].name)
		in_name[nin++] = stat_end;
	for (j = 0; j < 2; j++) {
		if (!out_name[j])
			continue;
		if (!file_id_of(out_name[j], &out[j]))
			continue;	/* output_open() says why */
		for (i = 0; i < nin; i++)
			if (file_id_same(&out[j], &in[i])) {
				fprintf(stderr, "%s: refusing to write %s: it is %s%s, an input of this run\n",
					prog, out_name[j], i ? "the capture's side file " : "the capture ",
					i ? in_name[i] : c->trace);
				return 2;
			}
		nout++;
	}
	if (nout == 2 && file_id_same(&out[0], &out[1])) {
		fprintf(stderr, "%s: -o and --svg both name %s: one would overwrite the other\n",
			prog, c->out_path);
		return 2;
	}
	/* "... > trace.dat" is too late to stop, ">> trace.dat" is not */
	if (!c->out_path && !fstat(STDOUT_FILENO, &st) && S_ISREG(st.st_mode))
		for (i = 0; i < nin; i++)
			if (in[i].dev == st.st_dev && in[i].ino == st.st_ino) {
				fprintf(stderr, "%s: refusing to write the report: standard output is %s, an input of this run\n",
					prog, i ? in_name[i] : c->trace);
				return 2;
			}
	return 0;
}

static void print_damage(const struct damage *d, const struct analysis *a,
			 const char *trace)
{
	uint64_t whole;
	size_t i;

	fprintf(stderr, "%s: %s: damaged capture, the figures are not whole:\n",
		prog, trace);
	for (i = 0; i < d->n; i++) {
		const struct damage_entry *e = &d->e[i];

		fprintf(stderr, "  ");
		if (e->cpu >= 0)
			fprintf(stderr, "CPU %d: ", e->cpu);
		if (e->cg)
			fprintf(stderr, "%s: ", e->cg->path ? e->cg->path : "(unnamed)");
		if (e->tier >= 0)
			fprintf(stderr, "tier %d: ", e->tier);
		fprintf(stderr, "%s (%llu)\n", e->detail,
			(unsigned long long)e->count);
	}
	if (d->until == UINT64_MAX)
		return;
	/*
	 * The damage can come before the first record read (a page whose
	 * time went back): no figure is whole then.  The hint is rounded
	 * down to the microsecond, so that --until stops before the damage.
	 */
	whole = d->until > a->first_ts ? (d->until - a->first_ts) / 1000 : 0;
	if (whole)
		fprintf(stderr, "  figures are whole up to %" PRIu64 ".%06" PRIu64 " s into the capture (--until %" PRIu64 ".%06" PRIu64 ")\n",
			whole / 1000000, whole % 1000000, whole / 1000000,
			whole % 1000000);
	else
		fprintf(stderr, "  no figure is whole: records are missing from the start of the capture\n");
}

int main(int argc, char **argv)
{
	struct cli c = { .cfg.window = 1000000000ULL, .ro.top = 20,
			 .header = true };
	struct output out = { 0 }, svg = { 0 };
	char *map_path = NULL, *stat_path = NULL, *end_path = NULL;
	struct table tables[NR_REPORTS + 1], meta;
	struct table *shown[NR_REPORTS + 1];
	struct render_ctx ctx;
	struct damage dmg;
	struct analysis a;
	int i, n = 0, ret = 1;
	char err[512];
	const char *bad;

	if (argc > 1 && !strcmp(argv[1], "top"))
		return top_main(argc - 1, argv + 1);
	c.cgroups = calloc(argc, sizeof(*c.cgroups));
	if (!c.cgroups)
		return 1;
	c.ro.cgroups = c.cgroups;
	ret = parse_args(&c, argc, argv);
	if (ret) {
		free(c.cgroups);
		free(c.fields_buf);
		return ret < 0 ? 0 : ret;
	}
	ret = 1;
	damage_init(&dmg);
	analysis_init(&a, &c.cfg);
	map_path = c.map_opt ? strdup(c.map_opt) : sidecar(c.trace, "cgroups");
	stat_path = c.stat_opt ? strdup(c.stat_opt) :
		sidecar(c.trace, "tier_stat.start");
	end_path = c.stat_end_opt ? strdup(c.stat_end_opt) :
		sidecar(c.trace, "tier_stat.end");
	ret = check_outputs(&c, map_path, stat_path, end_path);
	if (ret)
		goto free;
	ret = 1;
	/* A side file's own problem, said before the capture is read */
	if (check_side_files(map_path, stat_path, end_path, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", prog, err);
		goto free;
	}
	if ((c.out_path && output_open(&out, prog, c.out_path)) ||
	    (c.svg_path && output_open(&svg, prog, c.svg_path)))
		goto free;

	if (read_capture(&a, c.trace, c.buffer, NULL, &dmg, err, sizeof(err))) {
		fprintf(stderr, "%s: %s: %s\n", prog, c.trace, err);
		goto free;
	}
	if (read_side_files(&a, map_path, stat_path, end_path, err,
			    sizeof(err))) {
		fprintf(stderr, "%s: %s\n", prog, err);
		goto free;
	}
	bad = unknown_cgroup(&a, &c.ro);
	if (bad) {
		fprintf(stderr, "%s: %s: no cgroup '%s' in the capture%s\n",
			prog, c.trace, bad, map_path ? "" :
			" (a cgroup made before recording is named only with --cgroup-map)");
		goto free;
	}
	if (!damage_from_state(&dmg, &a) ||
	    (dmg.n && !damage_table(&tables[n], &dmg))) {
		fprintf(stderr, "%s: out of memory\n", prog);
		goto free;
	}
	if (dmg.n)
		shown[n] = &tables[n], n++;
	for (i = 0; i < NR_REPORTS; i++) {
		static bool (*const build[])(struct table *,
					      const struct analysis *,
					      const struct report_opts *) = {
			report_summary, report_timeline, report_churn,
		};

		if (!c.want[i])
			continue;
		shown[n] = &tables[n];
		if (!build[i](&tables[n++], &a, &c.ro)) {
			fprintf(stderr, "%s: out of memory\n", prog);
			goto tables;
		}
	}
	bad = unknown_field(&c, shown + !!dmg.n, n - !!dmg.n);
	if (bad) {
		ret = usage_error(prog, "--fields: no column '%s' in the chosen reports (their csv header lines name them)", bad);
		goto tables;
	}
	if (!report_meta(&meta, &a, c.trace, a.page_size)) {
		fprintf(stderr, "%s: out of memory\n", prog);
		goto tables;
	}
	ctx = (struct render_ctx){ a.first_ts, c.absolute, a.page_size,
				   c.fields, c.nfields, TEXT_WIDTH };
	/* csv has room for one table: the damage goes to stderr alone */
	if (render_tables(out.f ? out.f : stdout, c.fmt, &ctx,
			  shown + (c.fmt == FMT_CSV && dmg.n),
			  n - (c.fmt == FMT_CSV && dmg.n),
			  c.header || c.fmt != FMT_TEXT ? &meta : NULL) ||
	    (svg.f && svg_timeline(svg.f, &a, &c.ro, a.page_size))) {
		fprintf(stderr, "%s: writing the report failed\n", prog);
		goto meta;
	}
	ret = dmg.n ? EXIT_DAMAGED : 0;
	if (out.f && output_commit(&out, prog))
		ret = 1;
	if (svg.f && output_commit(&svg, prog))
		ret = 1;
	if (!out.f && fflush(stdout)) {
		fprintf(stderr, "%s: writing standard output: %s\n", prog,
			strerror(errno));
		ret = 1;
	}
	if (dmg.n)
		print_damage(&dmg, &a, c.trace);
meta:
	table_free(&meta);
tables:
	for (i = 0; i < n; i++)
		table_free(&tables[i]);
free:
	free(map_path);
	free(stat_path);
	free(end_path);
	analysis_free(&a);
	damage_free(&dmg);
	output_abandon(&out);
	output_abandon(&svg);
	free(c.cgroups);
	free(c.fields_buf);
	return ret;
}
