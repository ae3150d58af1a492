// SPDX-License-Identifier: GPL-2.0
/*
 * Field-by-name decoding of the memcg_tier and cgroup events.  Offsets,
 * sizes and signedness come from the capture's own event formats, so a
 * kernel that moves or widens a field still decodes; one that drops a
 * field the reports need, or turns a number into something else, is
 * refused at open with the event and field named.  Every read is bounds
 * checked against the record: the bytes come from a file.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode.h"

const char *const cause_names[NR_CAUSES] = {
	"alloc", "uncharge", "migrate", "replace", "other",
};
/*
 * "failed": a tier charge undone, in captures of kernels that charged
 * the tier before memory
 */
const char *const outcome_names[NR_OUTCOMES] = {
	"charged", "forced", "failed", "other",
};
const char *const reclaim_reason_names[NR_RECLAIM_REASONS] = {
	"charge", "high", "limit", "exchange", "other",
};
const char *const refuse_reason_names[NR_REFUSE_REASONS] = {
	"tier_max", "promotion_gate", "other",
};

enum field_type { NUM, DYN, OPT_DYN, OPT_NUM };

struct field_spec {
	const char *name;
	enum field_type type;
};

/* A field printed with __print_symbolic and the names it may take */
struct sym_spec {
	int field;		/* index into the event's fields */
	const char *const *names;
	int nr_names;		/* the last one is "other" */
};

struct event_spec {
	const char *system, *name;
	struct field_spec fields[10];
	struct sym_spec syms[2];
};

/* Field indices, per event, in the order of event_specs[].fields */
enum { C_ID, C_NID, C_SLOT, C_PAGES, C_USAGE, C_HIGH, C_MAX, C_CAUSE,
       C_OUTCOME };
enum { R_ID, R_SLOT, R_NODES, R_REASON, R_REQUESTED, R_RECLAIMED, R_BEFORE,
       R_AFTER };
enum { F_ID, F_SRC_NID, F_DST_NID, F_SRC_SLOT, F_DST_SLOT, F_PAGES,
       F_REFUSE };
enum { S_ID, S_NID, S_TARGET, S_ORDER, S_NODES, S_EXCLUDED };
enum { M_ID, M_PATH, M_ROOT };

static const struct event_spec event_specs[REC_NR_KINDS] = {
	[REC_CHARGE] = { "memcg_tier", "memcg_tier_charge", {
		{ "cgroup_id", NUM }, { "nid", NUM }, { "slot", NUM },
		{ "nr_pages", NUM }, { "usage", NUM }, { "high", NUM },
		{ "max", NUM }, { "cause", NUM }, { "outcome", NUM } },
		{ { C_CAUSE, cause_names, NR_CAUSES },
		  { C_OUTCOME, outcome_names, NR_OUTCOMES } } },
	[REC_RECLAIM] = { "memcg_tier", "memcg_tier_reclaim", {
		{ "cgroup_id", NUM }, { "slot", NUM }, { "nodes", OPT_DYN },
		{ "reason", NUM }, { "requested", NUM }, { "reclaimed", NUM },
		{ "usage_before", NUM }, { "usage_after", NUM } },
		{ { R_REASON, reclaim_reason_names, NR_RECLAIM_REASONS } } },
	[REC_REFUSE] = { "memcg_tier", "memcg_tier_migrate_refuse", {
		{ "cgroup_id", NUM }, { "src_nid", NUM }, { "dst_nid", NUM },
		{ "src_slot", NUM }, { "dst_slot", NUM }, { "nr_pages", NUM },
		{ "refuse", NUM } },
		{ { F_REFUSE, refuse_reason_names, NR_REFUSE_REASONS } } },
	[REC_STEER] = { "memcg_tier", "memcg_tier_steer", {
		{ "cgroup_id", NUM }, { "nid", NUM }, { "target_nid", NUM },
		{ "order", NUM }, { "nodes", OPT_DYN },
		{ "excluded", OPT_NUM } } },
	[REC_MKDIR] = { "cgroup", "cgroup_mkdir", {
		{ "id", NUM }, { "path", DYN }, { "root", OPT_NUM } } },
	[REC_RMDIR] = { "cgroup", "cgroup_rmdir", {
		{ "id", NUM }, { "path", DYN }, { "root", OPT_NUM } } },
};

