#include "cli_parse.h"

#include <errno.h>
#include <limits.h>
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
	if (end == text || *end != '\0' || (errno && errno != ERANGE))
		return cli_error(cmd, "%s '%s': not an integer", option, text);
	/* out of long's range is out of [min, max] too; the text as written: "+05" is not
	 * turned into 5 */
	if (errno == ERANGE || v < min || v > max)
		return cli_error(cmd, "%s %s: must be between %ld and %ld", option, text, min, max);
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

/* One number of a list item (s, len bytes of item, itself item_len bytes). */
static int parse_list_number(const char *cmd, const char *option, const char *item, size_t item_len,
			     const char *s, size_t len, int max, int *out)
{
	bool digits = len > 0;
	for (size_t i = 0; digits && i < len; i++)
		digits = s[i] >= '0' && s[i] <= '9';
	if (!digits)
		return cli_error(cmd,
				 "%s: '%.*s' is not a number, a range A-B or a doubling range A..B",
				 option, (int)item_len, item);
	/* leading zeros count for nothing; more than 9 other digits are more than any max */
	size_t zeros = 0;
	while (zeros + 1 < len && s[zeros] == '0')
		zeros++;
	long v = 0;
	for (size_t i = zeros; i < len && i < zeros + 10; i++)
		v = v * 10 + (s[i] - '0');
	if (len - zeros > 9 || v < 1 || v > max)
		return cli_error(cmd, "%s: %.*s must be between 1 and %d", option, (int)len, s,
				 max);
	*out = (int)v;
	return 0;
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

/* The first occurrence of the two bytes "..", within len bytes of s. */
static const char *find_dots(const char *s, size_t len)
{
	for (size_t i = 0; i + 1 < len; i++)
		if (s[i] == '.' && s[i + 1] == '.')
			return s + i;
	return NULL;
}

/* One item (len bytes at item), N, A-B or A..B, appended to v (n values, room for
 * max_items). */
static int parse_list_item(const char *cmd, const char *option, const char *text, const char *item,
			   size_t len, int max, int max_items, int *v, int *n)
{
	int a, b;
	bool doubling = false;
	const char *dots = find_dots(item, len), *dash = memchr(item, '-', len);
	const char *end = item + len;
	int rc;
	if (dots) {
		doubling = true;
		rc = parse_list_number(cmd, option, item, len, item, (size_t)(dots - item), max,
				       &a) ||
		     parse_list_number(cmd, option, item, len, dots + 2, (size_t)(end - dots - 2),
				       max, &b);
	} else if (dash) {
		rc = parse_list_number(cmd, option, item, len, item, (size_t)(dash - item), max,
				       &a) ||
		     parse_list_number(cmd, option, item, len, dash + 1, (size_t)(end - dash - 1),
				       max, &b);
	} else {
		rc = parse_list_number(cmd, option, item, len, item, len, max, &a);
		b = a;
	}
	if (rc)
		return CLI_EXIT_USAGE;
	if (a > b)
		return cli_error(cmd, "%s: range '%.*s' goes downwards", option, (int)len, item);
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
		if (len == 0) {
			free(v);
			return cli_error(cmd, "%s '%s': empty item", option, text);
		}
		if (parse_list_item(cmd, option, text, p, len, max, max_items, v, &n)) {
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

/* A decimal number of at most 9 significant digits at *p (advanced past every digit);
 * -1 when there is no digit, LONG_MAX when it has more digits than that. */
static long scan_number(const char **p)
{
	const char *s = *p;
	long v = 0;
	size_t significant = 0;
	if (*s < '0' || *s > '9')
		return -1;
	for (; *s >= '0' && *s <= '9'; s++) {
		if (significant > 0 || *s != '0')
			significant++;
		if (significant <= 9)
			v = v * 10 + (*s - '0');
	}
	*p = s;
	return significant > 9 ? LONG_MAX : v;
}

int cli_parse_node_list(const char *cmd, const char *option, const char *text, int nr_nodes,
			const char *machine, struct ts_cpumask *nodes)
{
	if (!*text)
		return cli_error(cmd, "%s: empty node list", option);
	for (const char *p = text;;) {
		const char *start = p;
		long a = scan_number(&p), b = a;
		if (a >= 0 && *p == '-') {
			p++;
			b = scan_number(&p);
		}
		if (a < 0 || b < 0 || (*p != ',' && *p != '\0'))
			return cli_error(cmd,
					 "%s '%s': not a node list (e.g. 0, 0-1 or 0,2; 'all' for "
					 "no pin)",
					 option, text);
		if (a > b)
			return cli_error(cmd, "%s '%s': range %.*s goes downwards", option, text,
					 (int)(p - start), start);
		if (b >= nr_nodes) {
			const char *last = memchr(start, '-', (size_t)(p - start));
			last = last ? last + 1 : start;
			return cli_error(
				cmd, "%s '%s': node %.*s does not exist (%s has nodes 0-%d)",
				option, text, (int)(p - last), last, machine, nr_nodes - 1);
		}
		for (long n = a; n <= b; n++)
			ts_cpumask_set(nodes, (int)n);
		if (*p == '\0')
			return 0;
		p++;
	}
}

int cli_parse_cpu_sequence(const char *cmd, const char *option, const char *text, int nr_cpus,
			   const char *machine, int **out, int *count)
{
	int n = 1;
	for (const char *c = text; *c; c++)
		n += *c == ',';
	int *cpus = calloc((size_t)n, sizeof(*cpus));
	if (!cpus)
		return cli_error(cmd, "out of memory");
	const char *p = text;
	for (int i = 0; i < n; i++) {
		const char *start = p;
		long cpu = scan_number(&p);
		if (cpu < 0 || (*p != ',' && *p != '\0')) {
			free(cpus);
			return cli_error(cmd, "%s '%s': not a comma list of CPU numbers (e.g. 0,4)",
					 option, text);
		}
		if (cpu >= nr_cpus) {
			free(cpus);
			return cli_error(cmd, "%s '%s': CPU %.*s is not a CPU of %s (0-%d)", option,
					 text, (int)(p - start), start, machine, nr_cpus - 1);
		}
		cpus[i] = (int)cpu;
		p++;
	}
	*out = cpus;
	*count = n;
	return 0;
}

static bool valid_config_name(const char *s, size_t len)
{
	if (len == 0 || len >= TS_EXP_NAME_MAX)
		return false;
	for (size_t i = 0; i < len; i++) {
		char c = s[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '_' || c == '-' || c == '.' || c == '+'))
			return false;
	}
	return true;
}

int cli_parse_compare(const char *cmd, const char *spec,
		      const struct ts_kernel_profile *base_kernel, const char *base_features,
		      struct ts_exp_config *out, bool *layout_given)
{
	const char *eq = strchr(spec, '=');
	if (!eq)
		return cli_error(
			cmd, "--compare '%s': expected NAME=FEATURES (e.g. cluster=SIS_CLUSTER)",
			spec);
	size_t len = (size_t)(eq - spec);
	if (!valid_config_name(spec, len))
		return cli_error(cmd,
				 "--compare '%s': the name must be 1 to %d letters, digits or "
				 "'_-.+'",
				 spec, TS_EXP_NAME_MAX - 1);
	memset(out, 0, sizeof(*out));
	memcpy(out->name, spec, len);
	if (strlen(eq + 1) >= sizeof(out->features_text))
		return cli_error(cmd, "--compare '%.40s...': the features are too long", spec);
	snprintf(out->features_text, sizeof(out->features_text), "%s", eq + 1);
	struct ts_error err = {0};
	/* kernel=V and tg_layout=L are the configuration's kernel and layout, not features */
	char no_kernel[TS_FEATURES_STR_MAX], features[TS_FEATURES_STR_MAX];
	bool kernel_given;
	out->kernel = *base_kernel;
	if (ts_kernel_profile_take(eq + 1, no_kernel, sizeof(no_kernel), &out->kernel,
				   &kernel_given, &err))
		return cli_error(cmd, "--compare '%s': kernel=: %s", spec, err.msg);
	if (ts_tg_layout_take(no_kernel, features, sizeof(features), &out->tg_layout, layout_given,
			      &err))
		return cli_error(cmd, "--compare '%s': %s", spec, err.msg);
	out->features = ts_kernel_features_default(&out->kernel);
	if (base_features && ts_features_parse(base_features, &out->features, &err))
		return cli_error(cmd, "--features: %s (see 'toposched features')", err.msg);
	if (ts_features_parse(features, &out->features, &err))
		return cli_error(cmd, "--compare '%s': %s (see 'toposched features')", spec,
				 err.msg);
	return 0;
}
