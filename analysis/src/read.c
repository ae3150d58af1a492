// SPDX-License-Identifier: GPL-2.0
/*
 * The capture reader.  Records are merged across CPUs in time order here,
 * not by tracecmd_iterate_events(), so that reading stops at --until on
 * every libtracecmd version (before 1.5 a callback cannot stop it) and so
 * that each CPU's stream can be checked: its timestamps never go back and
 * it reaches the end of the data recorded for that CPU.  libtracecmd before
 * 1.5 ends a CPU's stream without a word at a chunk it cannot decompress or
 * a page it cannot read.
 *
 * No record is kept: the library maps one page per CPU at a time.  With
 * libtracecmd before 1.5.1 a compressed capture is first decompressed
 * whole (libtracecmd-workaround.c); a later library reads it as it is.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "decode.h"
#include "read.h"
#include "libtracecmd-workaround.h"

/* What every trace-cmd capture starts with */
static const char trace_magic[] = "\027\010\104tracing";

/* One CPU's stream and what it showed */
struct stream {
	int cpu;
	struct tep_record *rec;		/* next record, NULL once ended */
	unsigned long long last_ts, last_offset;
	bool any;
	bool stopped;			/* at --until, before its end */
	uint64_t bad, backwards, lost, unknown;
	uint64_t bad_ts, backwards_ts, lost_ts, unknown_ts;
	char bad_msg[120];
};

struct reader {
	struct analysis *a;
	struct tier_decoder dec;
	struct tep_handle *tep;
	struct tracecmd_input *h;
	const struct read_pace *pace;
	struct stream *st;
	int nr;
	int *heap;			/* stream indices by next timestamp */
	int heap_n;
	unsigned long long tier_records;
};

static unsigned long long next_ts(const struct reader *r, int i)
{
	return r->st[r->heap[i]].rec->ts;
}

static void sift_down(struct reader *r, int i)
{
	for (;;) {
		int l = 2 * i + 1, m = i, t;

		if (l < r->heap_n && next_ts(r, l) < next_ts(r, m))
			m = l;
		if (l + 1 < r->heap_n && next_ts(r, l + 1) < next_ts(r, m))
			m = l + 1;
		if (m == i)
			return;
		t = r->heap[i];
		r->heap[i] = r->heap[m];
		r->heap[m] = t;
		i = m;
	}
}

static void note(uint64_t *count, uint64_t *first, uint64_t ts)
{
	if (!(*count)++)
		*first = ts;
}

/* One record of stream @s; -1 with err set when the state cannot go on */
static int take(struct reader *r, struct stream *s, struct tep_record *rec,
		char *err, size_t errlen)
{
	struct tier_record tr;
	char msg[120];
	int ret;

	if (rec->missed_events) {
		uint64_t n = rec->missed_events > 0 ? rec->missed_events : 1;

		s->lost += n - 1;
		note(&s->lost, &s->lost_ts, rec->ts);
		analysis_lost(r->a, n);
	}
	if (s->any && rec->ts < s->last_ts)
		note(&s->backwards, &s->backwards_ts, rec->ts);
	s->any = true;
	s->last_ts = rec->ts;
	s->last_offset = rec->offset;
	analysis_tick(r->a, rec->ts);
	ret = tier_decode(&r->dec, rec->data, rec->size, rec->ts, &tr,
			  msg, sizeof(msg));
	if (ret < 0) {
		if (!s->bad)
			snprintf(s->bad_msg, sizeof(s->bad_msg), "%s", msg);
		note(&s->bad, &s->bad_ts, rec->ts);
		return 0;
	}
	if (!ret) {
		if (!tep_find_event(r->tep, tep_data_type(r->tep, rec)))
			note(&s->unknown, &s->unknown_ts, rec->ts);
		return 0;
	}
	if (tr.kind != REC_MKDIR && tr.kind != REC_RMDIR)
		r->tier_records++;
	switch (analysis_feed(r->a, &tr)) {
	case FEED_OK:
		return 0;
	case FEED_TOO_MANY_BUCKETS:
		snprintf(err, errlen,
			 "--bucket of %llu ns makes more than %u buckets per tier over this capture; choose a longer one",
			 (unsigned long long)r->a->cfg.interval, BUCKETS_MAX);
		return -1;
	default:
		snprintf(err, errlen, "out of memory");
		return -1;
	}
}

