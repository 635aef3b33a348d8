/* The control: the same compile with a header of core's own layer and one below it. */
#include "toposched/cpumask.h"
#include "toposched/sched.h"
