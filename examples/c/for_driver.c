/*
 * for_driver.c: a module lowered for the driver it will be loaded by, in the
 * C API's terms. A JIT that gets PTX from NVRTC, clang or Triton stamped with
 * the newest .version its toolkit knows, and a machine whose driver is older
 * (cuModuleLoadData: CUDA_ERROR_UNSUPPORTED_PTX_VERSION), asks ptx-opt for
 * the newest version that driver accepts: the .version line is lowered when
 * nothing in the module needs more, forms with an exactly equivalent older
 * spelling are rewritten (cache hints dropped, cvt.pack.sat expanded, ...),
 * and otherwise every instruction that needs more is named, with the version
 * it needs. Writes the PTX to standard output; the rewrites made go to
 * standard error as remarks.
 *
 *   usage: for_driver CUDA_RELEASE FILE.ptx      (CUDA_RELEASE as nvidia-smi
 *                                                 prints it: 12.4)
 *          for_driver --ptx-version X.Y|min FILE.ptx
 *
 * Exit status: the API's (0 written, 1 refused or invalid PTX, 2 usage).
 * Build as optimize.c (see Makefile): make for_driver
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptx_opt.h"

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
    int by_version = argc == 4 && strcmp(argv[1], "--ptx-version") == 0;
    if (argc != 3 && !by_version) {
        fprintf(stderr, "usage: %s CUDA_RELEASE FILE.ptx | --ptx-version X.Y|min FILE.ptx\n", argv[0]);
        return PTX_OPT_ERROR_USAGE;
    }
    const char *asked = by_version ? argv[2] : argv[1];
    const char *path = by_version ? argv[3] : argv[2];

    PtxOptOptions *options = ptx_opt_options_create();
    if (options == NULL) {
        return PTX_OPT_ERROR_INTERNAL;
    }
    int set = by_version ? ptx_opt_options_set_ptx_version(options, asked) : ptx_opt_options_set_cuda(options, asked);
    if (set != PTX_OPT_OK) {
        /* "not a CUDA release such as 12.4: 'twelve'" */
        fprintf(stderr, "%s: error: %s\n", argv[0], ptx_opt_options_error(options));
        ptx_opt_options_destroy(options);
        return PTX_OPT_ERROR_USAGE;
    }
    size_t len = 0;
    char *ptx = read_file(path, &len);
    if (ptx == NULL) {
        fprintf(stderr, "%s: error: cannot read the file\n", path);
        ptx_opt_options_destroy(options);
        return PTX_OPT_ERROR_INPUT;
    }
    ptx_opt_options_set_source_name(options, path);

    PtxOptResult *result = NULL;
    int status = ptx_opt_run(options, ptx, len, &result);
    if (status == PTX_OPT_OK) {
        size_t out_len = 0;
        const char *out = ptx_opt_result_output(result, &out_len);
        if (fwrite(out, 1, out_len, stdout) != out_len || fflush(stdout) != 0) {
            status = PTX_OPT_ERROR_INPUT;
        }
        /* path:LINE:COL: remark: cache hints dropped (...) [-Rpass=lower-ptx-version] */
        fputs(ptx_opt_result_remarks(result, PTX_OPT_FORMAT_TEXT), stderr);
    } else {
        /* path:LINE:COL: error: 'cp.async.bulk' needs PTX 8.0, --ptx-version asks for 7.8 */
        fputs(ptx_opt_result_rendered(result), stderr);
    }
    ptx_opt_result_free(result);
    ptx_opt_options_destroy(options);
    free(ptx);
    return status;
}
