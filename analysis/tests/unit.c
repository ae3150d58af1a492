// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the decoder, the state and the reports, on synthetic
 * records laid out by libtraceevent from the real event formats (saved
 * from a guest capture in tests/formats/): each record is built field by
 * field, by name, at the offsets the format gives, as the kernel would.
 *
 *   unit FORMATS_DIR
 *
 * Prints "ok - ..." / "not ok - ..." lines.
 */
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "decode.h"
#include "psi.h"
#include "report.h"
#include "state.h"

static int failures;
static const char *formats_dir;

static void check(int ok, const char *fmt, ...)
{
	va_list ap;

	if (!ok)
		failures++;
	printf("%s - ", ok ? "ok" : "not ok");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

static char *slurp(const char *name)
{
	char path[512], *buf;
	long n;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s.format", formats_dir, name);
	f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "unit: cannot open %s\n", path);
		exit(1);
	}
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = calloc(1, n + 1);
	if (!buf || fread(buf, 1, n, f) != (size_t)n)
		exit(1);
	fclose(f);
	return buf;
}

static const char *const event_names[] = {
	"memcg_tier_charge", "memcg_tier_reclaim", "memcg_tier_migrate_refuse",
	"memcg_tier_steer", "cgroup_mkdir", "cgroup_rmdir",
};

/*
 * A tep with the real formats, or with @name's format passed through
 * @edit (a replacement of one string by another) to play a kernel that
 * changed it.
 */
