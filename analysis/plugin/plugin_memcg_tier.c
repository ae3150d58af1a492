// SPDX-License-Identifier: LGPL-2.1
/*
 * plugin_memcg_tier: names the cgroup and the memory tiers of each
 * memcg_tier event in "trace-cmd report" and "trace-cmd stream".
 *
 * The events carry a cgroup id (its cgroupfs inode number) and tier slots.
 * This plugin puts the cgroup's path, and each tier's slot and nodes, in
 * front of the event's own text:
 *
 *   memcg_tier_charge: /tierpush tier0[0]: cgroup_id=17 nid=0 slot=0 ...
 *
 * Paths come from the cgroup_mkdir events of the capture, as they are
 * printed, and from a file of "ID PATH" lines (tracing/record.sh writes
 * TRACE.cgroups):  -O memcg_tier:map=FILE.  Tier nodes come from a
 * memory.tier_stat snapshot ("ID PATH tierN nodes=..." lines, record.sh's
 * TRACE.tier_stat.start):  -O memcg_tier:tier_stat=FILE.  An event the
 * plugin can name nothing for is printed exactly as without it.
 */
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "event-parse.h"
#include "trace-seq.h"

#define MAX_SLOTS 64
#define MAX_NODES 64

static struct tep_plugin_option plugin_options[] = {
	{
		.name = "map",
		.plugin_alias = "memcg_tier",
		.description = "file of 'ID PATH' lines naming cgroups (TRACE.cgroups)",
		.value = "",
	},
	{
		.name = "tier_stat",
		.plugin_alias = "memcg_tier",
		.description = "memory.tier_stat snapshot labelling the tiers (TRACE.tier_stat.start)",
		.value = "",
	},
	{ .name = NULL },
};

static struct tep_plugin_option *map_option = &plugin_options[0];
static struct tep_plugin_option *stat_option = &plugin_options[1];

/* cgroup id -> path, open addressing; ids are never 0 */
struct cgroup_name {
	unsigned long long id;
	char *path;
};

static struct cgroup_name *names;
static size_t names_cap, names_len;

/* slot -> its nodes as printed ("0-1"), and node -> slot */
static char *slot_nodes[MAX_SLOTS];
static int node_slot[MAX_NODES];
static int files_read;

static size_t hash_of(unsigned long long id)
{
	return (size_t)((id * 0x9e3779b97f4a7c15ULL) >> 32);
}

static struct cgroup_name *lookup(unsigned long long id)
{
	size_t i;

	if (!names_cap)
		return NULL;
	for (i = hash_of(id) & (names_cap - 1); names[i].id;
	     i = (i + 1) & (names_cap - 1))
		if (names[i].id == id)
			return &names[i];
	return NULL;
}

static void remember(unsigned long long id, const char *path, size_t len)
{
	struct cgroup_name *n;
	char *p;
	size_t i;

	if (!id)
		return;
	if ((names_len + 1) * 2 > names_cap) {
		size_t cap = names_cap ? names_cap * 2 : 64;
		struct cgroup_name *grown = calloc(cap, sizeof(*grown));

		if (!grown)
			return;
		for (i = 0; i < names_cap; i++) {
			size_t j;

			if (!names[i].id)
				continue;
			for (j = hash_of(names[i].id) & (cap - 1); grown[j].id;
			     j = (j + 1) & (cap - 1))
				;
			grown[j] = names[i];
		}
		free(names);
		names = grown;
		names_cap = cap;
	}
	p = strndup(path, len);
	if (!p)
		return;
	n = lookup(id);
	if (n) {		/* a later mkdir of the same id wins */
		free(n->path);
		n->path = p;
		return;
	}
	for (i = hash_of(id) & (names_cap - 1); names[i].id;
	     i = (i + 1) & (names_cap - 1))
		;
	names[i].id = id;
	names[i].path = p;
	names_len++;
}

/* "0-1,3" -> node_slot[] entries for @slot */
static void map_nodes(const char *list, int slot)
{
	const char *p = list;

	while (*p) {
		char *end;
		long a = strtol(p, &end, 10), b = a, n;

		if (end == p)
			return;
		if (*end == '-')
			b = strtol(end + 1, &end, 10);
		for (n = a; n <= b && n >= 0 && n < MAX_NODES; n++)
			node_slot[n] = slot;
		p = *end == ',' ? end + 1 : end;
		if (*end && *end != ',')
			return;
	}
}

/* "ID PATH" */
static void map_line(char *line)
{
	unsigned long long id;
	int off = 0;

	if (sscanf(line, "%llu %n", &id, &off) == 1 && off && line[off] == '/')
		remember(id, line + off, strlen(line + off));
}

/* "ID PATH tierN nodes=LIST ...": the slot is the last " tierN " */
static void tier_stat_line(char *line)
{
	char *t = NULL, *p, *nodes;
	int slot;

	for (p = strstr(line, " tier"); p; p = strstr(p + 1, " tier"))
		t = p;
	if (!t || sscanf(t, " tier%d", &slot) != 1 || slot < 0 ||
	    slot >= MAX_SLOTS || slot_nodes[slot])
		return;
	nodes = strstr(t, " nodes=");
	if (!nodes)
		return;
	nodes += 7;
	nodes[strcspn(nodes, " ")] = '\0';
	slot_nodes[slot] = strdup(nodes);
	if (slot_nodes[slot])
		map_nodes(slot_nodes[slot], slot);
}

