// SPDX-License-Identifier: Apache-2.0
//
// Fast-path test harness over the PUBLIC API only (include/), one header for the tests that use
// it. The parts, each with its definitions in the test-support library
// (tests/support/CMakeLists.txt):
//   fastpath_checks.hpp    error and state names, show(), CHILD_CHECK_EQ/MSG, the REQ* macros of
//                          the "flows" (functions that return an error text, so that the same
//                          code serves the gtest parent and the forked children), strf, joins
//   fastpath_pattern.hpp   payload patterns and checksums
//   pe_group.hpp           a helper that progresses several engines together (polling or epoll)
//   fastpath_region.hpp    registered memory regions (doca_mmap over malloc / aligned_alloc /
//                          mmap memory + doca_buf_inventory)
//   fastpath_consumer.hpp  a consumer wrapper (own progress engine, N posted buffers reposted
//                          from the completion callback; reposts refused with DOCA_ERROR_AGAIN
//                          are retried from its progress loops)
//   fastpath_producer.hpp  a producer wrapper (own progress engine, source buffers, send() that
//                          retries DOCA_ERROR_AGAIN with a timeout and without progressing
//                          anything unless asked to)
//   fastpath_sides.hpp     Comch server/client wrappers that record the consumer events
//   fastpath_flows.hpp     child-process guards, control-channel helpers, the shared flows
// Builds on comch_harness.hpp; nothing here touches SoftComch internals.
//
// Threading: every wrapper is used from one thread at a time (its own progress engine included),
// which is what the headers allow. consumer_events can be read from any thread.
#pragma once

#include "backoff.hpp"
#include "comch_harness.hpp"

#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_comch_consumer.h>
#include <doca_comch_producer.h>
#include <doca_mmap.h>
#include <doca_types.h>

#include <sched.h>
#include <sys/mman.h>

#include <algorithm>
#include <cstdarg>
#include <atomic>
#include <cinttypes>
#include <climits>
#include <mutex>
#include <ostream>
#include <sstream>
#include <utility>

#include "fastpath_checks.hpp"
#include "fastpath_consumer.hpp"
#include "fastpath_flows.hpp"
#include "fastpath_pattern.hpp"
#include "fastpath_producer.hpp"
#include "fastpath_region.hpp"
#include "fastpath_sides.hpp"
#include "pe_group.hpp"
