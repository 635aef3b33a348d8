/* TS_API marks the functions libtoposched exports: the library is compiled with
 * -fvisibility=hidden, so every other symbol (the core, the runtime's internals) stays
 * inside it. On a declaration seen by an application the attribute changes nothing. */
#ifndef TOPOSCHED_API_H
#define TOPOSCHED_API_H

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__) || defined(__clang__)
#define TS_API __attribute__((visibility("default")))
#else
#define TS_API
#endif

#ifdef __cplusplus
}
#endif

#endif
