// SPDX-License-Identifier: GPL-2.0
/*
 * memcg-tier-report top: what the tier limits do now.  The memcg_tier
 * events, read live, feed the same per-cgroup, per-tier state the reports
 * are built from; every interval the table shows each tier's usage and
 * limits, read from memory.tier_stat (exact, and there for quiet cgroups
 * too), beside the rates of the interval from the events and the cgroup's
 * memory pressure.  The state keeps running totals only, so memory grows
 * with the cgroups seen (removed ones too, for the totals) x tiers, not
 * with records.
 *
 * With -i it replays a capture instead, like below replay: the records
 * are fed at their own pace (or --speed times it) and the same table is
 * shown every interval of capture time, usage and limits from the
 * events; the totals at the end are summary's for the capture.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "args.h"
#include "live.h"
#include "psi.h"
#include "read.h"
#include "report.h"
#include "top.h"

static const char *prog = "memcg-tier-report top";

/* Records are read this often, whatever --interval: the buffer stays small */
#define DRAIN_NS 100000000ULL

/* A tier's running totals, as the last table showed them */
struct counts {
	int64_t charged, uncharged, reclaimed;
	uint64_t reclaims, refused_folios, steered_away;
};

struct top {
	struct analysis a;
	struct live live;
	const char *root;		/* the cgroup2 mount */
	struct counts *shown;		/* by cgroup index x slot */
	uint32_t *walked;		/* by cgroup index: the walk that saw it */
	struct psi *psi;		/* by cgroup index: at that walk */
	bool replay;			/* -i: no walk, no pressure */
	uint32_t cap;			/* cgroups shown and walked hold */
	uint32_t walk;			/* walks so far */
	bool tier_stat, without;	/* memcgs with and without tier_stat */
	char err[512];
};

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void usage(FILE *f)
{
	fprintf(f,
"Usage: %s [OPTION]... [-i TRACE.dat]\n"
"\n"
"Shows, every interval, each cgroup's memory tiers: usage against the\n"
"tier's high and max, and per second the pages charged, uncharged and\n"
"reclaimed, the folios refused migration into the tier (REF FOL/s) and\n"
"the allocations steered away from it (AWAY/s), from the memcg_tier\n"
"events read live, and the cgroup's memory pressure (memory.pressure's\n"
"some and full avg10, %% of time; '-' on a kernel without PSI).  Needs\n"
"root, tracefs and a kernel booted with cgroup.memory=tiered_limits.\n"
"The events are enabled in a tracing instance of its own, removed on\n"
"exit: the rest of tracefs is left as it was.  When it ends (--duration,\n"
"Ctrl-C, SIGTERM) it prints the totals since it started.  The path\n"
"comes last and is shortened in the middle so that lines fit 100\n"
"columns (-f csv has it whole).\n"
"\n"
"With -i it replays a capture through the same screen instead: each\n"
"interval of the capture's time, at the capture's pace; usage and limits\n"
"from the events, pressure unknown; the totals at the end are summary's.\n"
"\n"
"Options:\n"
"  -i, --input FILE      replay FILE, a capture as tracing/record.sh\n"
"                        writes it (its .cgroups, .tier_stat.start and\n"
"                        .tier_stat.end beside it are read, and refused\n"
"                        as summary refuses them)\n"
"      --speed N         replay N times as fast (default 1; 0.5 is half)\n"
"      --buffer NAME     replay the buffer instance NAME ('top' for the\n"
"                        main buffer)\n"
"  -d, --interval TIME   refresh every TIME (default 1s, at least 100ms)\n"
"  -T, --duration TIME   stop after TIME (default: until interrupted; in\n"
"                        a replay, TIME into the capture)\n"
"  -b, --batch           no screen control: one table per interval, for\n"
"                        scripts and logs (the default when standard\n"
"                        output is not a terminal)\n"
"  -s, --sort COLUMN     order rows by COLUMN, largest first (default\n"
"                        usage); the column names are csv's\n"
"  -f, --format FMT      text (default) or csv: each table with its\n"
"                        header line, sizes in pages, the totals last\n"
"      --cgroup-root DIR the cgroup2 mount (default /sys/fs/cgroup)\n"
"  -h, --help            this help\n"
"\n"
"TIME is a number with an optional unit: ns, us, ms or s (default s).\n"
"Exit status: 0 ok (also when interrupted); 1 no events, tiered limits\n"
"off, tracefs or the capture could not be used; 2 wrong usage; 3 the\n"
"capture is damaged (summary says where).\n", prog);
}