static struct tep_handle *make_tep(const char *name, const char *from,
				   const char *to)
{
	struct tep_handle *tep = tep_alloc();
	size_t i;

	tep_set_long_size(tep, 8);
	tep_set_page_size(tep, 4096);
	tep_set_file_bigendian(tep, TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(tep, TEP_LITTLE_ENDIAN);
	for (i = 0; i < sizeof(event_names) / sizeof(event_names[0]); i++) {
		char *fmt = slurp(event_names[i]), *edited = NULL;

		if (name && !strcmp(name, event_names[i])) {
			char *at = strstr(fmt, from);

			if (!at) {
				fprintf(stderr, "unit: '%s' not in %s\n", from, name);
				exit(1);
			}
			edited = malloc(strlen(fmt) + strlen(to) + 1);
			sprintf(edited, "%.*s%s%s", (int)(at - fmt), fmt, to,
				at + strlen(from));
		}
		if (tep_parse_event(tep, edited ? edited : fmt,
				    strlen(edited ? edited : fmt),
				    i < 4 ? "memcg_tier" : "cgroup")) {
			fprintf(stderr, "unit: %s does not parse\n", event_names[i]);
			exit(1);
		}
		free(fmt);
		free(edited);
	}
	return tep;
}

/* Record building: set fields by name at the format's offsets */
struct rec {
	struct tep_handle *tep;
	struct tep_event *ev;
	unsigned char data[256];
	int size;
};

static void rec_init(struct rec *r, struct tep_handle *tep, const char *name)
{
	struct tep_format_field *f;

	memset(r, 0, sizeof(*r));
	r->tep = tep;
	r->ev = tep_find_event_by_name(tep, NULL, name);
	r->data[0] = r->ev->id & 0xff;
	r->data[1] = r->ev->id >> 8;
	/* The fixed part ends with its last field; dynamic data follows */
	for (f = r->ev->format.fields; f; f = f->next)
		if (f->offset + f->size > r->size)
			r->size = f->offset + f->size;
}

static void set(struct rec *r, const char *field, long long v)
{
	struct tep_format_field *f = tep_find_field(r->ev, field);
	int i;

	for (i = 0; i < f->size; i++)
		r->data[f->offset + i] = (unsigned long long)v >> (8 * i);
}

/* Append @len bytes as the dynamic field @field */
static void set_dyn(struct rec *r, const char *field, const void *p, int len)
{
	struct tep_format_field *f = tep_find_field(r->ev, field);
	unsigned int loc = (unsigned int)len << 16 | r->size;

	memcpy(r->data + r->size, p, len);
	r->size += len;
	memcpy(r->data + f->offset, &loc, 4);
}

/* The last decode error */
static char tr_err[200];

static int decode(struct tier_decoder *d, struct rec *r, unsigned long long ts,
		  struct tier_record *out)
{
	return tier_decode(d, r->data, r->size, ts, out, tr_err, sizeof(tr_err));
}

static void charge_rec(struct rec *r, struct tep_handle *tep, long long id,
		       int nid, int slot, long long pages,
		       unsigned long long usage, int cause, int outcome)
{
	rec_init(r, tep, "memcg_tier_charge");
	set(r, "cgroup_id", id);
	set(r, "nid", nid);
	set(r, "slot", slot);
	set(r, "nr_pages", pages);
	set(r, "usage", usage);
	set(r, "high", 0x7ffffffffffffLL);
	set(r, "max", 1000);
	set(r, "cause", cause);
	set(r, "outcome", outcome);
}

static void test_decoder(void)
{
	struct tep_handle *tep = make_tep(NULL, NULL, NULL);
	struct tier_decoder d;
	struct tier_record tr;
	unsigned long long nodes = 0x2;
	char err[200];
	struct rec r;
	int k, all = 1, ret, bad = 0;

	check(tier_decoder_init(&d, tep, err, sizeof(err)) == 0,
	      "decoder resolves the real formats");
	for (k = 0; k < REC_NR_KINDS; k++)
		all &= tier_decoder_has(&d, k);
	check(all, "all six events found by name");

	charge_rec(&r, tep, 1234, 1, 1, -512, 7000, 1, 0);
	ret = decode(&d, &r, 42, &tr);
	check(ret == 1 && tr.kind == REC_CHARGE && tr.cgroup_id == 1234 &&
	      tr.nid == 1 && tr.slot == 1 && tr.pages == -512 &&
	      tr.usage == 7000 && tr.max == 1000 && tr.ts == 42 &&
	      tr.reason == CAUSE_UNCHARGE && tr.outcome == OUTCOME_CHARGED,
	      "memcg_tier_charge: every field, a negative nr_pages, cause=uncharge");
	charge_rec(&r, tep, 1234, 1, 1, 1LL << 50, 7000, 1, 0);
	check(decode(&d, &r, 0, &tr) == -1 && strstr(tr_err, "pages out of range"),
	      "a charge of more pages than any machine has is a damaged record (%s)",
	      tr_err);
	charge_rec(&r, tep, 7, 0, 0, 1, 1, 2, 1);
	check(decode(&d, &r, 1, &tr) == 1 && tr.reason == CAUSE_MIGRATE &&
	      tr.outcome == OUTCOME_FORCED,
	      "memcg_tier_charge: cause=migrate outcome=forced by symbol name");

	rec_init(&r, tep, "memcg_tier_reclaim");
	set(&r, "cgroup_id", 9);
	set(&r, "slot", 0);
	set(&r, "reason", 1);
	set(&r, "requested", 32);
	set(&r, "reclaimed", 30);
	set(&r, "usage_before", 100);
	set(&r, "usage_after", 70);
	set_dyn(&r, "nodes", &nodes, 8);
	check(decode(&d, &r, 5, &tr) == 1 && tr.kind == REC_RECLAIM &&
	      tr.reason == RECLAIM_HIGH && tr.pages == 30 &&
	      tr.requested == 32 && tr.usage_before == 100 &&
	      tr.usage == 70 && tr.nodes == 0x2,
	      "memcg_tier_reclaim: reason=high, figures and the nodes bitmask");

	rec_init(&r, tep, "memcg_tier_migrate_refuse");
	set(&r, "cgroup_id", 9);
	set(&r, "src_nid", 1);
	set(&r, "dst_nid", 0);
	set(&r, "src_slot", 1);
	set(&r, "dst_slot", 0);
	set(&r, "nr_pages", 512);
	set(&r, "migrate_reason", 5);
	set(&r, "refuse", 1);
	check(decode(&d, &r, 5, &tr) == 1 && tr.kind == REC_REFUSE &&
	      tr.slot == 0 && tr.src_slot == 1 && tr.pages == 512 &&
	      tr.reason == REFUSE_PROMOTION_GATE,
	      "memcg_tier_migrate_refuse: slots, pages, refuse=promotion_gate");

	rec_init(&r, tep, "memcg_tier_steer");
	set(&r, "cgroup_id", 9);
	set(&r, "nid", 0);
	set(&r, "target_nid", 1);
	set(&r, "order", 9);
	set(&r, "excluded", 1);
	set_dyn(&r, "nodes", &nodes, 8);
	check(decode(&d, &r, 5, &tr) == 1 && tr.kind == REC_STEER &&
	      tr.src_nid == 0 && tr.nid == 1 && tr.pages == 512 &&
	      tr.excluded == 1 && tr.nodes == 0x2,
	      "memcg_tier_steer: nodes, order 9 = 512 pages, excluded slots");

	rec_init(&r, tep, "cgroup_mkdir");
	set(&r, "id", 77);
	set_dyn(&r, "path", "/a/b", 5);
	check(decode(&d, &r, 5, &tr) == 1 && tr.kind == REC_MKDIR &&
	      tr.cgroup_id == 77 && tr.path_len == 4 &&
	      !memcmp(tr.path, "/a/b", 4),
	      "cgroup_mkdir: id and path");
	set(&r, "root", 2);
	check(decode(&d, &r, 5, &tr) == 0,
	      "cgroup_mkdir of a cgroup v1 hierarchy names nothing");

	/* Every cut of a record short of its fields is refused, not read */
	charge_rec(&r, tep, 1, 0, 0, 1, 1, 0, 0);
	for (k = 0; k < r.size; k++)
		bad += tier_decode(&d, r.data, k, 0, &tr, err, sizeof(err)) != -1;
	check(!bad, "a charge record cut anywhere short of its fields is an error (%d read)", bad);

	rec_init(&r, tep, "cgroup_mkdir");
	set(&r, "id", 1);
	set_dyn(&r, "path", "/x", 3);
	r.data[tep_find_field(r.ev, "path")->offset + 2] = 200;	/* length */
	check(decode(&d, &r, 0, &tr) == -1,
	      "a dynamic field running past the record is an error");

	charge_rec(&r, tep, 1, 0, 99, 1, 1, 0, 0);
	ret = tier_decode(&d, r.data, r.size, 0, &tr, err, sizeof(err));
	check(ret == -1 && strstr(err, "slot 99"),
	      "a tier slot out of range is an error naming it (%s)", err);

	rec_init(&r, tep, "cgroup_mkdir");
	r.data[0] = 0xff;
	r.data[1] = 0x7f;
	check(decode(&d, &r, 0, &tr) == 0, "a record of another event is skipped");
	tier_decoder_free(&d);
	tep_free(tep);
}

static void test_changed_kernels(void)
{
	struct tep_handle *tep;
	struct tier_decoder d;
	struct tier_record tr;
	char err[200];
	struct rec r;

	/* A kernel that numbers its causes differently */
	tep = make_tep("memcg_tier_charge", "{ 0, \"alloc\" }, { 1, \"uncharge\" }, { 2, \"migrate\" }",
		       "{ 2, \"alloc\" }, { 1, \"uncharge\" }, { 0, \"migrate\" }");
	tier_decoder_init(&d, tep, err, sizeof(err));
	charge_rec(&r, tep, 1, 0, 0, 1, 1, 0, 0);
	check(decode(&d, &r, 0, &tr) == 1 && tr.reason == CAUSE_MIGRATE,
	      "causes are mapped by the capture's own symbol names, not numbers");
	charge_rec(&r, tep, 1, 0, 0, 1, 1, 9, 0);
	check(decode(&d, &r, 0, &tr) == -1 && strstr(tr_err, "cause 9"),
	      "a cause value the format does not name is a damaged record (%s)",
	      tr_err);
	tier_decoder_free(&d);
	tep_free(tep);

	/* A kernel with a cause this analyzer does not know */
	tep = make_tep("memcg_tier_charge", "{ 2, \"migrate\" }",
		       "{ 2, \"compaction\" }");
	tier_decoder_init(&d, tep, err, sizeof(err));
	charge_rec(&r, tep, 1, 0, 0, 1, 1, 2, 0);
	check(decode(&d, &r, 0, &tr) == 1 && tr.reason == CAUSE_OTHER,
	      "a cause the format names but the analyzer does not know is 'other'");
	tier_decoder_free(&d);
	tep_free(tep);

	tep = make_tep("memcg_tier_charge", "int slot;", "int tier_slot;");
	check(tier_decoder_init(&d, tep, err, sizeof(err)) == -1 &&
	      strstr(err, "memcg_tier_charge") && strstr(err, "'slot'"),
	      "a missing field is refused, naming event and field (%s)", err);
	tep_free(tep);

	tep = make_tep("memcg_tier_charge", "field:u64 cgroup_id;\toffset:8;\tsize:8;",
		       "field:char cgroup_id[8];\toffset:8;\tsize:8;");
	check(tier_decoder_init(&d, tep, err, sizeof(err)) == -1 &&
	      strstr(err, "cgroup_id") && strstr(err, "integer"),
	      "a retyped field is refused, naming it (%s)", err);
	tep_free(tep);

	/* A wider field in a newer kernel still decodes */
	tep = make_tep("memcg_tier_charge", "field:int slot;\toffset:20;\tsize:4;\tsigned:1;",
		       "field:short slot;\toffset:20;\tsize:2;\tsigned:1;");
	check(tier_decoder_init(&d, tep, err, sizeof(err)) == 0,
	      "a field of another integer size is read at its size");
	charge_rec(&r, tep, 1, 0, 1, 1, 1, 0, 0);
	check(decode(&d, &r, 0, &tr) == 1 && tr.slot == 1,
	      "a 2-byte slot field decodes to the same value");
	tier_decoder_free(&d);
	tep_free(tep);
}

static struct tier_record charge(unsigned long long ts, int slot, long long pages,
				 unsigned long long usage, int cause)
{
	struct tier_record r = { REC_CHARGE, ts, 5, slot, slot, -1, -1, pages,
				 0, usage, 0, NO_LIMIT, 1000, cause,
				 OUTCOME_CHARGED, 0, 0, NULL, 0 };
	return r;
}

/* The index of @t's column @name (the unit tests read columns by name) */
static int col(const struct table *t, const char *name)
{
	int i;

	for (i = 0; i < t->ncols && strcmp(t->cols[i].name, name); i++)
		;
	return i;
}

static const struct cell *find_row(const struct table *t, const char *kind)
{
	int k = col(t, "kind");
	size_t i;

	for (i = 0; i < t->nrows; i++)
		if (t->cells[i * t->ncols + k].s &&
		    !strcmp(t->cells[i * t->ncols + k].s, kind))
			return &t->cells[i * t->ncols];
	return NULL;
}

static void test_state(void)
{
	struct analysis_config cfg = { .window = 1000000000ULL };
	struct report_opts ro = { NULL, 0, 0 };
	struct tier_record r;
	struct analysis a;
	struct table t;
	const struct cell *c;
	unsigned long long i, sum = 0, sum_b = 0;
	uint32_t k;

	analysis_init(&a, &cfg);
	analysis_tick(&a, 0);
	r = charge(0, 0, 100, 100, CAUSE_ALLOC);
	analysis_feed(&a, &r);
	r = charge(10, 0, 50, 150, CAUSE_ALLOC);
	analysis_feed(&a, &r);
	r = charge(20, 0, -120, 30, CAUSE_UNCHARGE);
	analysis_feed(&a, &r);
	check(a.cg[0].tier[0].usage == 30 && a.cg[0].tier[0].peak == 150 &&
	      a.cg[0].tier[0].charged == 150 && a.cg[0].tier[0].uncharged == 120,
	      "usage, peak and charge sums follow the records");

	/* Reclaim churn: 100 reclaimed at 1 s, 60 back at 1.5 s, 30 at 3 s */
	r = (struct tier_record){ .kind = REC_RECLAIM, .ts = 1000000000ULL,
				  .cgroup_id = 5, .slot = 0, .pages = 100,
				  .usage = 10, .reason = RECLAIM_CHARGE };
	analysis_feed(&a, &r);
	r = charge(1500000000ULL, 0, 60, 70, CAUSE_ALLOC);
	analysis_feed(&a, &r);
	r = charge(3000000000ULL, 0, 30, 100, CAUSE_ALLOC);
	analysis_feed(&a, &r);
	check(a.cg[0].tier[0].recharged == 60,
	      "reclaimed pages charged back within the window count as churn, later ones not (%lld)",
	      (long long)a.cg[0].tier[0].recharged);
	report_churn(&t, &a, &ro);
	c = find_row(&t, "reclaim_churn");
	check(c && c[col(&t, "pages")].v == 60 && c[col(&t, "tier")].v == 0,
	      "churn report: a reclaim_churn finding of 60 pages on tier 0");
	table_free(&t);
	analysis_free(&a);

	/* 10 s of records: the automatic interval grows, sums stay exact */
	analysis_init(&a, &cfg);
	for (i = 0; i <= 100000; i++) {
		analysis_tick(&a, i * 100000ULL);
		r = charge(i * 100000ULL, i % 2, 1, i, CAUSE_ALLOC);
		analysis_feed(&a, &r);
		sum++;
	}
	for (k = 0; k < a.cg[0].tier[0].nb; k++)
		sum_b += a.cg[0].tier[0].b[k].charged;
	for (k = 0; k < a.cg[0].tier[1].nb; k++)
		sum_b += a.cg[0].tier[1].b[k].charged;
	check(a.nb <= 200 && a.interval == 80000000ULL && sum_b == sum,
	      "automatic buckets: 10 s in %u buckets of %llu ms, charges kept (%llu of %llu)",
	      a.nb, (unsigned long long)a.interval / 1000000, sum_b, sum);
	check(a.cg[0].tier[0].cap <= 256,
	      "bucket memory is bounded by buckets, not records (%u allocated for 100001 records)",
	      a.cg[0].tier[0].cap);
	analysis_free(&a);

	/* Ping-pong: demote 40 then promote 25 in neighbouring buckets */
	cfg.interval = 100000000ULL;
	analysis_init(&a, &cfg);
	analysis_tick(&a, 0);
	r = charge(0, 0, 100, 100, CAUSE_ALLOC);
	analysis_feed(&a, &r);
	r = charge(50000000ULL, 1, 40, 40, CAUSE_MIGRATE);
	analysis_feed(&a, &r);
	r = charge(150000000ULL, 0, 25, 85, CAUSE_MIGRATE);
	analysis_feed(&a, &r);
	/* Steering flipping between tiers: 1, 0, 1 */
	for (i = 0; i < 3; i++) {
		r = (struct tier_record){ .kind = REC_STEER,
			.ts = 500000000ULL + i * 100000000ULL, .cgroup_id = 5,
			.src_nid = (i + 1) % 2, .nid = i % 2 ? 0 : 1, .pages = 1,
			.excluded = i % 2 ? 2 : 1 };
		analysis_feed(&a, &r);
	}
	/* the capture runs on to 1 s, past the run */
	analysis_tick(&a, 1000000000ULL);
	r = charge(1000000000ULL, 0, 1, 86, CAUSE_ALLOC);
	analysis_feed(&a, &r);
	report_churn(&t, &a, &ro);
	c = find_row(&t, "ping_pong");
	check(c && c[col(&t, "pages")].v == 25 && c[col(&t, "tier")].v == 0,
	      "churn report: promote/demote ping-pong of min(25, 40) pages");
	check(c && !strcmp(c[col(&t, "detail")].s, "pages promoted (40 demoted)"),
	      "churn report: the ping-pong's detail gives the other figure, not the amount again (%s)",
	      c ? c[col(&t, "detail")].s : "");
	c = find_row(&t, "steer_flips");
	check(c && c[col(&t, "events")].v == 2, "churn report: steering flipping tiers twice");
	check(c && c[col(&t, "start_ts")].v == 500000000LL &&
	      c[col(&t, "end_ts")].v == 800000000LL,
	      "churn report: the steering run is buckets 0.5-0.8 s, its last one included");
	table_free(&t);
	analysis_free(&a);
}

/* A charge of @pages to cgroup 5's tier 0 that reads @usage after it */
static enum feed_result feed(struct analysis *a, unsigned long long ts,
			     long long pages, unsigned long long usage)
{
	struct tier_record r = charge(ts, 0, pages, usage, CAUSE_ALLOC);

	analysis_tick(a, ts);
	return analysis_feed(a, &r);
}

static uint64_t bad_after(struct analysis *a)
{
	analysis_finish(a);
	return a->cg[0].tier[0].bad_records;
}

static void test_invariants(void)
{
	struct analysis_config cfg = { .window = 1000000000ULL };
	struct cgroup_state *cg;
	struct analysis a;
	uint32_t i;
	bool ok;

	/* Two charges racing: the first reads the second's page too */
	analysis_init(&a, &cfg);
	feed(&a, 0, 100, 100);
	feed(&a, 5, 1, 101);
	feed(&a, 10, 1, 103);
	feed(&a, 20, 1, 103);
	/* three racing, then an uncharge racing a charge */
	feed(&a, 30, 512, 617);
	feed(&a, 40, 1, 617);
	feed(&a, 50, 1, 617);
	feed(&a, 60, -4, 614);
	feed(&a, 70, 1, 614);
	check(bad_after(&a) == 0 && a.cg[0].tier[0].chained,
	      "charges racing on two CPUs keep the usage account (%llu broken)",
	      (unsigned long long)a.cg[0].tier[0].bad_records);
	analysis_free(&a);

	analysis_init(&a, &cfg);
	feed(&a, 0, 100, 100);
	feed(&a, 5, 1, 101);		/* two records that agree: the base */
	feed(&a, 10, 1, 102 + 65536);	/* usage's third byte flipped */
	feed(&a, 20, 1, 103);
	feed(&a, 30, 1, 104);
	check(bad_after(&a) == 1,
	      "a record whose usage was damaged breaks the account");
	analysis_free(&a);

	analysis_init(&a, &cfg);
	feed(&a, 0, 100, 100);
	feed(&a, 5, 1, 101);
	feed(&a, 10, 3, 102);		/* nr_pages damaged */
	feed(&a, 20, 1, 103);
	check(bad_after(&a) == 1,
	      "a record whose nr_pages was damaged breaks the account");
	analysis_free(&a);

	analysis_init(&a, &cfg);
	feed(&a, 0, 100, 100);
	feed(&a, 10, 1, 101);
	feed(&a, 20, 1, 102 + 256);	/* the last record damaged */
	check(bad_after(&a) == 1,
	      "a damaged last record leaves the account open: broken");
	analysis_free(&a);

	analysis_init(&a, &cfg);
	feed(&a, 0, 100, 100);
	analysis_lost(&a, 7);
	feed(&a, 20, 1, 150);
	check(bad_after(&a) == 0 && a.lost == 7,
	      "records the ring buffer dropped restart the account");
	analysis_free(&a);

	/* --since: the usage carried into the window is its peak */
	cfg.since = 100;
	analysis_init(&a, &cfg);
	feed(&a, 0, 100, 100);
	feed(&a, 150, -60, 40);
	analysis_finish(&a);
	check(a.cg[0].tier[0].peak == 100 && a.cg[0].tier[0].usage == 40,
	      "a window's peak counts the usage carried into it (peak %llu, usage %llu)",
	      (unsigned long long)a.cg[0].tier[0].peak,
	      (unsigned long long)a.cg[0].tier[0].usage);
	analysis_free(&a);
	cfg.since = 0;

	/* --bucket 1us over 1 s: too many buckets, said, not allocated */
	cfg.interval = 1000;
	analysis_init(&a, &cfg);
	ok = feed(&a, 0, 1, 1) == FEED_OK &&
	     feed(&a, 1000000000ULL, 1, 2) == FEED_TOO_MANY_BUCKETS;
	check(ok, "a fixed bucket length over too long a capture is refused");
	analysis_free(&a);
	cfg.interval = 0;

	/* 10,000 cgroups: each found again, none mixed up */
	analysis_init(&a, &cfg);
	for (i = 0; i < 10000; i++)
		analysis_cgroup(&a, 1000003ULL * i + 17);
	ok = a.nr_cg == 10000;
	for (i = 0; ok && i < 10000; i += 7) {
		cg = analysis_cgroup(&a, 1000003ULL * i + 17);
		ok = cg && cg->id == 1000003ULL * i + 17 && a.nr_cg == 10000;
	}
	check(ok, "10,000 cgroups by id: each found again (%u held)", a.nr_cg);
	analysis_free(&a);
}

/* @s through json_string() or xml_string(), into @buf */
static const char *escaped(void (*esc)(FILE *, const char *), const char *s,
			   char *buf, size_t len)
{
	FILE *f = fmemopen(buf, len, "w");

	if (!f)
		return "";
	esc(f, s);
	fclose(f);
	return buf;
}

/* A cgroup name is any bytes but '/' and NUL: json and svg stay UTF-8 */
static void test_escapes(void)
{
	static const struct {
		const char *in, *json, *xml, *what;
	} cases[] = {
		{ "/a\xc3\xa9\xe2\x82\xac\xf0\x9f\x90\xa7", "\"/a\xc3\xa9\xe2\x82\xac\xf0\x9f\x90\xa7\"",
		  "/a\xc3\xa9\xe2\x82\xac\xf0\x9f\x90\xa7", "UTF-8 of 2, 3 and 4 bytes kept" },
		{ "/\xff\xfe", "\"/\\ufffd\\ufffd\"", "/&#xfffd;&#xfffd;",
		  "bytes that start no sequence: U+FFFD each" },
		{ "/\xc3", "\"/\\ufffd\"", "/&#xfffd;", "a sequence cut by the end" },
		{ "/\xc0\xaf", "\"/\\ufffd\\ufffd\"", "/&#xfffd;&#xfffd;", "an overlong '/'" },
		{ "/\xed\xa0\x80", "\"/\\ufffd\\ufffd\\ufffd\"", "/&#xfffd;&#xfffd;&#xfffd;",
		  "a surrogate" },
		{ "/\xf4\x90\x80\x80", "\"/\\ufffd\\ufffd\\ufffd\\ufffd\"",
		  "/&#xfffd;&#xfffd;&#xfffd;&#xfffd;", "past U+10FFFF" },
		{ "/\xef\xbf\xbe\x01\"<&", "\"/\xef\xbf\xbe\\u0001\\\"<&\"",
		  "/&#xfffd;&#xfffd;&quot;&lt;&amp;", "U+FFFE and a control: json escapes, xml replaces" },
	};
	char buf[128];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *j = escaped(json_string, cases[i].in, buf, sizeof(buf));

		check(!strcmp(j, cases[i].json), "json_string: %s", cases[i].what);
		j = escaped(xml_string, cases[i].in, buf, sizeof(buf));
		check(!strcmp(j, cases[i].xml), "xml_string: %s", cases[i].what);
	}
}

