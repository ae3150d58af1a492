// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target over the decoder: record bytes as a capture could
 * hold them, for the real event formats (tests/formats/).  The first
 * input byte picks the event whose type id is written into the record,
 * so most inputs reach the field decoding rather than stopping at an
 * unknown type; the rest is the record.  Run by "make fuzz".
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode.h"

static struct tep_handle *tep;
static struct tier_decoder dec;
static int ids[REC_NR_KINDS];

static const char *const names[REC_NR_KINDS] = {
	"memcg_tier_charge", "memcg_tier_reclaim", "memcg_tier_migrate_refuse",
	"memcg_tier_steer", "cgroup_mkdir", "cgroup_rmdir",
};

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char path[512], buf[16384], err[200];
	int k;

	(void)argc;
	(void)argv;
	tep = tep_alloc();
	tep_set_long_size(tep, 8);
	tep_set_file_bigendian(tep, TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(tep, TEP_LITTLE_ENDIAN);
	for (k = 0; k < REC_NR_KINDS; k++) {
		FILE *f;
		size_t n;

		snprintf(path, sizeof(path), "%s/%s.format", FORMATS_DIR, names[k]);
		f = fopen(path, "r");
		if (!f) {
			fprintf(stderr, "fuzz: cannot open %s\n", path);
			exit(1);
		}
		n = fread(buf, 1, sizeof(buf), f);
		fclose(f);
		if (tep_parse_event(tep, buf, n, k < 4 ? "memcg_tier" : "cgroup"))
			exit(1);
		ids[k] = tep_find_event_by_name(tep, NULL, names[k])->id;
	}
	if (tier_decoder_init(&dec, tep, err, sizeof(err))) {
		fprintf(stderr, "fuzz: %s\n", err);
		exit(1);
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tier_record r;
	unsigned char *rec;
	char err[200];
	int ret;

	if (size < 1)
		return 0;
	/* An exact-size copy, so reading past the record trips ASan */
	rec = malloc(size - 1 ? size - 1 : 1);
	memcpy(rec, data + 1, size - 1);
	if (size >= 3 && data[0] < REC_NR_KINDS) {
		rec[0] = ids[data[0]] & 0xff;
		rec[1] = ids[data[0]] >> 8;
	}
	ret = tier_decode(&dec, rec, size - 1, 0, &r, err, sizeof(err));
	if (ret == 1 && r.path && (r.path_len < 0 ||
				   r.path + r.path_len > (char *)rec + size - 1))
		abort();
	free(rec);
	return 0;
}