/*
 * The path last: it is the one that may be long, and gives way to 100
 * columns.  A tier's nodes are the same for every cgroup: the totals
 * show them, and the screen keeps its width for the path.
 */
static const struct column top_cols[] = {
	{ "tier", "TIER", COL_INT, true },
	{ "usage", "USAGE", COL_PAGES, true },
	{ "high", "HIGH", COL_LIMIT, true },
	{ "max", "MAX", COL_LIMIT, true },
	{ "max_pct", "%MAX", COL_INT, true },
	{ "charged_per_s", "CHARGE/s", COL_PAGES, true },
	{ "uncharged_per_s", "UNCHG/s", COL_PAGES, true },
	{ "reclaimed_per_s", "RECLM/s", COL_PAGES, true },
	{ "refused_folios_per_s", "REF FOL/s", COL_INT, true },
	{ "steered_away_per_s", "AWAY/s", COL_INT, true },
	{ "psi_some_avg10", "SOME%", COL_CENTI, true },
	{ "psi_full_avg10", "FULL%", COL_CENTI, true },
	{ "cgroup", "CGROUP", COL_PATH, true },
};

static const struct column total_cols[] = {
	{ "tier", "TIER", COL_INT, true },
	{ "nodes", "NODES", COL_STR, true },
	{ "charged", "CHARGED", COL_PAGES, true },
	{ "uncharged", "UNCHARGED", COL_PAGES, true },
	{ "reclaims", "RECLAIMS", COL_INT, true },
	{ "reclaimed", "RECLAIMED", COL_PAGES, true },
	{ "refused_folios", "REFUSED FOLIOS", COL_INT, true },
	{ "steered_away", "STEERED AWAY", COL_INT, true },
	{ "cgroup", "CGROUP", COL_PATH, true },
};

#define NCOLS(c) ((int)(sizeof(c) / sizeof((c)[0])))

/* The columns by name: both tables start with the tier */
enum { C_TIER };
enum { T_USAGE = C_TIER + 1, T_HIGH, T_MAX, T_MAX_PCT, T_CHARGED, T_UNCHARGED,
       T_RECLAIMED, T_REFUSED_FOLIOS, T_STEERED_AWAY, T_PSI_SOME, T_PSI_FULL,
       T_CGROUP };
enum { S_NODES = C_TIER + 1, S_CHARGED, S_UNCHARGED, S_RECLAIMS, S_RECLAIMED,
       S_REFUSED_FOLIOS, S_STEERED_AWAY, S_CGROUP };

static struct counts counts_of(const struct tier_state *t)
{
	struct counts c = { t->charged, t->uncharged, 0, 0, 0, t->steered_away };
	int i;

	for (i = 0; i < NR_RECLAIM_REASONS; i++) {
		c.reclaims += t->reclaims[i];
		c.reclaimed += t->reclaimed[i];
	}
	for (i = 0; i < NR_REFUSE_REASONS; i++)
		c.refused_folios += t->refused_folios[i];
	return c;
}

/* shown[], walked[] and psi[] as long as the state's cgroups */
static bool grow(struct top *tp)
{
	uint32_t cap = tp->cap ? tp->cap : 64;
	struct counts *s;
	struct psi *p;
	uint32_t *w;

	while (cap < tp->a.nr_cg)
		cap *= 2;
	if (cap == tp->cap)
		return true;
	s = realloc(tp->shown, (size_t)cap * TIER_MAX_SLOTS * sizeof(*s));
	if (!s)
		return false;
	tp->shown = s;
	w = realloc(tp->walked, (size_t)cap * sizeof(*w));
	if (!w)
		return false;
	tp->walked = w;
	p = realloc(tp->psi, (size_t)cap * sizeof(*p));
	if (!p)
		return false;
	tp->psi = p;
	memset(s + (size_t)tp->cap * TIER_MAX_SLOTS, 0,
	       (size_t)(cap - tp->cap) * TIER_MAX_SLOTS * sizeof(*s));
	memset(w + tp->cap, 0, (size_t)(cap - tp->cap) * sizeof(*w));
	tp->cap = cap;
	return true;
}