/*
 * Each line of the file option @opt names, or a word on stderr.  Only a
 * regular file: a FIFO would block the open (hence O_NONBLOCK) and a
 * device like /dev/zero never ends.
 */
static void read_option_file(const struct tep_plugin_option *opt,
			     void (*line_fn)(char *line))
{
	char line[4096];
	struct stat st;
	FILE *f;
	int fd;

	if (!opt->value || !*opt->value)
		return;
	fd = open(opt->value, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "plugin_memcg_tier: %s=%s: cannot open it\n",
			opt->name, opt->value);
		return;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || !(f = fdopen(fd, "r"))) {
		fprintf(stderr, "plugin_memcg_tier: %s=%s: not a regular file, ignored\n",
			opt->name, opt->value);
		close(fd);
		return;
	}
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		line_fn(line);
	}
	fclose(f);
}

/* The option files, once, at the first event (options are set by then) */
static void read_files(void)
{
	if (files_read)
		return;
	files_read = 1;
	read_option_file(map_option, map_line);
	read_option_file(stat_option, tier_stat_line);
}

static int field(struct tep_record *record, struct tep_event *event,
		 const char *name, unsigned long long *val)
{
	return tep_get_field_val(NULL, event, name, record, val, 0);
}

static const char *slot_label(long long slot)
{
	return slot >= 0 && slot < MAX_SLOTS ? slot_nodes[slot] : NULL;
}

static long long slot_of_node(unsigned long long nid)
{
	return nid < MAX_NODES ? node_slot[nid] : -1;
}

/*
 * The prefix "PATH TIERS: " before the event's own text, with whatever
 * of the two is known (both tiers of a move, or none).  Returns 1 so that
 * libtraceevent prints that text after it, as it would without us.
 */
static int memcg_tier_handler(struct trace_seq *s, struct tep_record *record,
			      struct tep_event *event, void *context)
{
	long long from = -1, to = -1;
	unsigned long long id, a, b;
	struct cgroup_name *n;
	bool tiers, move = false;

	(void)context;
	read_files();
	if (field(record, event, "cgroup_id", &id))
		return 1;
	if (!field(record, event, "slot", &a)) {
		to = (int)a;
	} else if (!field(record, event, "src_slot", &a) &&
		   !field(record, event, "dst_slot", &b)) {
		move = true;
		from = (int)a;
		to = (int)b;
	} else if (!field(record, event, "nid", &a) &&
		   !field(record, event, "target_nid", &b)) {
		move = true;
		from = slot_of_node(a);
		to = slot_of_node(b);
	}
	/* Both tiers of a move, or none */
	tiers = slot_label(to) && (!move || slot_label(from));
	n = lookup(id);
	if (!n && !tiers)
		return 1;
	if (n)
		trace_seq_puts(s, n->path);
	if (tiers && move)
		trace_seq_printf(s, "%stier%lld[%s]->", n ? " " : "", from,
				 slot_label(from));
	if (tiers)
		trace_seq_printf(s, "%stier%lld[%s]", n && !move ? " " : "",
				 to, slot_label(to));
	trace_seq_puts(s, ": ");
	return 1;
}

/* Names cgroups made during the capture, in the order they are printed */
static int mkdir_handler(struct trace_seq *s, struct tep_record *record,
			 struct tep_event *event, void *context)
{
	unsigned long long id, root;
	int len = 0;
	const char *path;

	(void)s;
	(void)context;
	read_files();
	/* Only the cgroup v2 hierarchy (0): v1 ones number their own ids */
	if (field(record, event, "root", &root) || root != 0 ||
	    field(record, event, "id", &id))
		return 1;
	path = tep_get_field_raw(NULL, event, "path", record, &len, 0);
	/* A damaged record's offset is not checked for us */
	if (path && len > 0 && path >= (const char *)record->data &&
	    path + len <= (const char *)record->data + record->size)
		remember(id, path, strnlen(path, len));
	return 1;
}

static const char *const events[] = {
	"memcg_tier_charge", "memcg_tier_reclaim",
	"memcg_tier_migrate_refuse", "memcg_tier_steer",
};

int TEP_PLUGIN_LOADER(struct tep_handle *tep)
{
	size_t i;

	for (i = 0; i < MAX_NODES; i++)
		node_slot[i] = -1;
	tep_plugin_add_options("memcg_tier", plugin_options);
	for (i = 0; i < sizeof(events) / sizeof(events[0]); i++)
		tep_register_event_handler(tep, -1, "memcg_tier", events[i],
					   memcg_tier_handler, NULL);
	tep_register_event_handler(tep, -1, "cgroup", "cgroup_mkdir",
				   mkdir_handler, NULL);
	return 0;
}

int TEP_PLUGIN_UNLOADER(struct tep_handle *tep)
{
	size_t i;

	for (i = 0; i < sizeof(events) / sizeof(events[0]); i++)
		tep_unregister_event_handler(tep, -1, "memcg_tier", events[i],
					     memcg_tier_handler, NULL);
	tep_unregister_event_handler(tep, -1, "cgroup", "cgroup_mkdir",
				     mkdir_handler, NULL);
	tep_plugin_remove_options(plugin_options);
	for (i = 0; i < names_cap; i++)
		free(names[i].path);
	free(names);
	names = NULL;
	names_cap = names_len = 0;
	for (i = 0; i < MAX_SLOTS; i++) {
		free(slot_nodes[i]);
		slot_nodes[i] = NULL;
	}
	files_read = 0;
	return 0;
}