/*
 * Stream @s's next record is past --until: the stream is done, unless a
 * record soon after comes back into the window, as after a page whose
 * timestamp was damaged forward.  Returns true with s->rec on that
 * record; false once the stream is stopped or ended.
 */
#define LOOKAHEAD 512

static bool back_in_window(struct reader *r, struct stream *s)
{
	int n;

	for (n = 0; s->rec && n < LOOKAHEAD; n++) {
		if (!analysis_past_until(r->a, s->rec->ts)) {
			note(&s->backwards, &s->backwards_ts, s->rec->ts);
			return true;
		}
		s->any = true;
		s->last_ts = s->rec->ts;
		s->last_offset = s->rec->offset;
		tracecmd_free_record(s->rec);
		s->rec = tracecmd_read_data(r->h, s->cpu);
	}
	if (s->rec) {
		tracecmd_free_record(s->rec);
		s->rec = NULL;
		s->stopped = true;
	}
	return false;
}

/* Streams in time order up to --until; -1 with err set on a fatal error */
static int merge(struct reader *r, char *err, size_t errlen)
{
	int i;

	for (i = 0; i < r->nr; i++) {
		r->st[i].rec = tracecmd_read_data(r->h, r->st[i].cpu);
		if (r->st[i].rec)
			r->heap[r->heap_n++] = i;
	}
	for (i = r->heap_n / 2 - 1; i >= 0; i--)
		sift_down(r, i);
	while (r->heap_n) {
		struct stream *s = &r->st[r->heap[0]];
		struct tep_record *rec = s->rec;

		if (analysis_past_until(r->a, rec->ts)) {
			if (!back_in_window(r, s))
				r->heap[0] = r->heap[--r->heap_n];
			sift_down(r, 0);
			continue;
		}
		/* Stopped: s->rec stays, so the stream does not count as cut */
		if (r->pace && !r->pace->at(r->pace->arg, rec->ts))
			return 0;
		if (take(r, s, rec, err, errlen)) {
			tracecmd_free_record(rec);
			s->rec = NULL;
			return -1;
		}
		tracecmd_free_record(rec);
		s->rec = tracecmd_read_data(r->h, s->cpu);
		if (!s->rec)
			r->heap[0] = r->heap[--r->heap_n];
		sift_down(r, 0);
	}
	return 0;
}

/*
 * A stream that ended (not one stopped at --until) must have reached the
 * last record of its CPU's data; otherwise the rest was never read.
 */
static bool check_end(struct reader *r, struct stream *s, struct damage *d)
{
	struct tep_record *last;
	uint64_t from = s->any ? s->last_ts : r->a->first_ts;
	bool ok = true;

	if (s->rec || s->stopped)
		return true;
	last = tracecmd_read_cpu_last(r->h, s->cpu);
	if (!last)
		ok = damage_add(d, DMG_STREAM_CUT, s->cpu, from, 0,
				"the last page of the CPU's data cannot be read; its records end %s",
				s->any ? "there or earlier" : "before the first");
	else if (!s->any || last->offset != s->last_offset)
		ok = damage_add(d, DMG_STREAM_CUT, s->cpu, from,
				last->offset - (s->any ? s->last_offset : 0),
				"records end before the CPU's data does (its last record is %.6f s in): a damaged page or chunk; count is the bytes not read",
				(double)(int64_t)(last->ts - r->a->first_ts) / 1e9);
	if (last)
		tracecmd_free_record(last);
	return ok;
}