/* One cgroup's memory.tier_stat, as it is now; -1 on a bad line */
static int read_stat(struct top *tp, int dir, uint64_t id, const char *path)
{
	char line[1024], buf[PATH_MAX + 1100];
	struct cgroup_state *cg;
	int fd = openat(dir, "memory.tier_stat", O_RDONLY);
	FILE *f;

	if (fd < 0) {
		if (*path && !faccessat(dir, "memory.current", F_OK, 0))
			tp->without = true;
		return 0;
	}
	f = fdopen(fd, "r");
	if (!f) {
		close(fd);
		return 0;
	}
	tp->tier_stat = true;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		snprintf(buf, sizeof(buf), "%llu %s %s", (unsigned long long)id,
			 *path ? path : "/", line);
		if (tier_stat_now(&tp->a, buf, tp->a.page_size, tp->err,
				  sizeof(tp->err))) {
			fclose(f);
			return -1;
		}
	}
	fclose(f);
	cg = analysis_cgroup(&tp->a, id);
	if (!cg || !grow(tp)) {
		snprintf(tp->err, sizeof(tp->err), "out of memory");
		return -1;
	}
	tp->walked[cg - tp->a.cg] = tp->walk;
	psi_read(dir, &tp->psi[cg - tp->a.cg]);
	return 0;
}

/* Every cgroup under @path (relative to the mount), depth first */
static int walk_dir(struct top *tp, int parent, const char *name, char *path,
		    size_t len)
{
	int dir = openat(parent, name, O_RDONLY | O_DIRECTORY);
	struct dirent *de;
	struct stat st;
	DIR *d;
	int ret = 0;

	if (dir < 0) {
		if (!*path) {
			snprintf(tp->err, sizeof(tp->err), "cannot open: %s",
				 strerror(errno));
			return -1;
		}
		return 0;	/* removed while we walked */
	}
	if (fstat(dir, &st) || read_stat(tp, dir, st.st_ino, path)) {
		close(dir);
		return tp->err[0] ? -1 : 0;
	}
	d = fdopendir(dir);
	if (!d) {
		close(dir);
		return 0;
	}
	while (!ret && (de = readdir(d))) {
		size_t n = strlen(de->d_name);

		if (de->d_type != DT_DIR || de->d_name[0] == '.' ||
		    len + n + 2 > PATH_MAX)
			continue;
		path[len] = '/';
		memcpy(path + len + 1, de->d_name, n + 1);
		ret = walk_dir(tp, dirfd(d), de->d_name, path, len + n + 1);
		path[len] = '\0';
	}
	closedir(d);
	return ret;
}

static int walk(struct top *tp)
{
	char path[PATH_MAX] = "";

	tp->walk++;
	tp->err[0] = '\0';
	return walk_dir(tp, AT_FDCWD, tp->root, path, 0);
}

