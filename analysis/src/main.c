// SPDX-License-Identifier: GPL-2.0
/*
 * memcg-tier-report: per-cgroup, per-tier timelines and churn reports from
 * a trace-cmd capture of the memcg_tier events.  See memcg-tier-report(1).
 */
#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "read.h"
#include "report.h"
#include "svg.h"

#define VERSION "1.0"

static const char *prog = "memcg-tier-report";

static void usage(FILE *f)
{
	fprintf(f,
"Usage: %s [REPORT] [OPTION]... TRACE.dat\n"
"\n"
"Reports what tiered memcg limits did in a capture recorded with\n"
"tracing/record.sh (or trace-cmd record -e memcg_tier -e cgroup).\n"
"\n"
"REPORT is one of\n"
"  summary   per cgroup and tier: usage, peak, limits, charges, reclaim by\n"
"            reason, refused migrations, steering (the default)\n"
"  timeline  the same per time bucket\n"
"  churn     reclaim charged straight back, promote/demote ping-pong,\n"
"            bursts of refused migrations, steering that flips; worst first\n"
"  all       the three, in that order\n"
"\n"
"Options:\n"
"  -f, --format FMT        text (default), csv (one '#' header line per\n"
"                          report, raw pages and ns) or json\n"
"  -o, --output FILE       write the report to FILE (replaced whole, never\n"
"                          half-written) instead of standard output\n"
"      --svg FILE          also write a per-cgroup timeline of tier usage\n"
"                          against tier limits, for a browser\n"
"  -c, --cgroup PATH|ID    only this cgroup (repeatable); PATH as under\n"
"                          /sys/fs/cgroup, ID its cgroup id (inode number)\n"
"      --since TIME        ignore records before TIME into the capture\n"
"      --until TIME        stop reading at TIME into the capture\n"
"  -i, --interval TIME     timeline bucket length (default: the smallest\n"
"                          10ms x 2^n giving at most 200 buckets)\n"
"  -w, --window TIME       reclaimed pages charged back to the same tier\n"
"                          within TIME count as churn (default 1s)\n"
"      --top N             churn findings to show, 0 for all (default 20)\n"
"      --no-header         text: leave out the capture's description\n"
"      --cgroup-map FILE   'ID PATH' lines naming cgroups made before the\n"
"                          capture (default: TRACE.cgroups, if present)\n"
"      --tier-stat FILE    memory.tier_stat snapshot taken at the start, for\n"
"                          tier nodes, min/low and starting usage\n"
"                          (default: TRACE.tier_stat.start, if present)\n"
"  -h, --help              this help\n"
"      --version           the version\n"
"\n"
"TIME is a number with an optional unit: ns, us, ms or s (default s).\n"
"Exit status: 0 ok, 1 the capture or a file could not be read or written,\n"
"2 wrong usage.\n", prog);
}

static int usage_error(const char *fmt, const char *arg)
{
	fprintf(stderr, "%s: ", prog);
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\nTry '%s --help'.\n", prog);
	return 2;
}

/* "250ms", "2s", "1.5" (seconds) -> ns; false if not a duration */
static bool parse_time(const char *s, uint64_t *ns)
{
	static const struct { const char *unit; double scale; } units[] = {
		{ "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 },
		{ "", 1e9 },
	};
	char *end;
	double v;
	size_t i;

	errno = 0;
	v = strtod(s, &end);
	if (end == s || errno || v < 0)
		return false;
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(end, units[i].unit)) {
			if (v * units[i].scale > 1e18)
				return false;
			*ns = (uint64_t)(v * units[i].scale + 0.5);
			return true;
		}
	return false;
}

/*
 * An output file written through a temporary beside it and renamed in
 * place at the end, so a failure never leaves half a report; opened
 * before the capture is read, so a bad path fails at once.
 */
struct output {
	const char *path;
	char *tmp;
	FILE *f;
};

