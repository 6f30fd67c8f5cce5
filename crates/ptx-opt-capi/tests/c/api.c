/*
 * api.c: the C API's contract, checked from C (built and run by
 * tests/capi.rs): NULL handling, statuses, the options setters, located
 * diagnostics and their rendering, invalid UTF-8, and eight threads running
 * at once with one shared options object, each result compared with a
 * single-threaded run.
 *
 *   usage: api VALID.ptx BROKEN.ptx
 *
 * BROKEN.ptx must have a parse error; the line and column expected for it
 * are passed in the environment as PTX_OPT_TEST_LINE and PTX_OPT_TEST_COL,
 * and the message as PTX_OPT_TEST_MESSAGE. Prints "ok" and exits 0 when
 * every check holds; otherwise prints each failed check and exits 1.
 */

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptx_opt.h"

static int failures = 0;

#define CHECK(cond)                                                        \
    do {                                                                   \
        if (!(cond)) {                                                     \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
            failures++;                                                    \
        }                                                                  \
    } while (0)

static char *read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        return NULL;
    }
    if (fseek(f, 0, SEEK_END) != 0) {
        fclose(f);
        return NULL;
    }
    long size = ftell(f);
    rewind(f);
    char *buf = size >= 0 ? malloc((size_t)size + 1) : NULL;
    if (buf != NULL && fread(buf, 1, (size_t)size, f) != (size_t)size) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    *len = size >= 0 ? (size_t)size : 0;
    return buf;
}

/* Runs and returns the output as a malloc'd copy (NULL unless status 0). */
static char *optimize(const PtxOptOptions *options, const char *ptx, size_t len, int *status) {
    PtxOptResult *result = NULL;
    *status = ptx_opt_run(options, ptx, len, &result);
    char *copy = NULL;
    if (*status == PTX_OPT_OK) {
        size_t n = 0;
        const char *out = ptx_opt_result_output(result, &n);
        copy = malloc(n + 1);
        if (copy != NULL) {
            memcpy(copy, out, n + 1);
        }
    }
    ptx_opt_result_free(result);
    return copy;
}

struct job {
    const PtxOptOptions *options;
    const char *ptx;
    size_t len;
    const char *expected;
    int ok;
};

static void *run_job(void *arg) {
    struct job *job = arg;
    job->ok = 1;
    for (int i = 0; i < 4; i++) {
        int status = -1;
        char *out = optimize(job->options, job->ptx, job->len, &status);
        if (status != PTX_OPT_OK || out == NULL || strcmp(out, job->expected) != 0) {
            job->ok = 0;
        }
        free(out);
    }
    return NULL;
}

static void null_handling(void) {
    CHECK(strlen(ptx_opt_version()) > 0);
    ptx_opt_options_destroy(NULL);
    ptx_opt_result_free(NULL);
    CHECK(ptx_opt_options_set_passes(NULL, "legalize-relaxed") == PTX_OPT_ERROR_USAGE);
    CHECK(ptx_opt_options_set_level(NULL, 1) == PTX_OPT_ERROR_USAGE);
    CHECK(ptx_opt_options_set_verify_each(NULL, true) == PTX_OPT_ERROR_USAGE);
    CHECK(ptx_opt_options_set_verify(NULL, false) == PTX_OPT_ERROR_USAGE);
    CHECK(ptx_opt_options_set_threads(NULL, 2) == PTX_OPT_ERROR_USAGE);
    CHECK(ptx_opt_options_set_source_name(NULL, "x") == PTX_OPT_ERROR_USAGE);
    CHECK(ptx_opt_run(NULL, "", 0, NULL) == PTX_OPT_ERROR_USAGE);
    CHECK(ptx_opt_result_status(NULL) == PTX_OPT_ERROR_USAGE);
    size_t n = 99;
    CHECK(ptx_opt_result_output(NULL, &n) == NULL && n == 0);
    CHECK(ptx_opt_result_diagnostic_count(NULL) == 0);
    CHECK(ptx_opt_result_diagnostic_line(NULL, 0) == 0);
    CHECK(ptx_opt_result_diagnostic_column(NULL, 0) == 0);
    CHECK(ptx_opt_result_diagnostic_message(NULL, 0) == NULL);
    CHECK(ptx_opt_result_diagnostic_rendered(NULL, 0) == NULL);

    /* A NULL input pointer with a length is a usage error, with a result. */
    PtxOptResult *result = NULL;
    CHECK(ptx_opt_run(NULL, NULL, 5, &result) == PTX_OPT_ERROR_USAGE);
    CHECK(result != NULL && ptx_opt_result_status(result) == PTX_OPT_ERROR_USAGE);
    CHECK(ptx_opt_result_diagnostic_count(result) == 1);
    CHECK(ptx_opt_result_diagnostic_line(result, 0) == 0);
    CHECK(ptx_opt_result_output(result, &n) != NULL && n == 0);
    ptx_opt_result_free(result);

    /* NULL with length 0 is the empty input: not valid PTX. */
    result = NULL;
    CHECK(ptx_opt_run(NULL, NULL, 0, &result) == PTX_OPT_ERROR_INPUT);
    CHECK(ptx_opt_result_diagnostic_count(result) >= 1);
    ptx_opt_result_free(result);
}