/* Whether the boot asked for tiered limits, when no cgroup tells */
static bool cmdline_tiered(void)
{
	char buf[4096], *p;
	FILE *f = fopen("/proc/cmdline", "r");
	bool on = false;

	if (!f)
		return false;
	if (fgets(buf, sizeof(buf), f))
		for (p = strtok(buf, " \n"); p; p = strtok(NULL, " \n"))
			if (!strncmp(p, "cgroup.memory=", 14) &&
			    strstr(p + 14, "tiered_limits"))
				on = true;
	fclose(f);
	return on;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void sleep_until(uint64_t t)
{
	uint64_t n = now_ns();
	struct timespec ts;

	if (n >= t)
		return;
	ts.tv_sec = (t - n) / 1000000000ULL;
	ts.tv_nsec = (t - n) % 1000000000ULL;
	nanosleep(&ts, NULL);	/* a signal ends it early: that is the point */
}

static const char *cgroup_name(const struct cgroup_state *cg, char *buf,
			       size_t len)
{
	if (cg->path)
		return cg->path;
	snprintf(buf, len, "(id %llu)", (unsigned long long)cg->id);
	return buf;
}

/* A row naming cgroup @cg (in column @name_col) and its tier @slot */
static struct cell *tier_row(struct table *t, const struct cgroup_state *cg,
			     int slot, int name_col)
{
	struct cell *row = table_row(t);
	char name[48];

	if (!row || !cell_str(&row[name_col], cgroup_name(cg, name, sizeof(name))))
		return NULL;
	cell_int(&row[C_TIER], slot);
	return row;
}

static int64_t limit_cell(const struct analysis *a, uint64_t pages)
{
	return no_limit(a, pages) ? CELL_NO_LIMIT : (int64_t)pages;
}

/* A rate per second over @ns, rounded to the nearest whole */
static int64_t per_s(int64_t n, uint64_t ns)
{
	return (int64_t)((double)n * 1e9 / (double)ns + (n < 0 ? -0.5 : 0.5));
}

/* The interval's table: live cgroups, their tiers; the totals move on */
static bool interval_table(struct top *tp, struct table *t, uint64_t ns)
{
	struct analysis *a = &tp->a;
	uint32_t i;
	int s;

	if (!grow(tp))
		return false;
	for (i = 0; i < a->nr_cg; i++) {
		const struct cgroup_state *cg = &a->cg[i];

		for (s = 0; s < TIER_MAX_SLOTS; s++) {
			const struct tier_state *ts = &cg->tier[s];
			struct counts *was = &tp->shown[(size_t)i * TIER_MAX_SLOTS + s];
			struct counts now = counts_of(ts);
			struct cell *row;

			/* A replay has no walk: a cgroup is there until its rmdir */
			if (!ts->seen || cg->removed ||
			    (!tp->replay && tp->walked[i] != tp->walk)) {
				*was = now;
				continue;
			}
			row = tier_row(t, cg, s, T_CGROUP);
			if (!row)
				return false;
			if (!tp->replay && tp->psi[i].some >= 0)
				cell_int(&row[T_PSI_SOME], tp->psi[i].some);
			if (!tp->replay && tp->psi[i].full >= 0)
				cell_int(&row[T_PSI_FULL], tp->psi[i].full);
			if (ts->usage_known) {
				cell_int(&row[T_USAGE], ts->usage);
				cell_int(&row[T_HIGH], limit_cell(a, ts->high));
				cell_int(&row[T_MAX], limit_cell(a, ts->max));
				if (!no_limit(a, ts->max) && ts->max)
					cell_int(&row[T_MAX_PCT], ts->usage * 100 / ts->max);
			}
			cell_int(&row[T_CHARGED], per_s(now.charged - was->charged, ns));
			cell_int(&row[T_UNCHARGED], per_s(now.uncharged - was->uncharged, ns));
			cell_int(&row[T_RECLAIMED], per_s(now.reclaimed - was->reclaimed, ns));
			cell_int(&row[T_REFUSED_FOLIOS], per_s(now.refused_folios - was->refused_folios, ns));
			cell_int(&row[T_STEERED_AWAY], per_s(now.steered_away - was->steered_away, ns));
			*was = now;
		}
	}
	return true;
}

/* Everything the events said since the start, removed cgroups too */
static bool totals_table(struct top *tp, struct table *t)
{
	struct analysis *a = &tp->a;
	uint32_t i;
	int s;

	for (i = 0; i < a->nr_cg; i++) {
		const struct cgroup_state *cg = &a->cg[i];

		for (s = 0; s < TIER_MAX_SLOTS; s++) {
			const struct tier_state *ts = &cg->tier[s];
			struct counts c = counts_of(ts);
			struct cell *row;

			if (!ts->seen)
				continue;
			row = tier_row(t, cg, s, S_CGROUP);
			if (!row || (ts->nodes[0] && !cell_str(&row[S_NODES], ts->nodes)))
				return false;
			cell_int(&row[S_CHARGED], c.charged);
			cell_int(&row[S_UNCHARGED], c.uncharged);
			cell_int(&row[S_RECLAIMS], c.reclaims);
			cell_int(&row[S_RECLAIMED], c.reclaimed);
			cell_int(&row[S_REFUSED_FOLIOS], c.refused_folios);
			cell_int(&row[S_STEERED_AWAY], c.steered_away);
		}
	}
	return true;
}

struct top_opts {
	uint64_t interval, duration;
	bool batch;
	const char *sort;
	enum format fmt;
	const char *input, *buffer;	/* -i: a replay */
	double speed;
};

/* Write one table; false when standard output is gone */
static bool show(const struct top_opts *o, int page_size, struct table *t,
		 bool clear)
{
	struct render_ctx ctx = { 0, false, page_size, NULL, 0, TEXT_WIDTH };
	struct table *one = t;

	if (clear)
		fputs("\033[H\033[2J", stdout);
	return !render_tables(stdout, o->fmt, &ctx, &one, 1, NULL) &&
	       !fflush(stdout);
}

/*
 * The interval's table, over @ns, under @title; -1 out of memory, 1 when
 * nobody reads standard output any more, 0 shown.
 */
static int screen(struct top *tp, const struct top_opts *o, uint64_t ns,
		  const char *title)
{
	bool clear = !o->batch && o->fmt == FMT_TEXT && isatty(STDOUT_FILENO);
	struct table t;
	int ret = 0;

	table_init(&t, "top", title, top_cols, NCOLS(top_cols));
	if (!interval_table(tp, &t, ns) || !table_sort(&t, o->sort))
		ret = -1;
	else if (!show(o, tp->a.page_size, &t, clear))
		ret = 1;
	table_free(&t);
	return ret;
}

static int parse(struct top_opts *o, const char **root, int argc, char **argv)
{
	enum { OPT_ROOT = 256, OPT_SPEED, OPT_BUFFER };
	static const struct option opts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "speed", required_argument, NULL, OPT_SPEED },
		{ "buffer", required_argument, NULL, OPT_BUFFER },
		{ "interval", required_argument, NULL, 'd' },
		{ "duration", required_argument, NULL, 'T' },
		{ "batch", no_argument, NULL, 'b' },
		{ "sort", required_argument, NULL, 's' },
		{ "format", required_argument, NULL, 'f' },
		{ "cgroup-root", required_argument, NULL, OPT_ROOT },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *speed = NULL;
	struct table probe;
	char *end;
	int opt;

	while ((opt = getopt_long(argc, argv, "i:d:T:bs:f:h", opts, NULL)) != -1) {
		switch (opt) {
		case 'i':
			o->input = optarg;
			break;
		case OPT_SPEED:
			speed = optarg;
			o->speed = strtod(optarg, &end);
			/* at most a year of capture a second */
			if (end == optarg || *end || !(o->speed > 0) ||
			    o->speed > 3e7)
				return usage_error(prog, "--speed '%s': a number above 0 (2: twice as fast)", optarg);
			break;
		case OPT_BUFFER:
			o->buffer = optarg;
			break;
		case 'd':
			if (!parse_time(optarg, &o->interval) ||
			    o->interval < DRAIN_NS)
				return usage_error(prog, "--interval '%s': a time of at least 100ms", optarg);
			break;
		case 'T':
			if (!parse_time(optarg, &o->duration) || !o->duration)
				return usage_error(prog, "--duration '%s': a time above 0", optarg);
			break;
		case 'b':
			o->batch = true;
			break;
		case 's':
			o->sort = optarg;
			break;
		case 'f':
			if (!parse_format(optarg, &o->fmt) || o->fmt == FMT_JSON)
				return usage_error(prog, "unknown format '%s' (text, csv)", optarg);
			break;
		case OPT_ROOT:
			*root = optarg;
			break;
		case 'h':
			usage(stdout);
			return -1;
		default:
			fprintf(stderr, "Try '%s --help'.\n", prog);
			return 2;
		}
	}
	if (optind < argc)
		return usage_error(prog, "unexpected argument '%s'", argv[optind]);
	if (!o->input && (speed || o->buffer))
		return usage_error(prog, "%s is for a replay: give the capture with -i FILE",
				   speed ? "--speed" : "--buffer");
	table_init(&probe, "top", NULL, top_cols, NCOLS(top_cols));
	if (!table_has_column(&probe, o->sort))
		return usage_error(prog, "--sort: no column '%s' (tier, usage, high, max, max_pct, charged_per_s, uncharged_per_s, reclaimed_per_s, refused_folios_per_s, steered_away_per_s, psi_some_avg10, psi_full_avg10, cgroup)", o->sort);
	return 0;
}

