/* kp_check.h: the shared main() of the unit test programs (one per module). */
#ifndef KP_CHECK_H
#define KP_CHECK_H

#include <check.h>
#include <stdlib.h>

#ifndef KP_FIXTURES
#define KP_FIXTURES "tests/fixtures"
#endif

/* A unit test file defines its suite and says KP_CHECK_MAIN(name_suite). */
#define KP_CHECK_MAIN(suite_fn)						\
	int main(void)							\
	{								\
		SRunner *sr = srunner_create(suite_fn());		\
		int failed;						\
		srunner_run_all(sr, CK_NORMAL);				\
		failed = srunner_ntests_failed(sr);			\
		srunner_free(sr);					\
		return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;	\
	}

#endif
