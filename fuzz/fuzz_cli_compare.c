/* libFuzzer target: the NAME=VALUE option values of sim: --compare NAME=FEATURES
 * (cli_parse_compare(), with or without a --kernel and --features base) and --cost
 * NAME=VALUE (ts_cost_model_set(), on a preset's model). The first input byte picks the
 * parser and base, the rest is the option's text. A --compare either refuses with one
 * message naming the option or gives a configuration named by the text before '=' with
 * only known feature bits; a --cost either refuses, leaving the model as it was, or
 * changes exactly the one term it names, marked as an override. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_error_capture.h"
#include "fuzz_check.h"
#include "toposched/cost_model.h"
#include "toposched/experiment.h"
#include "toposched/features.h"

static void fuzz_compare(unsigned param, const char *text)
{
	struct ts_kernel_profile base = {0}; /* zeroed: the newest kernel */
	if (param & 1) {
		struct ts_error err = {0};
		CHECK(ts_kernel_profile_parse("5.15", &base, &err) == 0);
	}
	const char *base_features = (param & 2) ? "NO_SIS_UTIL SIS_PROP" : NULL;
	struct ts_exp_config c;
	bool layout_given = false;
	cli_error_capture_reset();
	int rc = cli_parse_compare("sim", text, &base, base_features, &c, &layout_given);
	if (rc) {
		CHECK(rc == CLI_EXIT_USAGE && cli_error_count == 1);
		CHECK(strstr(cli_error_msg, "--compare") != NULL);
		return;
	}
	CHECK(cli_error_count == 0);
	const char *eq = strchr(text, '=');
	CHECK(eq != NULL);
	size_t len = (size_t)(eq - text);
	CHECK(len >= 1 && len < TS_EXP_NAME_MAX && strlen(c.name) == len);
	CHECK(memcmp(c.name, text, len) == 0);
	CHECK(strcmp(c.features_text, eq + 1) == 0);
	CHECK((c.features.mask & ~((UINT64_C(1) << TS_FEAT_NR) - 1)) == 0);
}

/* Terms of two models that differ, and whether each that does is marked an override. */
struct cost_diff {
	const struct ts_cost_model *other;
	int changed;
	bool marked;
};

static int diff_term(const struct ts_cost_term_info *info, const struct ts_cost_term *term,
		     void *arg)
{
	struct cost_diff *d = arg;
	const struct ts_cost_term *o = ts_cost_model_term(d->other, info->name);
	CHECK(o != NULL);
	if (memcmp(&o->value, &term->value, sizeof(term->value)) != 0 ||
	    strcmp(o->source, term->source) != 0) {
		d->changed++;
		d->marked &= strncmp(term->source, "override: --cost ", 17) == 0;
	}
	return 0;
}

static void fuzz_cost(const char *text)
{
	static struct ts_cost_model base;
	static bool ready;
	if (!ready) {
		struct ts_error err = {0};
		CHECK(ts_cost_model_for(NULL, "kunpeng920", &base, &err) == 0);
		ready = true;
	}
	struct ts_cost_model m;
	memcpy(&m, &base, sizeof(m));
	struct ts_error err = {0};
	int rc = ts_cost_model_set(&m, text, &err);
	if (rc) {
		CHECK(rc < 0 && err.code == rc && err.msg[0] != '\0');
		CHECK(memcmp(&m, &base, sizeof(m)) == 0);
		return;
	}
	struct cost_diff d = {.other = &base, .marked = true};
	ts_cost_model_foreach(&m, diff_term, &d);
	CHECK(d.changed <= 1 && d.marked);
	/* the same override again changes nothing more */
	struct ts_cost_model again;
	memcpy(&again, &m, sizeof(m));
	CHECK(ts_cost_model_set(&again, text, &err) == 0);
	struct cost_diff d2 = {.other = &m, .marked = true};
	ts_cost_model_foreach(&again, diff_term, &d2);
	CHECK(d2.changed == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1 || size > 4096) /* long inputs add nothing but time */
		return 0;
	char *text = fuzz_text(data + 1, size - 1);
	if (!text)
		return 0;
	if (data[0] & 0x80)
		fuzz_cost(text);
	else
		fuzz_compare(data[0], text);
	free(text);
	return 0;
}
