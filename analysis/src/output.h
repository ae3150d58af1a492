/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Output files that can never destroy an input: a path that is one of the
 * files the run reads (or another output of the same run) is refused
 * before anything is read, regular files are written whole or not at all,
 * and anything else (a FIFO, a terminal, /dev/stdout) is written straight
 * through.
 */
#ifndef OUTPUT_H
#define OUTPUT_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

/* What identifies a file: an existing one, or a name in a directory */
struct file_id {
	dev_t dev;
	ino_t ino;
	const char *name;	/* NULL for an existing file */
};

struct output {
	const char *path;	/* as given */
	char *target;		/* what is replaced: the path, a link resolved */
	char *tmp;		/* temporary beside target; NULL: written straight */
	FILE *f;
};

/*
 * The identity of @path as an output: the file it names, or for a path
 * that does not exist yet its directory and name.  Returns false with
 * errno set when neither can be found.
 */
bool file_id_of(const char *path, struct file_id *id);
bool file_id_same(const struct file_id *a, const struct file_id *b);

/*
 * Open @path for writing; on failure prints "PROG: cannot write PATH:
 * REASON" and returns -1.  A regular file is written to a temporary
 * beside it that output_commit() renames over it; a new one gets the
 * mode the umask leaves, an existing one keeps its own.  A path that
 * names an open descriptor (/dev/stdout, /dev/fd/N) is written through it.
 */
int output_open(struct output *o, const char *prog, const char *path);
/* Finish: rename into place (regular files); -1, with a message, on error */
int output_commit(struct output *o, const char *prog);
/* Give up: remove the temporary, leave the target as it was */
void output_abandon(struct output *o);

#endif