static const struct tep_print_arg *find_symbolic(const struct tep_print_arg *a,
						 const char *field)
{
	const struct tep_print_arg *hit;

	for (; a; a = a->next) {
		switch (a->type) {
		case TEP_PRINT_SYMBOL:
			if (a->symbol.field &&
			    a->symbol.field->type == TEP_PRINT_FIELD &&
			    !strcmp(a->symbol.field->field.name, field))
				return a;
			break;
		case TEP_PRINT_OP:
			hit = find_symbolic(a->op.left, field);
			if (!hit)
				hit = find_symbolic(a->op.right, field);
			if (hit)
				return hit;
			break;
		case TEP_PRINT_TYPE:
			hit = find_symbolic(a->typecast.item, field);
			if (hit)
				return hit;
			break;
		default:
			break;
		}
	}
	return NULL;
}

/*
 * Raw value -> our enum, from the { value, "name" } pairs the event's
 * print format lists for @field.  Without a table the raw value is taken
 * to be our enum's (the order the kernel header declares).
 */
static int build_sym_map(struct event_ref *ev, int i, struct tep_event *event,
			 const struct sym_spec *spec, const char *fname,
			 char *err, size_t errlen)
{
	const struct tep_print_arg *arg;
	struct tep_print_flag_sym *s;
	long max = spec->nr_names - 2;
	int *map, k;

	arg = find_symbolic(event->print_fmt.args, fname);
	for (s = arg ? arg->symbol.symbols : NULL; s; s = s->next) {
		long v = strtol(s->value, NULL, 0);

		if (v < 0 || v > 4095) {
			snprintf(err, errlen, "event %s: symbol value %s of %s out of range",
				 ev->name, s->value, fname);
			return -1;
		}
		if (v > max)
			max = v;
	}
	map = calloc(max + 1, sizeof(*map));
	if (!map) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	/* With a table, a value it does not name is no value at all (-1) */
	for (k = 0; k <= max; k++)
		map[k] = arg ? -1 : k >= spec->nr_names - 1 ?
			spec->nr_names - 1 : k;
	for (s = arg ? arg->symbol.symbols : NULL; s; s = s->next) {
		long v = strtol(s->value, NULL, 0);

		map[v] = spec->nr_names - 1;
		for (k = 0; k < spec->nr_names - 1; k++)
			if (!strcmp(s->str, spec->names[k]))
				map[v] = k;
	}
	ev->sym_map[i] = map;
	ev->sym_len[i] = max + 1;
	return 0;
}