static bool stream_damage(struct reader *r, struct stream *s,
			  struct damage *d)
{
	return check_end(r, s, d) &&
	       (!s->bad || damage_add(d, DMG_BAD_RECORD, s->cpu, s->bad_ts,
				      s->bad, "records that cannot be decoded, skipped; the first: %s",
				      s->bad_msg)) &&
	       (!s->unknown || damage_add(d, DMG_UNKNOWN_EVENT, s->cpu,
					  s->unknown_ts, s->unknown,
					  "records of an event id the capture has no format for, skipped")) &&
	       (!s->backwards || damage_add(d, DMG_TIME_BACKWARDS, s->cpu,
					    s->backwards_ts, s->backwards,
					    "records whose timestamp is before the previous one of the same CPU")) &&
	       (!s->lost || damage_add(d, DMG_LOST, s->cpu, s->lost_ts, s->lost,
				       "records the ring buffer dropped while recording (its overruns): figures from here on miss them"));
}

/* Empty, unreadable or not a capture: said before libtracecmd tries */
static int check_header(const char *file, char *err, size_t errlen)
{
	char head[sizeof(trace_magic) - 1];
	struct stat st;
	size_t n;
	FILE *f;

	f = fopen(file, "rb");
	if (!f) {
		snprintf(err, errlen, "cannot open: %s", strerror(errno));
		return -1;
	}
	if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
		fclose(f);
		snprintf(err, errlen, "is a directory, not a capture");
		return -1;
	}
	n = fread(head, 1, sizeof(head), f);
	fclose(f);
	if (n == 0) {
		snprintf(err, errlen, "empty file, not a capture");
		return -1;
	}
	if (n < sizeof(head) || memcmp(head, trace_magic, sizeof(head))) {
		snprintf(err, errlen,
			 "not a trace-cmd capture (no trace.dat header)");
		return -1;
	}
	return 0;
}

/*
 * libtracecmd prints some of its own messages whatever its log level:
 * tracecmd_copy() where it put each CPU's data, the reader its mmap()
 * failures on a damaged capture.  They run with stderr on /dev/null, and
 * the analyzer says in one line what went wrong.
 */
static int stderr_off(void)
{
	int saved = dup(STDERR_FILENO), null = open("/dev/null", O_WRONLY);

	fflush(stderr);
	if (saved >= 0 && null >= 0)
		dup2(null, STDERR_FILENO);
	if (null >= 0)
		close(null);
	if (null < 0 && saved >= 0) {
		close(saved);
		return -1;
	}
	return saved;
}

static void stderr_on(int saved)
{
	if (saved < 0)
		return;
	dup2(saved, STDERR_FILENO);
	close(saved);
}

static const char unreadable[] =
	"truncated or corrupt capture: libtracecmd cannot read its headers and data";

/*
 * tracecmd_open() in two steps: when libtracecmd 1.3 fails to set up the
 * CPU data of a damaged capture, its own clean-up (tracecmd_close() from
 * tracecmd_open()) crashes, so such a handle is left to the end of the
 * process instead.
 */
static struct tracecmd_input *open_capture(const char *file)
{
	int quiet = stderr_off();
	struct tracecmd_input *h;

	h = tracecmd_open_head(file, TRACECMD_FL_LOAD_NO_PLUGINS);
	if (h && tracecmd_init_data(h) < 0)
		h = NULL;
	stderr_on(quiet);
	return h;
}

/* The handle of the buffer to read; NULL with err set */
static struct tracecmd_input *pick_buffer(struct tracecmd_input *h,
					  const char *buffer, char *err,
					  size_t errlen)
{
	int n = tracecmd_buffer_instances(h), i;
	size_t used;

	if (buffer && !strcmp(buffer, "top"))
		return h;
	for (i = 0; buffer && i < n; i++)
		if (!strcmp(tracecmd_buffer_instance_name(h, i), buffer))
			return tracecmd_buffer_instance_handle(h, i);
	if (!n && !buffer)
		return h;
	if (!n) {
		snprintf(err, errlen, "--buffer %s: the capture has no buffer instance, only the top buffer",
			 buffer);
		return NULL;
	}
	used = snprintf(err, errlen, buffer ?
			"--buffer %s: no such buffer; the capture has the top buffer and the instance%s" :
			"%sthe capture has the top buffer and the buffer instance%s",
			buffer ? buffer : "", n > 1 ? "s" : "");
	for (i = 0; i < n && used < errlen; i++)
		used += snprintf(err + used, errlen - used, "%s '%s'",
				 i ? "," : "", tracecmd_buffer_instance_name(h, i));
	if (!buffer && used < errlen)
		snprintf(err + used, errlen - used,
			 " (trace-cmd record -B): choose one with --buffer NAME, or --buffer top");
	return NULL;
}

