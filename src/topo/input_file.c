/* Reading one input file of a topology source (an hwloc XML export, a file of a sysfs
 * capture) with the checks a path given by a user needs: only a regular file is read
 * (a FIFO, /dev/zero or a directory would block or never end), and never more than a
 * bound, so that a wrong path is an error and not a hang or an exhausted memory. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "topo_build.h"

static const char *file_kind(mode_t mode)
{
	if (S_ISDIR(mode))
		return "a directory";
	if (S_ISFIFO(mode))
		return "a FIFO";
	if (S_ISCHR(mode))
		return "a character device";
	if (S_ISBLK(mode))
		return "a block device";
	if (S_ISSOCK(mode))
		return "a socket";
	return "not a regular file";
}

int ts_read_input_file(const char *label, const char *path, size_t max, char **text, size_t *len,
		       struct ts_error *err)
{
	*text = NULL;
	*len = 0;
	/* O_NONBLOCK: opening a FIFO without a writer must not wait for one. */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return ts_error_set(err, -errno, "%s: cannot read: %s", label, strerror(errno));
	struct stat st;
	if (fstat(fd, &st) != 0) {
		int e = errno;
		close(fd);
		return ts_error_set(err, -e, "%s: cannot read: %s", label, strerror(e));
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return ts_error_set(err, S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL,
				    "%s: cannot read: it is %s, not a regular file", label,
				    file_kind(st.st_mode));
	}
	if ((unsigned long long)st.st_size > max) {
		close(fd);
		return ts_error_set(err, -EFBIG,
				    "%s: %lld bytes, more than the %zu a topology file may have",
				    label, (long long)st.st_size, max);
	}
	/* One byte more than the limit, to notice a file that grew since fstat(). */
	size_t cap = (size_t)st.st_size + 1, got = 0;
	char *buf = malloc(cap + 1);
	if (!buf) {
		close(fd);
		return ts_error_set(err, -ENOMEM, "%s: out of memory", label);
	}
	for (;;) {
		ssize_t r = read(fd, buf + got, cap - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int e = errno;
			free(buf);
			close(fd);
			return ts_error_set(err, -e, "%s: cannot read: %s", label, strerror(e));
		}
		if (r == 0)
			break;
		got += (size_t)r;
		if (got == cap) {
			if (cap > max) {
				free(buf);
				close(fd);
				return ts_error_set(err, -EFBIG,
						    "%s: more than the %zu bytes a topology file "
						    "may have",
						    label, max);
			}
			size_t ncap = cap * 2 > max + 1 ? max + 1 : cap * 2;
			char *nbuf = realloc(buf, ncap + 1);
			if (!nbuf) {
				free(buf);
				close(fd);
				return ts_error_set(err, -ENOMEM, "%s: out of memory", label);
			}
			buf = nbuf;
			cap = ncap;
		}
	}
	close(fd);
	buf[got] = '\0';
	*text = buf;
	*len = got;
	return 0;
}
