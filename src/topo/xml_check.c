/* An hwloc XML export checked with libxml2 before hwloc reads it: hwloc 2.9's own XML
 * reader (used when the libxml2 plugin is not installed, as on Debian) trusts its input and
 * crashes on truncated or malformed files (lstopo does too). Only well-formed XML with the
 * basic shape of hwloc's schema (hwloc2.dtd: a <topology> root holding <object> elements,
 * each with a known type) reaches it. */
#include <errno.h>
#include <hwloc.h>
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "topo_build.h"

/* libxml2's own nesting limit without XML_PARSE_HUGE is 256; hwloc recurses per level. */
enum { XML_MAX_DEPTH = 128 };

static bool attr_is(xmlNode *n, const char *name, const char **value)
{
	for (xmlAttr *a = n->properties; a; a = a->next) {
		if (strcmp((const char *)a->name, name) != 0)
			continue;
		*value = a->children && a->children->content ? (const char *)a->children->content
							     : "";
		return true;
	}
	return false;
}

/* hwloc v1 names that hwloc_type_sscanf() no longer knows but the v1 importer maps. */
static bool is_object_type(const char *type)
{
	static const char *const v1_types[] = {"System", "Socket", "Cache", "Node"};
	hwloc_obj_type_t t;
	if (hwloc_type_sscanf(type, &t, NULL, 0) == 0)
		return true;
	for (size_t i = 0; i < sizeof(v1_types) / sizeof(v1_types[0]); i++)
		if (strcmp(type, v1_types[i]) == 0)
			return true;
	return false;
}

static int check_objects(const char *label, xmlNode *parent, int depth, struct ts_error *err)
{
	for (xmlNode *n = parent->children; n; n = n->next) {
		if (n->type != XML_ELEMENT_NODE || strcmp((const char *)n->name, "object") != 0)
			continue;
		const char *type;
		if (!attr_is(n, "type", &type))
			return ts_error_set(err, -EINVAL,
					    "%s: not a valid hwloc XML topology: line %d: <object> "
					    "without a type "
					    "attribute",
					    label, n->line);
		if (!is_object_type(type))
			return ts_error_set(err, -EINVAL,
					    "%s: not a valid hwloc XML topology: line %d: <object "
					    "type=\"%.40s\">: not an hwloc object type",
					    label, n->line, type);
		if (depth >= XML_MAX_DEPTH)
			return ts_error_set(
				err, -EINVAL,
				"%s: not a valid hwloc XML topology: line %d: objects nested "
				"more than %d deep",
				label, n->line, XML_MAX_DEPTH);
		int rc = check_objects(label, n, depth + 1, err);
		if (rc)
			return rc;
	}
	return 0;
}

static int check_tree(const char *label, xmlNode *root, struct ts_error *err)
{
	if (!root || strcmp((const char *)root->name, "topology") != 0)
		return ts_error_set(
			err, -EINVAL,
			"%s: not a valid hwloc XML topology: the root element is <%.40s>, "
			"not <topology>",
			label, root ? (const char *)root->name : "");
	const char *version = NULL;
	if (attr_is(root, "version", &version) && strncmp(version, "2.", 2) != 0 &&
	    strncmp(version, "1.", 2) != 0) {
		if (version[0] == '3' && version[1] == '.')
			return ts_error_set(
				err, -EINVAL,
				"%s: hwloc XML version %.20s (written by hwloc 3.x) cannot be read "
				"with the installed hwloc %u.%u.%u; export it again with hwloc "
				"2.x (lstopo --of xml)",
				label, version, hwloc_get_api_version() >> 16,
				(hwloc_get_api_version() >> 8) & 0xff,
				hwloc_get_api_version() & 0xff);
		return ts_error_set(err, -EINVAL,
				    "%s: <topology version=\"%.20s\">: not an hwloc XML version "
				    "(1.x or 2.x)",
				    label, version);
	}
	bool has_object = false;
	for (xmlNode *n = root->children; n && !has_object; n = n->next)
		has_object =
			n->type == XML_ELEMENT_NODE && strcmp((const char *)n->name, "object") == 0;
	if (!has_object)
		return ts_error_set(
			err, -EINVAL,
			"%s: not a valid hwloc XML topology: <topology> holds no <object> "
			"(no machine)",
			label);
	return check_objects(label, root, 0, err);
}

int ts_hwloc_xml_check(const char *label, const char *buf, size_t len, struct ts_error *err)
{
	if (len > INT_MAX)
		return ts_error_set(err, -EFBIG, "%s: too large for the XML parser", label);
	xmlParserCtxtPtr ctxt = xmlNewParserCtxt();
	if (!ctxt)
		return ts_error_set(err, -ENOMEM, "%s: out of memory", label);
	/* No network, no external DTD, no entity substitution, and nothing printed: the first
	 * error is reported through err. */
	xmlDocPtr doc =
		xmlCtxtReadMemory(ctxt, buf, (int)len, NULL, NULL,
				  XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
	int rc;
	if (!doc) {
		const xmlError *e = xmlCtxtGetLastError(ctxt);
		char what[160] = "not well-formed";
		if (e && e->message) {
			snprintf(what, sizeof(what), "%s", e->message);
			size_t n = strlen(what);
			while (n > 0 && (what[n - 1] == '\n' || what[n - 1] == ' '))
				what[--n] = '\0';
		}
		rc = ts_error_set(err, -EINVAL, "%s: not a valid hwloc XML topology: line %d: %s",
				  label, e ? e->line : 0, what);
	} else {
		rc = check_tree(label, xmlDocGetRootElement(doc), err);
		xmlFreeDoc(doc);
	}
	xmlFreeParserCtxt(ctxt);
	return rc;
}