/* memory.pressure as a kernel with CONFIG_PSI writes it, and none */
static void test_psi(void)
{
	char dir[] = "/tmp/unit-psi.XXXXXX", file[64];
	struct psi p;
	FILE *f;
	bool ok;
	int fd;

	if (!mkdtemp(dir)) {
		check(0, "psi: a temporary directory");
		return;
	}
	fd = open(dir, O_RDONLY | O_DIRECTORY);
	check(!psi_read(fd, &p) && p.some == -1 && p.full == -1,
	      "psi: no memory.pressure (no CONFIG_PSI) is unknown");
	snprintf(file, sizeof(file), "%s/memory.pressure", dir);
	f = fopen(file, "w");
	if (f) {
		fputs("some avg10=12.34 avg60=5.00 avg300=1.25 total=123456\n"
		      "full avg10=0.07 avg60=0.00 avg300=0.00 total=789\n", f);
		fclose(f);
	}
	ok = psi_read(fd, &p);
	check(ok && p.some == 1234 && p.full == 7,
	      "psi: avg10 of some and full in hundredths (%lld, %lld)",
	      (long long)p.some, (long long)p.full);
	close(fd);
	unlink(file);
	rmdir(dir);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: unit FORMATS_DIR\n");
		return 2;
	}
	formats_dir = argv[1];
	test_decoder();
	test_changed_kernels();
	test_state();
	test_invariants();
	test_escapes();
	test_psi();
	return failures ? 1 : 0;
}
