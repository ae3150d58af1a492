// SPDX-License-Identifier: GPL-2.0
/*
 * Live records from tracefs.  The instance is ours alone (its name holds
 * our pid), so nothing another tracer set up is touched, and reading its
 * per-CPU pipes consumes records nobody else wants.  tracefs_iterate_raw_events()
 * reads without blocking and merges the CPUs in time order, as
 * trace-cmd's reader does.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <tracefs.h>

#include "live.h"

static int feed_record(struct tep_event *ev, struct tep_record *rec,
		       int cpu, void *data)
{
	struct live *l = data;
	struct tier_record tr;
	char msg[200];
	int ret;

	(void)ev;
	(void)cpu;
	l->records++;
	analysis_tick(l->a, rec->ts);
	ret = tier_decode(&l->dec, rec->data, rec->size, rec->ts, &tr,
			  msg, sizeof(msg));
	if (ret < 0)
		l->bad++;
	if (ret <= 0)
		return 0;
	l->feed = analysis_feed(l->a, &tr);
	return l->feed != FEED_OK;	/* stops the iteration */
}

/* Records the ring buffer overwrote, summed over the CPUs */
static uint64_t overruns(struct live *l)
{
	uint64_t sum = 0;
	char file[64];
	int cpu;

	for (cpu = 0; cpu < l->nr_cpus; cpu++) {
		char *s, *p;

		snprintf(file, sizeof(file), "per_cpu/cpu%d/stats", cpu);
		s = tracefs_instance_file_read(l->inst, file, NULL);
		if (!s)
			continue;	/* a CPU that is not possible */
		p = strstr(s, "overrun: ");
		if (p)
			sum += strtoull(p + 9, NULL, 10);
		p = strstr(s, "dropped events: ");
		if (p)
			sum += strtoull(p + 16, NULL, 10);
		free(s);
	}
	return sum;
}

int live_open(struct live *l, struct analysis *a, char *err, size_t errlen)
{
	static const char *const systems[] = { "memcg_tier", "cgroup", NULL };
	char name[64];

	memset(l, 0, sizeof(*l));
	l->a = a;
	l->nr_cpus = sysconf(_SC_NPROCESSORS_CONF);
	if (!tracefs_tracing_dir()) {
		snprintf(err, errlen, "no tracefs: mount it (mount -t tracefs nodev /sys/kernel/tracing)");
		return -1;
	}
	if (!tracefs_event_file_exists(NULL, "memcg_tier", "memcg_tier_charge",
				       "format")) {
		snprintf(err, errlen, "this kernel has no memcg_tier events: boot a kernel with the tiered memcg limits series (patches/) and cgroup.memory=tiered_limits");
		return -1;
	}
	l->tep = tracefs_local_events_system(NULL, systems);
	if (!l->tep) {
		snprintf(err, errlen, "cannot read the event formats under %s: %s",
			 tracefs_tracing_dir(), strerror(errno));
		return -1;
	}
	if (tier_decoder_init(&l->dec, l->tep, err, errlen))
		goto free_tep;
	snprintf(name, sizeof(name), "memcg_tier_top_%d", (int)getpid());
	l->inst = tracefs_instance_create(name);
	if (!l->inst) {
		snprintf(err, errlen, "cannot create the tracing instance %s: %s",
			 name, strerror(errno));
		goto free_dec;
	}
	/*
	 * Ours alone or not at all: another PID namespace's top, or one
	 * that was killed, would share its records and lose them at exit.
	 */
	if (!tracefs_instance_is_new(l->inst)) {
		snprintf(err, errlen, "the tracing instance %s exists already (a top in another PID namespace, or one killed): remove it with rmdir %s/instances/%s",
			 name, tracefs_tracing_dir(), name);
		tracefs_instance_free(l->inst);
		goto free_dec;
	}
	if (tracefs_event_enable(l->inst, "memcg_tier", NULL) ||
	    tracefs_event_enable(l->inst, "cgroup", "cgroup_mkdir") ||
	    tracefs_event_enable(l->inst, "cgroup", "cgroup_rmdir")) {
		snprintf(err, errlen, "cannot enable the events in instance %s: %s",
			 name, strerror(errno));
		tracefs_instance_destroy(l->inst);
		tracefs_instance_free(l->inst);
		goto free_dec;
	}
	return 0;
free_dec:
	tier_decoder_free(&l->dec);
free_tep:
	tep_free(l->tep);
	return -1;
}

int live_drain(struct live *l)
{
	uint64_t n;

	l->feed = FEED_OK;
	/* It fails whole, reading nothing, when a CPU's buffer cannot be opened */
	if (tracefs_iterate_raw_events(l->tep, l->inst, NULL, 0, feed_record,
				       l) < 0 && l->feed == FEED_OK)
		return -2;
	if (l->feed != FEED_OK)
		return -1;
	n = overruns(l);
	if (n > l->lost) {
		analysis_lost(l->a, n - l->lost);
		l->lost = n;
	}
	return 0;
}

int live_close(struct live *l)
{
	int ret;

	tracefs_event_disable(l->inst, NULL, NULL);
	ret = live_drain(l);
	tracefs_instance_destroy(l->inst);
	tracefs_instance_free(l->inst);
	tier_decoder_free(&l->dec);
	tep_free(l->tep);
	return ret;
}