static void setters(void) {
    PtxOptOptions *options = ptx_opt_options_create();
    CHECK(options != NULL);
    CHECK(ptx_opt_options_set_passes(options, "legalize-relaxed") == PTX_OPT_OK);
    CHECK(ptx_opt_options_set_passes(options, " legalize-relaxed , ,") == PTX_OPT_OK);
    CHECK(ptx_opt_options_set_passes(options, "") == PTX_OPT_OK);
    CHECK(ptx_opt_options_set_passes(options, "legalize-relaxed,no-such-pass") == PTX_OPT_ERROR_USAGE);
    CHECK(ptx_opt_options_set_passes(options, NULL) == PTX_OPT_ERROR_USAGE);
    CHECK(ptx_opt_options_set_passes(options, "\xff") == PTX_OPT_ERROR_USAGE);
    for (int level = 0; level <= 2; level++) {
        CHECK(ptx_opt_options_set_level(options, level) == PTX_OPT_OK);
    }
    CHECK(ptx_opt_options_set_level(options, 3) == PTX_OPT_ERROR_USAGE);
    CHECK(ptx_opt_options_set_level(options, -1) == PTX_OPT_ERROR_USAGE);
    CHECK(ptx_opt_options_set_verify_each(options, true) == PTX_OPT_OK);
    CHECK(ptx_opt_options_set_verify(options, false) == PTX_OPT_OK);
    CHECK(ptx_opt_options_set_threads(options, 0) == PTX_OPT_OK);
    CHECK(ptx_opt_options_set_threads(options, 3) == PTX_OPT_OK);
    CHECK(ptx_opt_options_set_source_name(options, "k.ptx") == PTX_OPT_OK);
    CHECK(ptx_opt_options_set_source_name(options, NULL) == PTX_OPT_ERROR_USAGE);
    ptx_opt_options_destroy(options);
}

static void valid_input(const char *ptx, size_t len) {
    /* No pass: the output is the input, byte for byte. */
    int status = -1;
    char *same = optimize(NULL, ptx, len, &status);
    CHECK(status == PTX_OPT_OK && same != NULL && strlen(same) == len && memcmp(same, ptx, len) == 0);
    free(same);

    /* legalize-relaxed with verification and 2 threads, through -O-style levels too. */
    PtxOptOptions *options = ptx_opt_options_create();
    CHECK(ptx_opt_options_set_passes(options, "legalize-relaxed") == PTX_OPT_OK);
    CHECK(ptx_opt_options_set_verify_each(options, true) == PTX_OPT_OK);
    CHECK(ptx_opt_options_set_threads(options, 2) == PTX_OPT_OK);
    PtxOptResult *result = NULL;
    CHECK(ptx_opt_run(options, ptx, len, &result) == PTX_OPT_OK);
    size_t n = 0;
    const char *out = ptx_opt_result_output(result, &n);
    CHECK(out != NULL && n > 0 && out[n] == '\0' && strlen(out) == n);
    CHECK(ptx_opt_result_diagnostic_count(result) == 0);
    CHECK(ptx_opt_result_diagnostic_message(result, 0) == NULL);
    CHECK(ptx_opt_result_output(result, NULL) == out); /* the length pointer is optional */
    ptx_opt_result_free(result);
    ptx_opt_options_destroy(options);

    /* Invalid UTF-8 is located at the first bad byte. */
    char *bad = malloc(len + 1);
    memcpy(bad, ptx, len);
    bad[len] = (char)0xff;
    options = ptx_opt_options_create();
    CHECK(ptx_opt_options_set_source_name(options, "bad.ptx") == PTX_OPT_OK);
    result = NULL;
    CHECK(ptx_opt_run(options, bad, len + 1, &result) == PTX_OPT_ERROR_INPUT);
    CHECK(ptx_opt_result_diagnostic_count(result) == 1);
    const char *message = ptx_opt_result_diagnostic_message(result, 0);
    CHECK(message != NULL && strcmp(message, "input is not valid UTF-8") == 0);
    const char *rendered = ptx_opt_result_diagnostic_rendered(result, 0);
    CHECK(rendered != NULL && strncmp(rendered, "bad.ptx:", 8) == 0);
    CHECK(ptx_opt_result_output(result, &n) != NULL && n == 0);
    ptx_opt_result_free(result);
    ptx_opt_options_destroy(options);
    free(bad);
}

/* Parses, but the verifier (and ptxas) reject it: a .b64 register as the
 * destination of a 32-bit add, on line 7. */
static const char REJECTED[] =
    ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n"
    "\t.reg .b32 %r<3>;\n\tadd.u32 %rd1, %r1, %r2;\n\tret;\n}\n";

