/* Does not compile: lets tests check that compiler output reaches the error message. */
#include "smt_guest.h"

SMT_EXPORT("broken") smt_result broken(void) { return undeclared_identifier; }
