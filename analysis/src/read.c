// SPDX-License-Identifier: GPL-2.0
/*
 * The capture reader: libtracecmd iterates the records of every CPU in
 * time order; each goes through the decoder into the state, and none is
 * kept.  The library itself keeps the capture's data resident, which is
 * the floor of the analyzer's memory.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <trace-cmd.h>

#include "decode.h"
#include "read.h"

/* What every trace-cmd capture starts with */
static const char trace_magic[] = "\027\010\104tracing";

struct reader {
	struct analysis *a;
	struct tier_decoder dec;
	unsigned long long tier_records;
	char *err;
	size_t errlen;
	int failed;
};

static int on_record(struct tracecmd_input *h, struct tep_record *rec,
		     int cpu, void *data)
{
	struct reader *r = data;
	struct tier_record tr;
	char msg[160];
	int ret;

	(void)h;
	if (rec->missed_events)
		r->a->lost += rec->missed_events > 0 ? rec->missed_events : 1;
	if (!analysis_tick(r->a, rec->ts))
		return 1;	/* past --until */
	ret = tier_decode(&r->dec, rec->data, rec->size, rec->ts, &tr,
			  msg, sizeof(msg));
	if (ret < 0) {
		snprintf(r->err, r->errlen,
			 "corrupt record on CPU %d at %llu ns: %s", cpu,
			 rec->ts, msg);
		r->failed = 1;
		return -1;
	}
	if (!ret)
		return 0;
	if (tr.kind != REC_MKDIR && tr.kind != REC_RMDIR)
		r->tier_records++;
	if (!analysis_feed(r->a, &tr)) {
		snprintf(r->err, r->errlen, "out of memory");
		r->failed = 1;
		return -1;
	}
	return 0;
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

int read_capture(struct analysis *a, const char *file, int *page_size,
		 char *err, size_t errlen)
{
	struct reader r = { a, { 0 }, 0, err, errlen, 0 };
	struct tracecmd_input *h;
	struct tep_handle *tep;
	char msg[200];
	int ret = -1;

	if (check_header(file, err, errlen))
		return -1;
	/* One clear message of ours instead of the library's */
	tracecmd_set_loglevel(TEP_LOG_NONE);
	tep_set_loglevel(TEP_LOG_NONE);
	h = tracecmd_open(file, TRACECMD_FL_LOAD_NO_PLUGINS);
	if (!h) {
		snprintf(err, errlen,
			 "truncated or corrupt capture: libtracecmd cannot read its headers and data");
		return -1;
	}
	tep = tracecmd_get_tep(h);
	*page_size = tep_get_page_size(tep);
	if (*page_size <= 0)
		*page_size = 4096;
	a->page_size = *page_size;
	if (tier_decoder_init(&r.dec, tep, msg, sizeof(msg))) {
		snprintf(err, errlen, "%s", msg);
		goto out;
	}
	if (!tier_decoder_has(&r.dec, REC_CHARGE)) {
		snprintf(err, errlen,
			 "no memcg_tier events in the capture; record on a kernel booted with cgroup.memory=tiered_limits, with tracing/record.sh or 'trace-cmd record -e memcg_tier -e cgroup ...'");
		goto out;
	}
	if (tracecmd_iterate_events(h, NULL, 0, on_record, &r) < 0 || r.failed) {
		if (!r.failed)
			snprintf(err, errlen, "truncated or corrupt capture: reading its records failed");
		goto out;
	}
	if (!r.tier_records) {
		snprintf(err, errlen,
			 "the capture has the memcg_tier formats but no memcg_tier record%s (was the kernel booted with cgroup.memory=tiered_limits, and did a cgroup v2 memcg charge memory while recording?)",
			 a->cfg.until ? " up to --until" : "");
		goto out;
	}
	ret = 0;
out:
	tier_decoder_free(&r.dec);
	tracecmd_close(h);
	return ret;
}

/* Lines of FILE, each handed to @line with its number; stops on error */
static int each_line(const char *file, char *err, size_t errlen,
		     int (*line)(char *s, void *data, char *err, size_t errlen),
		     void *data)
{
	char buf[4096], msg[200];
	unsigned int n = 0;
	FILE *f = fopen(file, "r");

	if (!f) {
		snprintf(err, errlen, "%s: cannot open: %s", file, strerror(errno));
		return -1;
	}
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
	fclose(f);
	return 0;
}

static int map_line(char *s, void *data, char *err, size_t errlen)
{
	struct analysis *a = data;
	unsigned long long id;
	struct cgroup_state *cg;
	int off = 0;

	if (sscanf(s, "%llu %n", &id, &off) != 1 || !off || s[off] != '/') {
		snprintf(err, errlen, "expected 'ID /PATH', got '%.60s'", s);
		return -1;
	}
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
		    char *err, size_t errlen)
{
	return each_line(file, err, errlen, map_line, a);
}

struct stat_ctx {
	struct analysis *a;
	int page_size;
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

static int stat_line(char *s, void *data, char *err, size_t errlen)
{
	struct stat_ctx *c = data;
	unsigned long long id;
	int off = 0, slot, len;
	uint64_t usage = NO_LIMIT, high = NO_LIMIT, max = NO_LIMIT;
	struct tier_state *t;
	char *path, *tok, *save = NULL;

	if (sscanf(s, "%llu %n", &id, &off) != 1 || !off || s[off] != '/') {
		snprintf(err, errlen, "expected 'ID /PATH tierN key=value...', got '%.60s'", s);
		return -1;
	}
	path = s + off;
	tok = strstr(path, " tier");
	if (!tok || sscanf(tok, " tier%d%n", &slot, &len) != 1 ||
	    slot < 0 || slot >= TIER_MAX_SLOTS) {
		snprintf(err, errlen, "no tier slot (0-%d) after the path",
			 TIER_MAX_SLOTS - 1);
		return -1;
	}
	*tok = '\0';
	t = analysis_tier(c->a, id, slot);
	if (!t || (!analysis_cgroup(c->a, id)->path &&
		   !analysis_name(c->a, id, path, strlen(path)))) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (tok = strtok_r(tok + len, " ", &save); tok;
	     tok = strtok_r(NULL, " ", &save)) {
		char *v = strchr(tok, '=');
		uint64_t pages;

		if (!v) {
			snprintf(err, errlen, "'%.40s' is not key=value", tok);
			return -1;
		}
		*v++ = '\0';
		if (!strcmp(tok, "nodes")) {
			snprintf(t->nodes, sizeof(t->nodes), "%s", v);
			continue;
		}
		if (limit_value(v, c->page_size, &pages)) {
			snprintf(err, errlen, "%s=%.40s is not a size", tok, v);
			return -1;
		}
		if (!strcmp(tok, "usage"))
			usage = pages;
		else if (!strcmp(tok, "min"))
			t->min = pages;
		else if (!strcmp(tok, "low"))
			t->low = pages;
		else if (!strcmp(tok, "high"))
			high = pages;
		else if (!strcmp(tok, "max"))
			max = pages;
		/* capacity= and the counters (reclaims=, ...): the events say */
	}
	if (usage == NO_LIMIT) {
		snprintf(err, errlen, "no usage= for tier%d", slot);
		return -1;
	}
	t->min_low_known = true;
	t->start_known = true;
	t->start_usage = usage;
	t->start_high = high;
	t->start_max = max;
	if (!t->usage_known) {	/* no record of this tier in the capture */
		t->usage_known = true;
		t->usage = t->peak = usage;
		t->high = high;
		t->max = max;
	}
	return 0;
}

int read_tier_stat(struct analysis *a, const char *file, int page_size,
		   char *err, size_t errlen)
{
	struct stat_ctx c = { a, page_size };

	return each_line(file, err, errlen, stat_line, &c);
}

char *sidecar(const char *trace, const char *suffix)
{
	size_t n = strlen(trace);
	char *p;

	if (n > 4 && !strcmp(trace + n - 4, ".dat"))
		n -= 4;
	p = malloc(n + strlen(suffix) + 2);
	if (!p)
		return NULL;
	sprintf(p, "%.*s.%s", (int)n, trace, suffix);
	if (access(p, R_OK)) {
		free(p);
		return NULL;
	}
	return p;
}
