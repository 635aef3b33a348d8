/* libtoposched's whole public API: #include <toposched/toposched.h> and link with
 * `pkg-config --libs toposched`. */
#ifndef TOPOSCHED_TOPOSCHED_H
#define TOPOSCHED_TOPOSCHED_H

#include "toposched/runtime.h"
#include "toposched/version.h"

#endif
