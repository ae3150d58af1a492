// SPDX-License-Identifier: GPL-2.0
/*
 * The floor the analyzer is measured against in "make bench": open a
 * capture with libtracecmd and read one field (the event type) of every
 * record, in time order across CPUs, doing nothing else.
 *
 *   bench-iterate TRACE.dat      prints the number of records
 */
#include <stdio.h>

#include <trace-cmd.h>

struct count {
	struct tep_handle *tep;
	unsigned long long records, types;
};

static int on_record(struct tracecmd_input *h, struct tep_record *rec,
		     int cpu, void *data)
{
	struct count *c = data;

	(void)h;
	(void)cpu;
	c->records++;
	c->types += tep_data_type(c->tep, rec);
	return 0;
}

int main(int argc, char **argv)
{
	struct tracecmd_input *h;
	struct count c = { 0 };

	if (argc != 2) {
		fprintf(stderr, "usage: bench-iterate TRACE.dat\n");
		return 2;
	}
	h = tracecmd_open(argv[1], TRACECMD_FL_LOAD_NO_PLUGINS);
	if (!h) {
		fprintf(stderr, "bench-iterate: %s: cannot open\n", argv[1]);
		return 1;
	}
	c.tep = tracecmd_get_tep(h);
	tracecmd_iterate_events(h, NULL, 0, on_record, &c);
	printf("%llu records (type sum %llu)\n", c.records, c.types);
	tracecmd_close(h);
	return 0;
}