static int resolve_event(struct tier_decoder *d, enum rec_kind kind,
			 char *err, size_t errlen)
{
	const struct event_spec *spec = &event_specs[kind];
	struct event_ref *ev = &d->ev[kind];
	struct tep_event *event;
	int i;

	ev->id = -1;
	ev->name = spec->name;
	event = tep_find_event_by_name(d->tep, spec->system, spec->name);
	if (!event)
		return 0;
	for (i = 0; i < 10 && spec->fields[i].name; i++) {
		const struct field_spec *fs = &spec->fields[i];
		struct tep_format_field *f = tep_find_field(event, fs->name);
		struct field_ref *r = &ev->f[i];
		int want_dyn = fs->type == DYN || fs->type == OPT_DYN;

		r->size = 0;
		if (!f) {
			if (fs->type == OPT_DYN || fs->type == OPT_NUM)
				continue;
			snprintf(err, errlen,
				 "event %s has no field '%s' (a kernel this analyzer does not know?)",
				 spec->name, fs->name);
			return -1;
		}
		r->dynamic = !!(f->flags & TEP_FIELD_IS_DYNAMIC);
		r->relative = !!(f->flags & TEP_FIELD_IS_RELATIVE);
		if (want_dyn != r->dynamic ||
		    (!want_dyn && ((f->flags & (TEP_FIELD_IS_ARRAY |
						TEP_FIELD_IS_STRING |
						TEP_FIELD_IS_POINTER)) ||
				   f->size < 1 || f->size > 8)) ||
		    (want_dyn && f->size != 4)) {
			snprintf(err, errlen,
				 "event %s: field '%s' is '%s' (%d bytes), expected %s",
				 spec->name, fs->name, f->type, f->size,
				 want_dyn ? "a dynamic array" : "an integer");
			return -1;
		}
		r->offset = f->offset;
		r->size = f->size;
		r->is_signed = !!(f->flags & TEP_FIELD_IS_SIGNED);
	}
	for (i = 0; i < 2 && spec->syms[i].names; i++)
		if (build_sym_map(ev, i, event, &spec->syms[i],
				  spec->fields[spec->syms[i].field].name,
				  err, errlen))
			return -1;
	ev->id = event->id;
	return 0;
}

int tier_decoder_init(struct tier_decoder *d, struct tep_handle *tep,
		      char *err, size_t errlen)
{
	struct tep_format_field *type = NULL;
	int k;

	memset(d, 0, sizeof(*d));
	d->tep = tep;
	d->swap = tep_is_file_bigendian(tep) != tep_is_local_bigendian(tep);
	for (k = 0; k < REC_NR_KINDS; k++) {
		if (resolve_event(d, k, err, errlen)) {
			tier_decoder_free(d);
			return -1;
		}
		if (!type && d->ev[k].id >= 0)
			type = tep_find_common_field(tep_find_event(tep, d->ev[k].id),
						     "common_type");
	}
	if (type) {
		d->type_offset = type->offset;
		d->type_size = type->size;
	}
	return 0;
}

void tier_decoder_free(struct tier_decoder *d)
{
	int k;

	for (k = 0; k < REC_NR_KINDS; k++) {
		free(d->ev[k].sym_map[0]);
		free(d->ev[k].sym_map[1]);
		d->ev[k].sym_map[0] = d->ev[k].sym_map[1] = NULL;
	}
}

int tier_decoder_has(const struct tier_decoder *d, enum rec_kind kind)
{
	return d->ev[kind].id >= 0;
}

struct cursor {
	const struct tier_decoder *d;
	const struct event_ref *ev;
	int kind;
	const unsigned char *data;
	int size;
	int bad;		/* a field ran past the record */
	int sym_bad;		/* a symbolic field's value is not in its table */
	const char *sym_field;
	long long sym_value;
};

/*
 * An integer of @size bytes at @p: in the capture's byte order when it is
 * ours, read in place (this runs for every field of every record, and
 * tep_read_number() costs a call and a byte-order test each time).
 */
static unsigned long long read_uint(const struct tier_decoder *d,
				    const void *p, int size)
{
	uint64_t v8;
	uint32_t v4;
	uint16_t v2;

	if (d->swap)
		return tep_read_number(d->tep, p, size);
	switch (size) {
	case 1:
		return *(const uint8_t *)p;
	case 2:
		memcpy(&v2, p, 2);
		return v2;
	case 4:
		memcpy(&v4, p, 4);
		return v4;
	case 8:
		memcpy(&v8, p, 8);
		return v8;
	default:
		return tep_read_number(d->tep, p, size);
	}
}

