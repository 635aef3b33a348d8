/* Compiled with the core layer's include path: must fail, since sim.h is a layer above. */
#include "toposched/sim.h"
