// SPDX-License-Identifier: GPL-2.0
/* Output files: see output.h */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "output.h"

bool file_id_of(const char *path, struct file_id *id)
{
	const char *slash = strrchr(path, '/');
	struct stat st;
	char *dir;
	bool ok;

	if (!stat(path, &st)) {
		*id = (struct file_id){ st.st_dev, st.st_ino, NULL };
		return true;
	}
	if (errno != ENOENT)
		return false;
	/* Not there yet: the directory it will be made in, and its name */
	dir = slash ? strndup(path, slash == path ? 1 : slash - path) :
		strdup(".");
	if (!dir)
		return false;
	ok = !stat(dir, &st);
	free(dir);
	if (ok)
		*id = (struct file_id){ st.st_dev, st.st_ino,
					slash ? slash + 1 : path };
	return ok;
}

bool file_id_same(const struct file_id *a, const struct file_id *b)
{
	if (a->dev != b->dev || a->ino != b->ino || !a->name != !b->name)
		return false;
	return !a->name || !strcmp(a->name, b->name);
}

static int fail(struct output *o, const char *prog, int err)
{
	fprintf(stderr, "%s: cannot write %s: %s\n", prog, o->path,
		strerror(err));
	free(o->target);
	free(o->tmp);
	o->target = o->tmp = NULL;
	return -1;
}

/*
 * The descriptor @path names: /dev/stdout, /dev/fd/N, /proc/self/fd/N;
 * -1 for any other path.  Such a path stands for a file the caller
 * opened (stdout appended to a log, say): it is written through that
 * descriptor, never replaced.
 */
static int fd_path(const char *path)
{
	static const char *const std[] = { "/dev/stdin", "/dev/stdout",
					   "/dev/stderr" };
	const char *n = NULL;
	char *end;
	long fd;
	int i;

	for (i = 0; i < 3; i++)
		if (!strcmp(path, std[i]))
			return i;
	if (!strncmp(path, "/dev/fd/", 8))
		n = path + 8;
	else if (!strncmp(path, "/proc/self/fd/", 14))
		n = path + 14;
	if (!n || !*n)
		return -1;
	fd = strtol(n, &end, 10);
	return *end || fd < 0 || fd > 1 << 20 ? -1 : (int)fd;
}

/* @fd (or -1, errno set) as the output's stream, written straight through */
static int through(struct output *o, const char *prog, int fd)
{
	int err;

	if (fd >= 0 && (o->f = fdopen(fd, "w")))
		return 0;
	err = errno;
	if (fd >= 0)
		close(fd);
	return fail(o, prog, err);
}

/*
 * The file a path that does not resolve names: itself, or where a
 * dangling symbolic link (or a chain of them) points, relative to the
 * link's own directory, so that the link stays a link.  NULL, errno set,
 * on a loop or no memory.
 */
static char *new_file_path(const char *path)
{
	char *cur = strdup(path), *next, buf[4096];
	const char *slash;
	struct stat st;
	int hops;
	ssize_t n;

	for (hops = 0; cur && hops < 40; hops++) {
		if (lstat(cur, &st) || !S_ISLNK(st.st_mode))
			return cur;
		n = readlink(cur, buf, sizeof(buf) - 1);
		if (n < 0) {
			free(cur);
			return NULL;
		}
		buf[n] = '\0';
		slash = strrchr(cur, '/');
		next = malloc(strlen(cur) + n + 2);
		if (next && (buf[0] == '/' || !slash))
			strcpy(next, buf);
		else if (next)
			sprintf(next, "%.*s/%s", (int)(slash - cur), cur, buf);
		free(cur);
		cur = next;
	}
	if (cur) {
		free(cur);
		errno = ELOOP;
	}
	return NULL;
}

int output_open(struct output *o, const char *prog, const char *path)
{
	bool exists;
	struct stat st;
	mode_t mask, mode;
	int fd;

	*o = (struct output){ .path = path };
	fd = fd_path(path);
	if (fd >= 0)
		return through(o, prog, dup(fd));
	exists = !stat(path, &st);
	if (exists && S_ISDIR(st.st_mode))
		return fail(o, prog, EISDIR);
	/* A FIFO, a terminal, a device: written through, never replaced */
	if (exists && !S_ISREG(st.st_mode))
		return through(o, prog, open(path, O_WRONLY | O_TRUNC));
	if (exists) {
		/* Replace the file itself; a symbolic link to it stays a link */
		o->target = realpath(path, NULL);
		mode = st.st_mode & 07777;
	} else {
		o->target = new_file_path(path);
		mask = umask(0);
		umask(mask);
		mode = 0666 & ~mask;
	}
	if (!o->target)
		return fail(o, prog, errno);
	o->tmp = malloc(strlen(o->target) + 16);
	if (!o->tmp)
		return fail(o, prog, errno);
	sprintf(o->tmp, "%s.tmp.XXXXXX", o->target);
	fd = mkstemp(o->tmp);
	if (fd < 0)
		return fail(o, prog, errno);
	if (fchmod(fd, mode) || !(o->f = fdopen(fd, "w"))) {
		int err = errno;

		close(fd);
		unlink(o->tmp);
		return fail(o, prog, err);
	}
	return 0;
}

void output_abandon(struct output *o)
{
	if (!o->f)
		return;
	fclose(o->f);
	if (o->tmp)
		unlink(o->tmp);
	free(o->tmp);
	free(o->target);
	o->f = NULL;
	o->tmp = o->target = NULL;
}

int output_commit(struct output *o, const char *prog)
{
	int err = ferror(o->f) ? EIO : 0;

	if (fclose(o->f) && !err)
		err = errno;
	o->f = NULL;
	if (!err && o->tmp && rename(o->tmp, o->target))
		err = errno;
	if (err && o->tmp)
		unlink(o->tmp);
	if (err)
		return fail(o, prog, err);
	free(o->tmp);
	free(o->target);
	o->tmp = o->target = NULL;
	return 0;
}