static long long num(struct cursor *c, int i)
{
	const struct field_ref *r = &c->ev->f[i];
	unsigned long long v;

	if (!r->size)		/* an optional field the capture lacks */
		return 0;
	if (r->offset < 0 || r->offset + r->size > c->size) {
		c->bad = 1;
		return 0;
	}
	v = read_uint(c->d, c->data + r->offset, r->size);
	if (r->is_signed && r->size < 8 && (v >> (r->size * 8 - 1)) & 1)
		v |= ~0ULL << (r->size * 8);
	return (long long)v;
}

/* A dynamic field's bytes: *len 0 and NULL when absent or out of bounds */
static const unsigned char *dyn(struct cursor *c, int i, int *len)
{
	const struct field_ref *r = &c->ev->f[i];
	unsigned int loc, off;

	*len = 0;
	if (!r->size)
		return NULL;
	if (r->offset < 0 || r->offset + 4 > c->size) {
		c->bad = 1;
		return NULL;
	}
	loc = read_uint(c->d, c->data + r->offset, 4);
	off = loc & 0xffff;
	if (r->relative)
		off += r->offset + 4;
	if (off + (loc >> 16) > (unsigned int)c->size) {
		c->bad = 1;
		return NULL;
	}
	*len = loc >> 16;
	return c->data + off;
}

static unsigned long long bitmask64(struct cursor *c, int i)
{
	int ls = tep_get_long_size(c->d->tep), len, k;
	unsigned long long v = 0;
	const unsigned char *p;

	if (ls != 4 && ls != 8)
		ls = 8;
	p = dyn(c, i, &len);
	/* An array of longs in the file's byte order */
	for (k = 0; p && k + ls <= len && k < 8; k += ls)
		v |= read_uint(c->d, p + k, ls) << (k * 8);
	return v;
}

/*
 * A symbolic field as our enum: "other" for a name the analyzer does not
 * know; a value the format's own table does not name is damage (c->sym_bad).
 */
static int sym(struct cursor *c, int which, int i)
{
	const struct event_ref *ev = c->ev;
	long long v = num(c, i);
	int k = v >= 0 && v < ev->sym_len[which] ? ev->sym_map[which][v] : -1;

	if (k < 0 && !c->sym_bad) {
		c->sym_bad = 1;
		c->sym_field = event_specs[c->kind].fields[event_specs[c->kind].syms[which].field].name;
		c->sym_value = v;
	}
	return k < 0 ? event_specs[c->kind].syms[which].nr_names - 1 : k;
}

#define PAGES_MAX (1LL << 40)

static int slot_ok(long long slot)
{
	return slot >= 0 && slot < TIER_MAX_SLOTS;
}

