#include "cli_parse.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

int cli_parse_int(const char *cmd, const char *option, const char *text, long min, long max,
		  long *out)
{
	char *end;
	errno = 0;
	long v = strtol(text, &end, 10);
	if (errno || end == text || *end != '\0')
		return cli_error(cmd, "%s '%s': not an integer", option, text);
	if (v < min || v > max)
		return cli_error(cmd, "%s %ld: must be between %ld and %ld", option, v, min, max);
	*out = v;
	return 0;
}

int cli_parse_kernel(const char *cmd, const char *option, const char *text,
		     struct ts_kernel_profile *out)
{
	struct ts_error err = {0};
	if (ts_kernel_profile_parse(text, out, &err))
		return cli_error(cmd, "%s: %s", option, err.msg);
	return 0;
}

int cli_parse_seed(const char *cmd, const char *option, const char *text, uint64_t *out)
{
	char *end;
	errno = 0;
	if (text[0] < '0' || text[0] > '9')
		return cli_error(cmd, "%s '%s': not a non-negative integer", option, text);
	unsigned long long v = strtoull(text, &end, 10);
	if (errno == ERANGE)
		return cli_error(cmd, "%s '%s': larger than %llu", option, text,
				 (unsigned long long)UINT64_MAX);
	if (*end != '\0')
		return cli_error(cmd, "%s '%s': not a non-negative integer", option, text);
	*out = v;
	return 0;
}

int cli_parse_format(const char *cmd, const char *text, enum cli_format *out)
{
	if (strcmp(text, "text") == 0)
		*out = CLI_FORMAT_TEXT;
	else if (strcmp(text, "json") == 0)
		*out = CLI_FORMAT_JSON;
	else
		return cli_error(cmd, "--format '%s': unknown (choose text or json)", text);
	return 0;
}

int cli_parse_duration(const char *cmd, const char *option, const char *text, unsigned flags,
		       uint64_t *out_ns)
{
	bool allow_zero = flags & CLI_DURATION_ZERO;
	const char *p = text;
	if (*p == '-')
		return cli_error(cmd, "%s '%s': must be %s", option, text,
				 allow_zero ? "zero or positive" : "positive");
	if (*p == '+')
		p++;
	const char *num = p;
	while ((*p >= '0' && *p <= '9') || *p == '.')
		p++;
	size_t num_len = (size_t)(p - num);
	char digits[64];
	if (num_len == 0 || num_len >= sizeof(digits) || strchr(num, '.') != strrchr(num, '.') ||
	    (num_len == 1 && *num == '.'))
		return cli_error(cmd,
				 "%s '%s': not a duration (a number with a unit: ns, us, ms or "
				 "s, e.g. 200ms)",
				 option, text);
	memcpy(digits, num, num_len);
	digits[num_len] = '\0';
	double v = strtod(digits, NULL);
	static const struct {
		const char *unit;
		double ns;
	} units[] = {{"ns", 1}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}};
	double mult = 0;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (strcmp(p, units[i].unit) == 0)
			mult = units[i].ns;
	if (*p == '\0' && (flags & CLI_DURATION_BARE_SECONDS))
		mult = 1e9;
	if (mult == 0) {
		if (*p == '\0' && v == 0 && allow_zero) {
			*out_ns = 0;
			return 0;
		}
		if (*p == '\0')
			return cli_error(cmd, "%s '%s': missing unit (ns, us, ms or s, e.g. 200ms)",
					 option, text);
		return cli_error(cmd,
				 "%s '%s': not a duration: unknown unit '%s' (ns, us, ms or s)",
				 option, text, p);
	}
	double ns = v * mult;
	if (ns == 0 && allow_zero) {
		*out_ns = 0;
		return 0;
	}
	if (ns == 0)
		return cli_error(cmd, "%s '%s': must be positive", option, text);
	if (ns < 0.5)
		return cli_error(cmd, "%s '%s': below the resolution of 1ns", option, text);
	if (!(ns <= (double)CLI_MAX_DURATION_NS))
		return cli_error(cmd, "%s '%s': more than the limit of 3600s", option, text);
	*out_ns = (uint64_t)llround(ns);
	return 0;
}

static int parse_list_number(const char *cmd, const char *option, const char *item, const char *s,
			     size_t len, int max, int *out)
{
	char buf[32];
	bool digits = len > 0 && len < sizeof(buf);
	for (size_t i = 0; digits && i < len; i++)
		digits = s[i] >= '0' && s[i] <= '9';
	if (!digits)
		return cli_error(cmd,
				 "%s: '%s' is not a number, a range A-B or a doubling range A..B",
				 option, item);
	memcpy(buf, s, len);
	buf[len] = '\0';
	long v = strtol(buf, NULL, 10);
	if (len > 9 || v < 1 || v > max)
		return cli_error(cmd, "%s: %s must be between 1 and %d", option, buf, max);
	*out = (int)v;
	return 0;
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

/* One item, N, A-B or A..B, appended to v (of n values, room for cap). */
static int parse_list_item(const char *cmd, const char *option, const char *text, const char *item,
			   int max, int max_items, int *v, int *n)
{
	int a, b;
	bool doubling = false;
	const char *dots = strstr(item, ".."), *dash = strchr(item, '-');
	int rc;
	if (dots) {
		doubling = true;
		rc = parse_list_number(cmd, option, item, item, (size_t)(dots - item), max, &a) ||
		     parse_list_number(cmd, option, item, dots + 2, strlen(dots + 2), max, &b);
	} else if (dash) {
		rc = parse_list_number(cmd, option, item, item, (size_t)(dash - item), max, &a) ||
		     parse_list_number(cmd, option, item, dash + 1, strlen(dash + 1), max, &b);
	} else {
		rc = parse_list_number(cmd, option, item, item, strlen(item), max, &a);
		b = a;
	}
	if (rc)
		return CLI_EXIT_USAGE;
	if (a > b)
		return cli_error(cmd, "%s: range '%s' goes downwards", option, item);
	for (long x = a; x <= b; x = doubling ? (x * 2 > b && x < b ? b : x * 2) : x + 1) {
		if (*n >= max_items)
			return cli_error(cmd, "%s '%s': more than %d values", option, text,
					 max_items);
		v[(*n)++] = (int)x;
	}
	return 0;
}

int cli_parse_list(const char *cmd, const char *option, const char *text, int max, int max_items,
		   int **out, int *count)
{
	if (!text[0])
		return cli_error(cmd, "%s: empty list", option);
	int *v = malloc((size_t)max_items * sizeof(*v)), n = 0;
	if (!v)
		return cli_error(cmd, "out of memory");
	for (const char *p = text;;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		char item[64];
		snprintf(item, sizeof(item), "%.*s", (int)(len < 63 ? len : 63), p);
		if (len == 0) {
			free(v);
			return cli_error(cmd, "%s '%s': empty item", option, text);
		}
		if (parse_list_item(cmd, option, text, item, max, max_items, v, &n)) {
			free(v);
			return CLI_EXIT_USAGE;
		}
		if (!comma)
			break;
		p = comma + 1;
	}
	qsort(v, (size_t)n, sizeof(*v), cmp_int);
	int m = 0;
	for (int i = 0; i < n; i++)
		if (m == 0 || v[m - 1] != v[i])
			v[m++] = v[i];
	*out = v;
	*count = m;
	return 0;
}
