// SPDX-License-Identifier: Apache-2.0
//
// libsoftcomch is compiled with hidden visibility (src/CMakeLists.txt): a symbol leaves the
// library only if its declaration carries SOFTCOMCH_API. Put it on what the DOCA libraries
// (src/capi, src/argp), the introspection library (src/introspect) and the tools call, and on
// every class whose typeinfo or vtable those users need (docs/design.md, "What libsoftcomch
// exports", says when).
#pragma once

#define SOFTCOMCH_API __attribute__((visibility("default")))
// On a member of a SOFTCOMCH_API class that none of those users calls: the class's typeinfo and
// vtable leave the library, its internals stay inside.
#define SOFTCOMCH_LOCAL __attribute__((visibility("hidden")))