int read_capture(struct analysis *a, const char *file, const char *buffer,
		 const struct read_pace *pace, struct damage *dmg,
		 char *err, size_t errlen)
{
	struct reader r = { .a = a, .pace = pace };
	struct tracecmd_input *top, *h;
	char msg[200];
	int ret = -1, i, cpus, quiet;

	if (check_header(file, err, errlen))
		return -1;
	/* One clear message of ours instead of the library's */
	tracecmd_set_loglevel(TEP_LOG_NONE);
	tep_set_loglevel(TEP_LOG_NONE);
	*err = '\0';
	quiet = stderr_off();
	top = workaround_decompressed(file, err, errlen);
	stderr_on(quiet);
	if (!top && *err)
		return -1;
	if (!top)
		top = open_capture(file);
	if (!top) {
		snprintf(err, errlen, "%s", unreadable);
		return -1;
	}
	h = pick_buffer(top, buffer, err, errlen);
	if (!h)
		goto close;
	r.h = h;
	r.tep = tracecmd_get_tep(h);
	a->page_size = tep_get_page_size(r.tep);
	if (a->page_size <= 0)
		a->page_size = 4096;
	if (tier_decoder_init(&r.dec, r.tep, msg, sizeof(msg))) {
		snprintf(err, errlen, "%s", msg);
		goto out;
	}
	if (!tier_decoder_has(&r.dec, REC_CHARGE)) {
		snprintf(err, errlen,
			 "no memcg_tier events in the capture; record on a kernel booted with cgroup.memory=tiered_limits, with tracing/record.sh or 'trace-cmd record -e memcg_tier -e cgroup ...'");
		goto out;
	}
	cpus = tracecmd_cpus(h);
	r.st = calloc(cpus > 0 ? cpus : 1, sizeof(*r.st));
	r.heap = calloc(cpus > 0 ? cpus : 1, sizeof(*r.heap));
	if (!r.st || !r.heap) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	for (i = 0; i < cpus; i++)
		if (tracecmd_get_cpu_file_size(h, i) > 0)
			r.st[r.nr++].cpu = i;
	if (merge(&r, err, errlen))
		goto out;
	for (i = 0; i < r.nr; i++)
		if (!stream_damage(&r, &r.st[i], dmg)) {
			snprintf(err, errlen, "out of memory");
			goto out;
		}
	if (!r.tier_records) {
		snprintf(err, errlen,
			 "the capture has the memcg_tier formats but no memcg_tier record%s (was the kernel booted with cgroup.memory=tiered_limits, and did a cgroup v2 memcg charge memory while recording?)",
			 a->cfg.until ? " up to --until" : "");
		goto out;
	}
	if (a->cfg.since > a->last_ts - a->first_ts) {
		snprintf(err, errlen,
			 "--since %.6g s is after the capture's last record (%.6f s in)",
			 a->cfg.since / 1e9, (a->last_ts - a->first_ts) / 1e9);
		goto out;
	}
	analysis_finish(a);
	ret = 0;
out:
	for (i = 0; i < r.nr; i++)
		if (r.st[i].rec)
			tracecmd_free_record(r.st[i].rec);
	free(r.st);
	free(r.heap);
	tier_decoder_free(&r.dec);
	if (h != top)
		tracecmd_close(h);
close:
	tracecmd_close(top);
	return ret;
}

/* What a side file is meant to be, as its messages say */
static const char side_map[] = "cgroup map";
static const char side_stat[] = "tier_stat snapshot";

/*
 * A side file opened for reading, or NULL with err set naming it: only a
 * regular file, and a map with something in it.  A FIFO would block the
 * open (hence O_NONBLOCK) and a device like /dev/zero never ends.
 * record.sh writes an empty snapshot on a kernel without the feature: no
 * cgroup has memory.tier_stat.
 */