static int run(struct top *tp, const struct top_opts *o)
{
	uint64_t start = now_ns(), last = start, next = start + o->interval;
	uint64_t end = o->duration ? start + o->duration : UINT64_MAX;
	char title[160];

	fprintf(stderr, "%s: tracing in instance memcg_tier_top_%d, every %.1f s%s\n",
		prog, (int)getpid(), o->interval / 1e9,
		o->duration ? "" : "; Ctrl-C ends");
	while (!stop) {
		uint64_t wake = now_ns() + DRAIN_NS, n;

		sleep_until(wake < next ? (wake < end ? wake : end) :
			    (next < end ? next : end));
		switch (live_drain(&tp->live)) {
		case 0:
			break;
		case -1:
			goto nomem;
		default:
			snprintf(tp->err, sizeof(tp->err),
				 "cannot read the tracing instance's buffers: %s",
				 strerror(errno));
			goto bad;
		}
		n = now_ns();
		if (n >= next || n >= end) {
			if (walk(tp))
				goto bad;
			snprintf(title, sizeof(title),
				 "memcg-tier-report top: %.1f s, %llu records, %llu lost%s%s",
				 (n - start) / 1e9, (unsigned long long)tp->live.records,
				 (unsigned long long)tp->live.lost,
				 tp->live.lost ? " (rates and totals are low)" : "",
				 tp->live.bad ? ", some records did not decode" : "");
			switch (screen(tp, o, n - last, title)) {
			case -1:
				goto nomem;
			case 1:
				stop = 1;	/* nobody reads: clean up and go */
			}
			last = n;
			next += o->interval;
			if (next <= n)
				next = n + o->interval;
		}
		if (n >= end)
			break;
	}
	return 0;
nomem:
	snprintf(tp->err, sizeof(tp->err), "out of memory");
bad:
	fprintf(stderr, "%s: %s\n", prog, tp->err);
	return 1;
}