static void input_verified_by_default(void) {
    size_t len = strlen(REJECTED);
    /* The default options, and NULL options, verify: no pass is needed. */
    PtxOptOptions *options = ptx_opt_options_create();
    PtxOptResult *result = NULL;
    CHECK(ptx_opt_run(options, REJECTED, len, &result) == PTX_OPT_ERROR_INPUT);
    CHECK(ptx_opt_result_diagnostic_count(result) >= 1);
    CHECK(ptx_opt_result_diagnostic_line(result, 0) == 7);
    ptx_opt_result_free(result);
    int status = -1;
    char *out = optimize(NULL, REJECTED, len, &status);
    CHECK(status == PTX_OPT_ERROR_INPUT && out == NULL);
    /* Verification off: only the parser checks, and the input comes back. */
    CHECK(ptx_opt_options_set_verify(options, false) == PTX_OPT_OK);
    out = optimize(options, REJECTED, len, &status);
    CHECK(status == PTX_OPT_OK && out != NULL && strcmp(out, REJECTED) == 0);
    free(out);
    ptx_opt_options_destroy(options);
}

static void broken_input(const char *ptx, size_t len) {
    const char *line = getenv("PTX_OPT_TEST_LINE");
    const char *col = getenv("PTX_OPT_TEST_COL");
    const char *expected_message = getenv("PTX_OPT_TEST_MESSAGE");
    CHECK(line != NULL && col != NULL && expected_message != NULL);
    if (line == NULL || col == NULL || expected_message == NULL) {
        return;
    }
    PtxOptOptions *options = ptx_opt_options_create();
    CHECK(ptx_opt_options_set_passes(options, "legalize-relaxed") == PTX_OPT_OK);
    CHECK(ptx_opt_options_set_source_name(options, "broken.ptx") == PTX_OPT_OK);
    PtxOptResult *result = NULL;
    CHECK(ptx_opt_run(options, ptx, len, &result) == PTX_OPT_ERROR_INPUT);
    CHECK(ptx_opt_result_status(result) == PTX_OPT_ERROR_INPUT);
    CHECK(ptx_opt_result_diagnostic_count(result) >= 1);
    CHECK(ptx_opt_result_diagnostic_line(result, 0) == (size_t)atol(line));
    CHECK(ptx_opt_result_diagnostic_column(result, 0) == (size_t)atol(col));
    const char *message = ptx_opt_result_diagnostic_message(result, 0);
    CHECK(message != NULL && strcmp(message, expected_message) == 0);
    char want[512];
    snprintf(want, sizeof want, "broken.ptx:%s:%s: error: %s", line, col, expected_message);
    const char *rendered = ptx_opt_result_diagnostic_rendered(result, 0);
    CHECK(rendered != NULL && strcmp(rendered, want) == 0);
    if (rendered != NULL && strcmp(rendered, want) != 0) {
        fprintf(stderr, "rendered: %s\nexpected: %s\n", rendered, want);
    }
    size_t count = ptx_opt_result_diagnostic_count(result);
    CHECK(ptx_opt_result_diagnostic_rendered(result, count) == NULL);
    CHECK(ptx_opt_result_diagnostic_line(result, count) == 0);
    ptx_opt_result_free(result);
    ptx_opt_options_destroy(options);
}

static void threads(const char *ptx, size_t len) {
    PtxOptOptions *options = ptx_opt_options_create();
    CHECK(ptx_opt_options_set_passes(options, "legalize-relaxed") == PTX_OPT_OK);
    int status = -1;
    char *expected = optimize(options, ptx, len, &status);
    CHECK(status == PTX_OPT_OK && expected != NULL);
    if (expected == NULL) {
        ptx_opt_options_destroy(options);
        return;
    }
    struct job jobs[8];
    pthread_t tids[8];
    for (int i = 0; i < 8; i++) {
        jobs[i] = (struct job){options, ptx, len, expected, 0};
        CHECK(pthread_create(&tids[i], NULL, run_job, &jobs[i]) == 0);
    }
    for (int i = 0; i < 8; i++) {
        CHECK(pthread_join(tids[i], NULL) == 0);
        CHECK(jobs[i].ok);
    }
    free(expected);
    ptx_opt_options_destroy(options);
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: %s VALID.ptx BROKEN.ptx\n", argv[0]);
        return 2;
    }
    size_t valid_len = 0, broken_len = 0;
    char *valid = read_file(argv[1], &valid_len);
    char *broken = read_file(argv[2], &broken_len);
    if (valid == NULL || broken == NULL) {
        fprintf(stderr, "cannot read the inputs\n");
        return 2;
    }
    null_handling();
    setters();
    valid_input(valid, valid_len);
    broken_input(broken, broken_len);
    input_verified_by_default();
    threads(valid, valid_len);
    free(valid);
    free(broken);
    if (failures == 0) {
        printf("ok\n");
    }
    return failures == 0 ? 0 : 1;
}