static FILE *side_open(const char *file, const char *what, char *err,
		       size_t errlen)
{
	int fd = open(file, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	const char *problem = NULL;
	struct stat st;
	FILE *f;

	if (fd < 0) {
		snprintf(err, errlen, "%s: cannot open the %s: %s", file, what,
			 strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st))
		problem = strerror(errno);
	else if (S_ISDIR(st.st_mode))
		problem = "is a directory";
	else if (!S_ISREG(st.st_mode))
		problem = S_ISFIFO(st.st_mode) ? "not a regular file (a FIFO)" :
			"not a regular file (a device)";
	else if (!st.st_size && what == side_map)
		problem = "empty file";
	if (problem || !(f = fdopen(fd, "r"))) {
		snprintf(err, errlen, "%s: %s, not a %s", file,
			 problem ? problem : strerror(errno), what);
		close(fd);
		return NULL;
	}
	return f;
}

static int side_file_check(const char *file, const char *what, char *err,
			   size_t errlen)
{
	FILE *f = file ? side_open(file, what, err, errlen) : NULL;

	if (!f)
		return file ? -1 : 0;
	fclose(f);
	return 0;
}

int check_side_files(const char *map, const char *start, const char *end,
		     char *err, size_t errlen)
{
	return side_file_check(map, side_map, err, errlen) ||
	       side_file_check(start, side_stat, err, errlen) ||
	       side_file_check(end, side_stat, err, errlen) ? -1 : 0;
}

/* Lines of FILE, each handed to @line with its number; stops on error */
static int each_line(const char *file, const char *what, char *err,
		     size_t errlen,
		     int (*line)(char *s, void *data, char *err, size_t errlen),
		     void *data)
{
	char buf[4096], msg[200];
	unsigned int n = 0;
	FILE *f = side_open(file, what, err, errlen);

	if (!f)
		return -1;
	while (fgets(buf, sizeof(buf), f)) {
		n++;
		buf[strcspn(buf, "\n")] = '\0';
		if (!buf[0])
			continue;
		if (line(buf, data, msg, sizeof(msg))) {
			snprintf(err, errlen, "%s:%u: %s", file, n, msg);
			fclose(f);
			return -1;
		}
	}
	if (ferror(f)) {
		snprintf(err, errlen, "%s: reading the %s failed", file, what);
		fclose(f);
		return -1;
	}
	fclose(f);
	return 0;
}

/* Whether the capture has records of cgroup @id */
static bool recorded(struct analysis *a, uint64_t id)
{
	struct cgroup_state *cg = analysis_find(a, id);

	return cg && cg->records;
}

/* A cgroup the capture has records of and no name for; 0 when none */
static uint64_t unnamed_recorded(const struct analysis *a)
{
	uint32_t i;

	for (i = 0; i < a->nr_cg; i++)
		if (a->cg[i].records && !a->cg[i].path)
			return a->cg[i].id;
	return 0;
}

struct map_ctx {
	struct analysis *a;
	unsigned int named;		/* lines of a cgroup with records */
};

static int map_line(char *s, void *data, char *err, size_t errlen)
{
	struct map_ctx *c = data;
	struct analysis *a = c->a;
	unsigned long long id;
	struct cgroup_state *cg;
	int off = 0;

	if (sscanf(s, "%llu %n", &id, &off) != 1 || !off || s[off] != '/') {
		snprintf(err, errlen, "expected 'ID /PATH', got '%.60s'", s);
		return -1;
	}
	c->named += recorded(a, id);
	cg = analysis_cgroup(a, id);
	/* A cgroup_mkdir record in the capture named it already */
	if (cg && cg->path)
		return 0;
	if (!cg || !analysis_name(a, id, s + off, strlen(s + off))) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	return 0;
}

int read_cgroup_map(struct analysis *a, const char *file,
		    unsigned int *named, char *err, size_t errlen)
{
	struct map_ctx c = { a, 0 };

	a->snapshot = true;
	if (each_line(file, side_map, err, errlen, map_line, &c))
		return -1;
	*named = c.named;
	return 0;
}

enum stat_when { STAT_START, STAT_END, STAT_NOW };

struct stat_ctx {
	struct analysis *a;
	int page_size;
	enum stat_when when;
	unsigned int named;		/* lines of a cgroup with records */
};

static int limit_value(const char *v, int page_size, uint64_t *pages)
{
	char *end;
	unsigned long long bytes;

	if (!strcmp(v, "max")) {
		*pages = NO_LIMIT;
		return 0;
	}
	errno = 0;
	bytes = strtoull(v, &end, 10);
	if (end == v || *end || errno)
		return -1;
	*pages = bytes / page_size;
	return 0;
}

/* One tier_stat line's values; sizes in pages, NO_LIMIT when absent */
struct stat_vals {
	uint64_t usage, high, max, min, low, capacity, promoted, demoted;
	bool has_min, has_low;
	const char *nodes;
};

static int stat_values(char *tok, int page_size, struct stat_vals *v,
		       char *err, size_t errlen)
{
	char *save = NULL;

	*v = (struct stat_vals){ NO_LIMIT, NO_LIMIT, NO_LIMIT, 0, 0, NO_LIMIT,
				 NO_LIMIT, NO_LIMIT, false, false, NULL };
	for (tok = strtok_r(tok, " ", &save); tok;
	     tok = strtok_r(NULL, " ", &save)) {
		char *val = strchr(tok, '=');
		uint64_t pages;

		if (!val) {
			snprintf(err, errlen, "'%.40s' is not key=value", tok);
			return -1;
		}
		*val++ = '\0';
		if (!strcmp(tok, "nodes")) {
			v->nodes = val;
			continue;
		}
		if (limit_value(val, page_size, &pages)) {
			snprintf(err, errlen, "%s=%.40s is not a size", tok, val);
			return -1;
		}
		if (!strcmp(tok, "usage")) {
			v->usage = pages;
		} else if (!strcmp(tok, "min")) {
			v->min = pages;
			v->has_min = true;
		} else if (!strcmp(tok, "low")) {
			v->low = pages;
			v->has_low = true;
		} else if (!strcmp(tok, "high")) {
			v->high = pages;
		} else if (!strcmp(tok, "max")) {
			v->max = pages;
		} else if (!strcmp(tok, "capacity")) {
			v->capacity = pages;
		} else if (!strcmp(tok, "promoted")) {
			v->promoted = pages;
		} else if (!strcmp(tok, "demoted")) {
			v->demoted = pages;
		}
		/* the other counters (reclaims=, ...): the events say */
	}
	if (v->usage == NO_LIMIT) {
		snprintf(err, errlen, "no usage=");
		return -1;
	}
	return 0;
}

/* The promoted and demoted counters, at the start (0) or the end (1) */
static void note_moves(struct tier_state *t, int at, const struct stat_vals *v)
{
	/* A kernel without the counters has neither */
	if (v->promoted == NO_LIMIT || v->demoted == NO_LIMIT)
		return;
	t->promoted_at[at] = v->promoted;
	t->demoted_at[at] = v->demoted;
	t->moves_at[at] = true;
}

static int stat_line(char *s, void *data, char *err, size_t errlen)
{
	struct stat_ctx *c = data;
	struct cgroup_state *cg;
	struct stat_vals v;
	unsigned long long id;
	int off = 0, slot, len;
	struct tier_state *t;
	char *path, *tok;

	if (sscanf(s, "%llu %n", &id, &off) != 1 || !off || s[off] != '/') {
		snprintf(err, errlen, "expected 'ID /PATH tierN key=value...', got '%.60s'", s);
		return -1;
	}
	path = s + off;
	/* A path may hold " tier" too; the keys after the slot never do */
	for (tok = strstr(path, " tier"); tok && strstr(tok + 1, " tier");)
		tok = strstr(tok + 1, " tier");
	if (!tok || sscanf(tok, " tier%d%n", &slot, &len) != 1 ||
	    slot < 0 || slot >= TIER_MAX_SLOTS) {
		snprintf(err, errlen, "no tier slot (0-%d) after the path",
			 TIER_MAX_SLOTS - 1);
		return -1;
	}
	*tok = '\0';
	if (stat_values(tok + len, c->page_size, &v, err, errlen))
		return -1;
	c->named += recorded(c->a, id);
	/* The end's snapshot: only the counters, of tiers the capture has */
	if (c->when == STAT_END) {
		cg = analysis_find(c->a, id);
		if (cg && cg->tier[slot].seen)
			note_moves(&cg->tier[slot], 1, &v);
		return 0;
	}
	t = analysis_tier(c->a, id, slot);
	if (!t || (!analysis_cgroup(c->a, id)->path &&
		   !analysis_name(c->a, id, path, strlen(path)))) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (v.nodes)
		snprintf(t->nodes, sizeof(t->nodes), "%s", v.nodes);
	if (v.has_min)
		t->min = v.min;
	if (v.has_low)
		t->low = v.low;
	if (v.capacity != NO_LIMIT)
		c->a->capacity[slot] = v.capacity;
	t->min_low_known = true;
	if (c->when == STAT_NOW) {
		t->seen = true;
		t->usage_known = true;
		t->usage = v.usage;
		t->high = v.high;
		t->max = v.max;
		return 0;
	}
	note_moves(t, 0, &v);
	t->start_known = true;
	t->start_usage = v.usage;
	t->start_high = v.high;
	t->start_max = v.max;
	if (!t->usage_known) {	/* no record of this tier in the capture */
		t->usage_known = true;
		t->usage = t->peak = v.usage;
		t->high = v.high;
		t->max = v.max;
	}
	return 0;
}

int read_tier_stat(struct analysis *a, const char *file, int page_size,
		   bool end, unsigned int *named, char *err, size_t errlen)
{
	struct stat_ctx c = { a, page_size, end ? STAT_END : STAT_START, 0 };

	a->snapshot = true;
	if (each_line(file, side_stat, err, errlen, stat_line, &c))
		return -1;
	*named = c.named;
	return 0;
}

/*
 * A map or start snapshot that names none of the cgroups the capture has
 * records of, while one of them has no name from a cgroup_mkdir record,
 * is another capture's: its problem, said as such, not damage of the
 * capture.  (A map of idle cgroups, where every busy one was made while
 * recording, names none and is fine.)
 */
int read_side_files(struct analysis *a, const char *map, const char *start,
		    const char *end, char *err, size_t errlen)
{
	uint64_t need = unnamed_recorded(a);
	unsigned int named = 0;
	const char *none = NULL, *what = NULL;

	if (map) {
		if (read_cgroup_map(a, map, &named, err, errlen))
			return -1;
		if (!named)
			none = map, what = side_map;
	}
	if (start) {
		if (read_tier_stat(a, start, a->page_size, false, &named, err,
				   errlen))
			return -1;
		if (!named && !none)
			none = start, what = side_stat;
	}
	if (end && read_tier_stat(a, end, a->page_size, true, &named, err,
				  errlen))
		return -1;
	if (need && none) {
		snprintf(err, errlen, "%s: names none of the cgroups the capture has records of (such as id %llu): the %s of another capture?",
			 none, (unsigned long long)need, what);
		return -1;
	}
	return 0;
}

int tier_stat_now(struct analysis *a, char *line, int page_size,
		  char *err, size_t errlen)
{
	struct stat_ctx c = { a, page_size, STAT_NOW, 0 };

	return stat_line(line, &c, err, errlen);
}

char *sidecar(const char *trace, const char *suffix)
{
	size_t n = strlen(trace);
	struct stat st;
	char *p;

	if (n > 4 && !strcmp(trace + n - 4, ".dat"))
		n -= 4;
	p = malloc(n + strlen(suffix) + 2);
	if (!p)
		return NULL;
	sprintf(p, "%.*s.%s", (int)n, trace, suffix);
	/* One that is there but cannot be read is said when it is read */
	if (lstat(p, &st)) {
		free(p);
		return NULL;
	}
	return p;
}