/* A replay's clock: capture time from its first record, and the wall's */
struct replay {
	struct top *tp;
	const struct top_opts *o;
	bool started, failed;
	uint64_t first, last, next;	/* capture time, ns */
	uint64_t wall0;
};

/* Every interval of capture time that ends by @ts, each at its pace */
static bool replay_until(struct replay *r, uint64_t ts)
{
	char title[160];

	while (!stop && ts >= r->next) {
		sleep_until(r->wall0 + (uint64_t)((r->next - r->first) / r->o->speed));
		snprintf(title, sizeof(title),
			 "memcg-tier-report top: %s, %.1f s in, %llu records",
			 r->o->input, (r->next - r->first) / 1e9,
			 (unsigned long long)r->tp->a.records);
		switch (screen(r->tp, r->o, r->next - r->last, title)) {
		case -1:
			r->failed = true;
			return false;
		case 1:
			stop = 1;
		}
		r->last = r->next;
		r->next += r->o->interval;
	}
	return !stop;
}

static bool replay_at(void *arg, uint64_t ts)
{
	struct replay *r = arg;

	if (!r->started) {
		r->started = true;
		r->first = r->last = ts;
		r->next = ts + r->o->interval;
		r->wall0 = now_ns();
	}
	return replay_until(r, ts);
}

/* top -i: the capture through the same screen; 0, 1 or EXIT_DAMAGED */
static int replay(struct top *tp, const struct top_opts *o)
{
	struct replay r = { .tp = tp, .o = o };
	struct read_pace pace = { replay_at, &r };
	/* The side files summary reads by default, checked as it checks them */
	char *map = sidecar(o->input, "cgroups");
	char *start = sidecar(o->input, "tier_stat.start");
	char *end = sidecar(o->input, "tier_stat.end");
	struct damage dmg;
	unsigned int named;
	int ret = 1;

	tp->replay = true;
	tp->a.cfg.until = o->duration;
	damage_init(&dmg);
	/*
	 * The map is read before the capture too, so that the screen names
	 * the cgroups (a cgroup_mkdir record names one all the same);
	 * read_side_files() reads it again after, as summary does, and says
	 * whether it is another capture's.
	 */
	if (check_side_files(map, start, end, tp->err, sizeof(tp->err)) ||
	    (map && read_cgroup_map(&tp->a, map, &named, tp->err,
				    sizeof(tp->err)))) {
		fprintf(stderr, "%s: %s\n", prog, tp->err);
		goto out;
	}
	if (read_capture(&tp->a, o->input, o->buffer, &pace, &dmg, tp->err,
			 sizeof(tp->err))) {
		if (r.failed)
			snprintf(tp->err, sizeof(tp->err), "out of memory");
		fprintf(stderr, "%s: %s: %s\n", prog, o->input, tp->err);
		goto out;
	}
	/* The last interval, short, up to the last record read */
	if (!stop && r.started && tp->a.last_ts > r.last) {
		r.next = tp->a.last_ts;
		if (!replay_until(&r, tp->a.last_ts) && r.failed) {
			fprintf(stderr, "%s: out of memory\n", prog);
			goto out;
		}
	}
	/* The side files after the capture, as summary reads them */
	if (read_side_files(&tp->a, map, start, end, tp->err,
			    sizeof(tp->err))) {
		fprintf(stderr, "%s: %s\n", prog, tp->err);
		goto out;
	}
	if (!damage_from_state(&dmg, &tp->a)) {
		fprintf(stderr, "%s: out of memory\n", prog);
		goto out;
	}
	ret = 0;
	if (dmg.n) {
		fprintf(stderr, "%s: %s: damaged capture, the figures are not whole: memcg-tier-report summary says where\n",
			prog, o->input);
		ret = EXIT_DAMAGED;
	}
out:
	free(map);
	free(start);
	free(end);
	damage_free(&dmg);
	return ret;
}