static int output_open(struct output *o, const char *path)
{
	int fd;

	o->path = path;
	o->tmp = malloc(strlen(path) + 16);
	if (!o->tmp)
		return -1;
	sprintf(o->tmp, "%s.tmp.XXXXXX", path);
	fd = mkstemp(o->tmp);
	if (fd < 0 || !(o->f = fdopen(fd, "w"))) {
		fprintf(stderr, "%s: cannot write %s: %s\n", prog, path,
			strerror(errno));
		if (fd >= 0) {
			close(fd);
			unlink(o->tmp);
		}
		free(o->tmp);
		o->tmp = NULL;
		return -1;
	}
	return 0;
}

static void output_abandon(struct output *o)
{
	if (!o->f)
		return;
	fclose(o->f);
	unlink(o->tmp);
	free(o->tmp);
	o->f = NULL;
}

static int output_commit(struct output *o)
{
	int err = ferror(o->f);

	if (fclose(o->f) || err || rename(o->tmp, o->path)) {
		fprintf(stderr, "%s: cannot write %s: %s\n", prog, o->path,
			strerror(errno ? errno : EIO));
		unlink(o->tmp);
		free(o->tmp);
		o->f = NULL;
		return -1;
	}
	free(o->tmp);
	o->f = NULL;
	return 0;
}

enum { OPT_SVG = 256, OPT_SINCE, OPT_UNTIL, OPT_TOP, OPT_MAP, OPT_STAT,
       OPT_NO_HEADER, OPT_VERSION };

static const struct option long_opts[] = {
	{ "format", required_argument, NULL, 'f' },
	{ "output", required_argument, NULL, 'o' },
	{ "svg", required_argument, NULL, OPT_SVG },
	{ "cgroup", required_argument, NULL, 'c' },
	{ "since", required_argument, NULL, OPT_SINCE },
	{ "until", required_argument, NULL, OPT_UNTIL },
	{ "interval", required_argument, NULL, 'i' },
	{ "window", required_argument, NULL, 'w' },
	{ "top", required_argument, NULL, OPT_TOP },
	{ "cgroup-map", required_argument, NULL, OPT_MAP },
	{ "tier-stat", required_argument, NULL, OPT_STAT },
	{ "no-header", no_argument, NULL, OPT_NO_HEADER },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, OPT_VERSION },
	{ NULL, 0, NULL, 0 },
};

static const char *const report_names[] = { "summary", "timeline", "churn" };

