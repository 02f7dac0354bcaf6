/* The smallest guest: imports nothing, exports the SDK's alloc/dealloc and an entry that succeeds. */
#include "smt_guest.h"

SMT_EXPORT("noop") smt_result noop(void) { return SMT_OK; }

/* Lets tests check the packing of smt_error() without a host. */
SMT_EXPORT("fail") smt_result fail(void) { return smt_error("noop: failed on purpose"); }
