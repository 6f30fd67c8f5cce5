/*
 * optimize.c: the C API of ptx-opt in one small program, as a JIT compiler or
 * a build tool would use it. Reads a PTX file, runs a pipeline on it (by
 * default `legalize-relaxed`; a pipeline text as `ptx-opt --passes` takes it:
 * `default<O2>`, `fold-byte-gathers<min-saving=1>`, ...) and writes the
 * optimized PTX to standard output; on failure prints the diagnostics
 * (`FILE:LINE:COL: error: MESSAGE`) to standard error and exits with the
 * API's status (1 bad input, 2 usage, 3 internal error). With -v it also
 * prints to standard error what the run did: the library's version, the
 * remarks of the rewrites made and of those not made (with the reason), and
 * the counters as JSON.
 *
 *   usage: optimize [-v] FILE.ptx [PIPELINE]
 *
 * Build (see Makefile): cargo build --release -p ptx-opt-capi, then
 *   cc -std=c99 -I crates/ptx-opt-capi/include examples/c/optimize.c \
 *      target/release/libptx_opt.a -lpthread -ldl -lm -o optimize
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptx_opt.h"

/* Reads a whole file into a malloc'd buffer; returns NULL on failure. */
static char *read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        return NULL;
    }
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    while (buf != NULL) {
        n += fread(buf + n, 1, cap - n, f);
        if (n < cap) {
            break;
        }
        char *bigger = realloc(buf, cap * 2);
        if (bigger == NULL) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = bigger;
        cap *= 2;
    }
    if (buf != NULL && ferror(f)) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    *len = n;
    return buf;
}

int main(int argc, char **argv) {
    const char *program = argv[0];
    int verbose = argc > 1 && strcmp(argv[1], "-v") == 0;
    if (verbose) {
        argc--;
        argv++;
    }
    if (argc < 2 || argc > 3) {
        fprintf(stderr, "usage: %s [-v] FILE.ptx [PIPELINE]   (ptx-opt %s)\n", program, ptx_opt_version());
        return PTX_OPT_ERROR_USAGE;
    }
    const char *path = argv[1];
    const char *passes = argc == 3 ? argv[2] : "legalize-relaxed";

    size_t len = 0;
    char *ptx = read_file(path, &len);
    if (ptx == NULL) {
        fprintf(stderr, "%s: error: cannot read the file\n", path);
        return PTX_OPT_ERROR_INPUT;
    }

    PtxOptOptions *options = ptx_opt_options_create();
    if (options == NULL) {
        free(ptx);
        return PTX_OPT_ERROR_INTERNAL;
    }
    if (ptx_opt_options_set_passes(options, passes) != PTX_OPT_OK) {
        /* Why: "unknown pass 'x'", "pass 'dce' takes no options", ... */
        fprintf(stderr, "%s: error: %s\n", program, ptx_opt_options_error(options));
        ptx_opt_options_destroy(options);
        free(ptx);
        return PTX_OPT_ERROR_USAGE;
    }
    ptx_opt_options_set_source_name(options, path); /* for FILE in diagnostics */

    PtxOptResult *result = NULL;
    int status = ptx_opt_run(options, ptx, len, &result);
    if (status == PTX_OPT_OK) {
        size_t out_len = 0;
        const char *out = ptx_opt_result_output(result, &out_len);
        if (fwrite(out, 1, out_len, stdout) != out_len || fflush(stdout) != 0) {
            status = PTX_OPT_ERROR_INPUT;
        }
        if (verbose) {
            fprintf(stderr, "ptx-opt %s: %zu remarks\n", ptx_opt_version(), ptx_opt_result_remark_count(result));
            fputs(ptx_opt_result_remarks(result, PTX_OPT_FORMAT_TEXT), stderr);        /* FILE:LINE:COL: remark: ... */
            fputs(ptx_opt_result_missed_remarks(result, PTX_OPT_FORMAT_TEXT), stderr); /* ... remark: missed: ... */
            fputs(ptx_opt_result_stats(result), stderr);                               /* {"passes":[...]} */
        }
    } else {
        size_t count = ptx_opt_result_diagnostic_count(result);
        for (size_t i = 0; i < count; i++) {
            fprintf(stderr, "%s\n", ptx_opt_result_diagnostic_rendered(result, i));
        }
    }

    ptx_opt_result_free(result);
    ptx_opt_options_destroy(options);
    free(ptx);
    return status;
}
