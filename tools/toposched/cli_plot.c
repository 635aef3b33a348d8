#include "cli_plot.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"

static bool find_in_path(const char *prog, char *buf, size_t size)
{
	const char *path = getenv("PATH");
	if (!path || !*path)
		return false;
	while (*path) {
		const char *colon = strchr(path, ':');
		size_t len = colon ? (size_t)(colon - path) : strlen(path);
		if (len == 0)
			snprintf(buf, size, "./%s", prog);
		else
			snprintf(buf, size, "%.*s/%s", (int)len, path, prog);
		struct stat st;
		if (stat(buf, &st) == 0 && S_ISREG(st.st_mode) && access(buf, X_OK) == 0)
			return true;
		if (!colon)
			break;
		path = colon + 1;
	}
	return false;
}

int cli_plot_prepare(const char *cmd, const char *option, const char *path,
		     enum ts_plot_format *format, char *gnuplot, size_t size)
{
	if (cli_path_has_suffix(path, ".png"))
		*format = TS_PLOT_PNG;
	else if (cli_path_has_suffix(path, ".svg"))
		*format = TS_PLOT_SVG;
	else
		return cli_error(cmd, "%s '%s': the file name must end in .png or .svg", option,
				 path);
	if (!find_in_path("gnuplot", gnuplot, size))
		return cli_error(cmd,
				 "%s: gnuplot not found in PATH (install gnuplot, e.g. the "
				 "gnuplot-nox package)",
				 option);
	return 0;
}

int cli_plot_script_path(const char *cmd, const char *option, const char *path, char *script,
			 size_t size)
{
	if ((size_t)snprintf(script, size, "%s.gp", path) >= size)
		return cli_error(cmd, "%s '%s': the name is too long", option, path);
	FILE *f = fopen(script, "r");
	if (!f)
		return errno == ENOENT ? 0
				       : cli_error(cmd, "%s: cannot read '%s': %s", option, script,
						   strerror(errno));
	char first[64] = "";
	bool ours = fgets(first, sizeof(first), f) &&
		    strncmp(first, TS_GNUPLOT_SCRIPT_MARK, strlen(TS_GNUPLOT_SCRIPT_MARK)) == 0;
	fclose(f);
	if (!ours)
		return cli_error(cmd,
				 "%s: '%s' exists and toposched did not write it (the plot's "
				 "gnuplot script is kept there); move it or choose another name",
				 option, script);
	return 0;
}

/* gnuplot's first message line, which says what went wrong ("" if none). */
static void first_message(FILE *errs, char *line, size_t size)
{
	char buf[512];
	line[0] = '\0';
	fseek(errs, 0, SEEK_SET);
	while (fgets(buf, sizeof(buf), errs)) {
		char *s = buf;
		while (*s == ' ' || *s == '\t' || *s == '^')
			s++;
		if (*s && *s != '\n') {
			snprintf(line, size, "%s", s);
			break;
		}
	}
	line[strcspn(line, "\n")] = '\0';
}

static int spawn_and_wait(const char *gnuplot, int in, int out, int err, int *status)
{
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, in, 0);
	posix_spawn_file_actions_adddup2(&fa, out, 1);
	posix_spawn_file_actions_adddup2(&fa, err, 2);
	char *argv[] = {(char *)"gnuplot", NULL};
	extern char **environ;
	pid_t pid;
	int rc = posix_spawn(&pid, gnuplot, &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (rc)
		return rc;
	while (waitpid(pid, status, 0) < 0)
		if (errno != EINTR) {
			*status = -1;
			break;
		}
	return 0;
}

int cli_plot_draw(struct cli_output *plot, struct cli_output *script_out, const char *gnuplot,
		  const struct ts_experiment *e, enum ts_plot_format format)
{
	const char *cmd = plot->cmd, *opt = plot->option;
	FILE *script = tmpfile(), *errs = tmpfile(), *image = cli_output_stream(plot);
	int rc = 1;
	if (!script || !errs) {
		cli_error(cmd, "%s: cannot create a temporary file: %s", opt, strerror(errno));
		goto out;
	}
	/* no "set output": the image goes to gnuplot's standard output, the plot's stream */
	if (ts_exp_write_gnuplot(e, format, NULL, script) || fseek(script, 0, SEEK_SET) ||
	    fflush(image)) {
		cli_error(cmd, "%s: writing the gnuplot script failed", opt);
		goto out;
	}
	const char *image_name = strrchr(plot->target, '/');
	image_name = image_name ? image_name + 1 : plot->target;
	if (ts_exp_write_gnuplot(e, format, image_name, cli_output_stream(script_out))) {
		cli_error(cmd, "%s: writing the gnuplot script failed", opt);
		goto out;
	}
	int status,
		src = spawn_and_wait(gnuplot, fileno(script), fileno(image), fileno(errs), &status);
	if (src) {
		cli_error(cmd, "%s: cannot run %s: %s", opt, gnuplot, strerror(src));
		goto out;
	}
	struct stat st;
	bool empty = fstat(fileno(image), &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 0;
	if (status == 0 && !empty) {
		rc = 0;
		goto out;
	}
	char line[512];
	first_message(errs, line, sizeof(line));
	cli_error(cmd, "%s: gnuplot failed%s%s", opt, line[0] ? ": " : "", line);
out:
	if (script)
		fclose(script);
	if (errs)
		fclose(errs);
	return rc;
}