int main(int argc, char **argv)
{
	struct analysis_config cfg = { .window = 1000000000ULL };
	const char *out_path = NULL, *svg_path = NULL, *trace;
	const char *map_opt = NULL, *stat_opt = NULL;
	struct output out = { 0 }, svg = { 0 };
	char *map_path = NULL, *stat_path = NULL;
	const char **cgroups = calloc(argc, sizeof(*cgroups));
	struct report_opts ro = { cgroups, 0, 20 };
	struct table tables[NR_REPORTS], meta;
	struct table *shown[NR_REPORTS];
	bool want[NR_REPORTS] = { true, false, false };
	enum format fmt = FMT_TEXT;
	bool header = true;
	struct render_ctx ctx;
	struct analysis a;
	int opt, i, n = 0, page_size = 4096, ret = 1;
	char err[512], *end;
	const char *bad;

	if (!cgroups)
		return 1;
	while ((opt = getopt_long(argc, argv, "f:o:c:i:w:h", long_opts,
				  NULL)) != -1) {
		switch (opt) {
		case 'f':
			if (!parse_format(optarg, &fmt))
				return usage_error("unknown format '%s' (text, csv, json)", optarg);
			break;
		case 'o':
			out_path = optarg;
			break;
		case OPT_SVG:
			svg_path = optarg;
			break;
		case 'c':
			cgroups[ro.nr_cgroups++] = optarg;
			break;
		case OPT_SINCE:
			if (!parse_time(optarg, &cfg.since))
				return usage_error("--since: '%s' is not a time (e.g. 2.5, 300ms)", optarg);
			break;
		case OPT_UNTIL:
			if (!parse_time(optarg, &cfg.until) || !cfg.until)
				return usage_error("--until: '%s' is not a time after the start (e.g. 10, 1500ms)", optarg);
			break;
		case 'i':
			if (!parse_time(optarg, &cfg.interval) || cfg.interval < 1000)
				return usage_error("--interval: '%s' is not a time of at least 1us", optarg);
			break;
		case 'w':
			if (!parse_time(optarg, &cfg.window))
				return usage_error("--window: '%s' is not a time", optarg);
			break;
		case OPT_TOP:
			ro.top = strtol(optarg, &end, 10);
			if (end == optarg || *end || ro.top < 0)
				return usage_error("--top: '%s' is not a count", optarg);
			break;
		case OPT_MAP:
			map_opt = optarg;
			break;
		case OPT_STAT:
			stat_opt = optarg;
			break;
		case OPT_NO_HEADER:
			header = false;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case OPT_VERSION:
			printf("%s %s\n", prog, VERSION);
			return 0;
		default:
			fprintf(stderr, "Try '%s --help'.\n", prog);
			return 2;
		}
	}
	if (argc - optind == 2) {
		const char *r = argv[optind++];

		for (i = 0; i < NR_REPORTS; i++)
			want[i] = !strcmp(r, "all") || !strcmp(r, report_names[i]);
		if (!want[0] && !want[1] && !want[2])
			return usage_error("unknown report '%s' (summary, timeline, churn, all)", r);
	}
	if (argc - optind != 1)
		return usage_error("%s", argc - optind > 1 ?
				   "too many arguments: give [REPORT] TRACE.dat" :
				   "no capture file given (TRACE.dat)");
	trace = argv[optind];
	if (cfg.until && cfg.until <= cfg.since)
		return usage_error("--until must come after --since%s", "");

	if ((out_path && output_open(&out, out_path)) ||
	    (svg_path && output_open(&svg, svg_path)))
		goto out;

	analysis_init(&a, &cfg);
	if (read_capture(&a, trace, &page_size, err, sizeof(err))) {
		fprintf(stderr, "%s: %s: %s\n", prog, trace, err);
		goto free;
	}
	map_path = map_opt ? strdup(map_opt) : sidecar(trace, "cgroups");
	stat_path = stat_opt ? strdup(stat_opt) :
		sidecar(trace, "tier_stat.start");
	if ((map_path && read_cgroup_map(&a, map_path, err, sizeof(err))) ||
	    (stat_path && read_tier_stat(&a, stat_path, page_size, err,
					 sizeof(err)))) {
		fprintf(stderr, "%s: %s\n", prog, err);
		goto free;
	}
	bad = unknown_cgroup(&a, &ro);
	if (bad) {
		fprintf(stderr, "%s: %s: no cgroup '%s' in the capture%s\n",
			prog, trace, bad, map_path ? "" :
			" (a cgroup made before recording is named only with --cgroup-map)");
		goto free;
	}

	for (n = 0, i = 0; i < NR_REPORTS; i++) {
		static bool (*const build[])(struct table *,
					      const struct analysis *,
					      const struct report_opts *) = {
			report_summary, report_timeline, report_churn,
		};

		if (!want[i])
			continue;
		shown[n] = &tables[n];
		if (!build[i](&tables[n++], &a, &ro)) {
			fprintf(stderr, "%s: out of memory\n", prog);
			goto tables;
		}
	}
	if (!report_meta(&meta, &a, trace, page_size)) {
		fprintf(stderr, "%s: out of memory\n", prog);
		goto tables;
	}
	ctx.t0 = a.first_ts;
	ctx.page_size = page_size;
	if (render_tables(out.f ? out.f : stdout, fmt, &ctx, shown, n,
			  header || fmt != FMT_TEXT ? &meta : NULL) ||
	    (svg.f && svg_timeline(svg.f, &a, &ro, page_size))) {
		fprintf(stderr, "%s: writing the report failed\n", prog);
		goto meta;
	}
	ret = 0;
	if (out.f && output_commit(&out))
		ret = 1;
	if (svg.f && output_commit(&svg))
		ret = 1;
	if (!out.f && fflush(stdout)) {
		fprintf(stderr, "%s: writing standard output: %s\n", prog,
			strerror(errno));
		ret = 1;
	}
meta:
	table_free(&meta);
tables:
	for (i = 0; i < n; i++)
		table_free(&tables[i]);
free:
	free(map_path);
	free(stat_path);
	analysis_free(&a);
out:
	output_abandon(&out);
	output_abandon(&svg);
	free(cgroups);
	return ret;
}