/* Live: the cgroups walked, then the events until the end */
static int live(struct top *tp, const struct top_opts *o)
{
	int ret;

	/* Time 0: every record is inside the window and in bucket 0 */
	analysis_tick(&tp->a, 0);
	tp->a.page_size = sysconf(_SC_PAGESIZE);
	if (walk(tp)) {
		fprintf(stderr, "%s: %s: %s\n", prog, tp->root, tp->err);
		return 1;
	}
	if (tp->without || (!tp->tier_stat && !cmdline_tiered())) {
		fprintf(stderr, "%s: tiered memcg limits are off: no memory.tier_stat under %s, and the memcg_tier events never fire; boot the patched kernel with cgroup.memory=tiered_limits\n",
			prog, tp->root);
		return 1;
	}
	if (live_open(&tp->live, &tp->a, tp->err, sizeof(tp->err))) {
		fprintf(stderr, "%s: %s\n", prog, tp->err);
		return 1;
	}
	ret = run(tp, o);
	if (live_close(&tp->live) && !ret) {
		fprintf(stderr, "%s: the last records could not be read\n", prog);
		ret = 1;
	}
	return ret;
}

int top_main(int argc, char **argv)
{
	struct top_opts o = { .interval = 1000000000ULL, .sort = "usage",
			      .speed = 1 };
	struct analysis_config cfg = { .interval = TIME_MAX_NS, .window = 1000000000ULL };
	struct top tp = { .root = "/sys/fs/cgroup" };
	/* SA_RESTART: a blocked write goes on; nanosleep() still ends early */
	struct sigaction sa = { .sa_handler = on_signal, .sa_flags = SA_RESTART };
	char title[160];
	struct table t;
	int ret;

	ret = parse(&o, &tp.root, argc, argv);
	if (ret)
		return ret < 0 ? 0 : ret;
	analysis_init(&tp.a, &cfg);
	/* Interrupted or not, the instance must go: no handler may exit */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGQUIT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	ret = o.input ? replay(&tp, &o) : live(&tp, &o);
	if (ret && ret != EXIT_DAMAGED)
		goto free;
	if (o.input)
		snprintf(title, sizeof(title), "Totals of %s: %llu records, %llu lost%s",
			 o.input, (unsigned long long)tp.a.records,
			 (unsigned long long)tp.a.lost,
			 tp.a.lost ? " (the totals are low)" : "");
	else
		snprintf(title, sizeof(title),
			 "Totals since the start: %llu records, %llu lost%s%s",
			 (unsigned long long)tp.live.records,
			 (unsigned long long)tp.live.lost,
			 tp.live.lost ? " (the totals are low)" : "",
			 tp.live.bad ? ", some records did not decode" : "");
	table_init(&t, "totals", title, total_cols, NCOLS(total_cols));
	if (!totals_table(&tp, &t)) {
		fprintf(stderr, "%s: out of memory\n", prog);
		ret = 1;
	} else if (!table_sort(&t, "cgroup") ||
		   !show(&o, tp.a.page_size, &t, false)) {
		ret = 1;
	}
	table_free(&t);
free:
	analysis_free(&tp.a);
	free(tp.shown);
	free(tp.walked);
	free(tp.psi);
	return ret;
}