int tier_decode(const struct tier_decoder *d, const void *data, int size,
		unsigned long long ts, struct tier_record *out,
		char *err, size_t errlen)
{
	struct cursor c = { d, NULL, 0, data, size, 0, 0, NULL, 0 };
	long long type, v, slot = -1, nid = -1;
	int kind;

	if (!d->type_size || d->type_offset + d->type_size > size) {
		snprintf(err, errlen, "record of %d bytes has no event type", size);
		return size > 0 && !d->type_size ? 0 : -1;
	}
	type = read_uint(d, c.data + d->type_offset, d->type_size);
	for (kind = 0; kind < REC_NR_KINDS; kind++)
		if (d->ev[kind].id >= 0 && d->ev[kind].id == type)
			break;
	if (kind == REC_NR_KINDS)
		return 0;

	c.ev = &d->ev[kind];
	c.kind = kind;
	memset(out, 0, sizeof(*out));
	out->kind = kind;
	out->ts = ts;
	out->slot = out->src_slot = -1;
	out->nid = out->src_nid = -1;
	switch (kind) {
	case REC_CHARGE:
		out->cgroup_id = num(&c, C_ID);
		nid = num(&c, C_NID);
		slot = num(&c, C_SLOT);
		out->pages = num(&c, C_PAGES);
		out->usage = num(&c, C_USAGE);
		out->high = num(&c, C_HIGH);
		out->max = num(&c, C_MAX);
		out->reason = sym(&c, 0, C_CAUSE);
		out->outcome = sym(&c, 1, C_OUTCOME);
		break;
	case REC_RECLAIM:
		out->cgroup_id = num(&c, R_ID);
		slot = num(&c, R_SLOT);
		out->nodes = bitmask64(&c, R_NODES);
		out->reason = sym(&c, 0, R_REASON);
		out->requested = num(&c, R_REQUESTED);
		out->pages = num(&c, R_RECLAIMED);
		out->usage_before = num(&c, R_BEFORE);
		out->usage = num(&c, R_AFTER);
		break;
	case REC_REFUSE:
		out->cgroup_id = num(&c, F_ID);
		v = num(&c, F_SRC_NID);
		out->src_nid = v >= 0 && v < 1 << 16 ? (int)v : -1;
		nid = num(&c, F_DST_NID);
		v = num(&c, F_SRC_SLOT);
		slot = num(&c, F_DST_SLOT);
		out->pages = num(&c, F_PAGES);
		out->reason = sym(&c, 0, F_REFUSE);
		if (!c.bad && !slot_ok(v)) {
			snprintf(err, errlen, "%s: source tier slot %lld out of range",
				 c.ev->name, v);
			return -1;
		}
		out->src_slot = (int)v;
		break;
	case REC_STEER:
		out->cgroup_id = num(&c, S_ID);
		v = num(&c, S_NID);
		out->src_nid = v >= 0 && v < 1 << 16 ? (int)v : -1;
		nid = num(&c, S_TARGET);
		v = num(&c, S_ORDER);
		if (!c.bad && (v < 0 || v > 30)) {
			snprintf(err, errlen, "%s: order %lld out of range",
				 c.ev->name, v);
			return -1;
		}
		out->pages = 1LL << v;
		out->nodes = bitmask64(&c, S_NODES);
		out->excluded = num(&c, S_EXCLUDED);
		break;
	case REC_MKDIR:
	case REC_RMDIR: {
		const unsigned char *p;
		int len;

		/* cgroup v1 hierarchies number their own ids: v2's is 0 */
		if (num(&c, M_ROOT) && !c.bad)
			return 0;
		out->cgroup_id = num(&c, M_ID);
		p = dyn(&c, M_PATH, &len);
		/* The kernel stores the string with its NUL */
		while (len > 0 && p[len - 1] == '\0')
			len--;
		out->path = (const char *)p;
		out->path_len = len;
		break;
	}
	default:
		break;
	}
	if (c.bad) {
		snprintf(err, errlen, "%s record of %d bytes is shorter than its fields",
			 c.ev->name, size);
		return -1;
	}
	if (c.sym_bad) {
		snprintf(err, errlen, "%s: %s %lld is not a value its format names",
			 c.ev->name, c.sym_field, c.sym_value);
		return -1;
	}
	/* Ranges checked on the 64-bit values, before they are narrowed */
	if (kind != REC_MKDIR && kind != REC_RMDIR && kind != REC_STEER &&
	    !slot_ok(slot)) {
		snprintf(err, errlen, "%s: tier slot %lld out of range (0-%d)",
			 c.ev->name, slot, TIER_MAX_SLOTS - 1);
		return -1;
	}
	if ((nid < 0 || nid >= 1 << 16) && kind != REC_RECLAIM &&
	    kind != REC_MKDIR && kind != REC_RMDIR) {
		snprintf(err, errlen, "%s: node %lld out of range", c.ev->name,
			 nid);
		return -1;
	}
	/* More pages than any machine has: 2^40 pages are 4 PiB */
	if (out->pages > PAGES_MAX || out->pages < -PAGES_MAX) {
		snprintf(err, errlen, "%s: %lld pages out of range", c.ev->name,
			 out->pages);
		return -1;
	}
	out->slot = (int)slot;
	out->nid = (int)nid;
	return 1;
}
