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
#include <strings.h>

#include "topo_build.h"

/* libxml2's own nesting limit without XML_PARSE_HUGE is 256; hwloc recurses per level. */
enum { XML_MAX_DEPTH = 128 };
/* hwloc sizes its bitmaps by the highest index: an os_index of 4294967295 (or a PU without
 * one, which hwloc numbers so) takes it seconds and half a gigabyte. No kernel numbers
 * CPUs or nodes that high (NR_CPUS is at most 8192 with x86's CONFIG_MAXSMP). */
enum { XML_MAX_OS_INDEX = 1 << 20 };

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

/* A decimal number of at most max (hwloc reads os_index with strtoul(..., 10)). */
static bool small_number(const char *s, long max)
{
	if (!*s)
		return false;
	long v = 0;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return false;
		v = v * 10 + (*s - '0');
		if (v > max)
			return false;
	}
	return true;
}

/* A distance matrix's nbobjs: hwloc allocates nbobjs * nbobjs values before it matches
 * them to objects, so more than there are objects is refused. */
static int check_distances(const char *label, xmlNode *root, long nr_objects, struct ts_error *err)
{
	for (xmlNode *n = root->children; n; n = n->next) {
		const char *nb;
		if (n->type != XML_ELEMENT_NODE || !attr_is(n, "nbobjs", &nb))
			continue;
		if (!small_number(nb, nr_objects))
			return ts_error_set(err, -EINVAL,
					    "%s: not a valid hwloc XML topology: line %d: <%s "
					    "nbobjs=\"%.20s\">: more objects than the file's %ld",
					    label, n->line, (const char *)n->name, nb, nr_objects);
		int rc = check_distances(label, n, nr_objects, err);
		if (rc)
			return rc;
	}
	return 0;
}

/* The type of an <object type="...">, read as hwloc reads it: hwloc_type_sscanf()
 * accepts any case and abbreviations ("NUMANod", "nu", "p"), so the objects that need an
 * os_index are recognised by what hwloc makes of the name, not by its spelling. The hwloc
 * v1 names that hwloc_type_sscanf() no longer knows are mapped as the v1 importer maps
 * them. False when hwloc knows no such type. */
static bool object_type(const char *type, hwloc_obj_type_t *t)
{
	static const struct {
		const char *name;
		hwloc_obj_type_t type;
	} v1_types[] = {{"System", HWLOC_OBJ_MACHINE},
			{"Socket", HWLOC_OBJ_PACKAGE},
			{"Cache", HWLOC_OBJ_L1CACHE},
			{"Node", HWLOC_OBJ_NUMANODE}};
	for (size_t i = 0; i < sizeof(v1_types) / sizeof(v1_types[0]); i++)
		if (strcasecmp(type, v1_types[i].name) == 0) {
			*t = v1_types[i].type;
			return true;
		}
	return hwloc_type_sscanf(type, t, NULL, 0) == 0;
}

static int check_objects(const char *label, xmlNode *parent, int depth, long *nr_objects,
			 struct ts_error *err)
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
		hwloc_obj_type_t t;
		if (!object_type(type, &t))
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
		const char *index;
		bool indexed = t == HWLOC_OBJ_PU || t == HWLOC_OBJ_NUMANODE;
		if (indexed && !attr_is(n, "os_index", &index))
			return ts_error_set(err, -EINVAL,
					    "%s: not a valid hwloc XML topology: line %d: <object "
					    "type=\"%s\"> without an os_index",
					    label, n->line, type);
		if (indexed && !small_number(index, XML_MAX_OS_INDEX))
			return ts_error_set(
				err, -EINVAL,
				"%s: not a valid hwloc XML topology: line %d: <object "
				"type=\"%s\" os_index=\"%.20s\">: not a number up to %d",
				label, n->line, type, index, XML_MAX_OS_INDEX);
		(*nr_objects)++;
		int rc = check_objects(label, n, depth + 1, nr_objects, err);
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
				"with hwloc %s, which toposched was built with; export it again "
				"with hwloc 2.x (lstopo --of xml)",
				label, version, HWLOC_VERSION);
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
	long nr_objects = 0;
	int rc = check_objects(label, root, 0, &nr_objects, err);
	return rc ? rc : check_distances(label, root, nr_objects, err);
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
