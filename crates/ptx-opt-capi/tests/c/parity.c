/*
 * parity.c: what the command line offers, from C (built and run by
 * tests/capi.rs): the pass list, the version macros against the library's
 * version, the reason a setter failed, remarks in both formats, the
 * counters as JSON, and rendered diagnostics with notes, the error limit,
 * colours and escaped control characters; pipeline texts
 * (default<O2>, pass options), the target override and missed remarks;
 * accepting instructions of a later PTX ISA than ptx-opt describes.
 *
 *   usage: parity REWRITTEN.ptx
 *
 * REWRITTEN.ptx must be changed by -O2 (remarks and counters). Prints "ok"
 * and exits 0 when every check holds; otherwise prints each failed check and
 * exits 1.
 */

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
    fseek(f, 0, SEEK_END);
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

static size_t count_lines(const char *text) {
    size_t n = 0;
    for (; *text; text++) {
        n += *text == '\n';
    }
    return n;
}

static void pass_list(void) {
    size_t n = ptx_opt_pass_count();
    CHECK(n >= 2);
    int has_dce = 0;
    for (size_t i = 0; i < n; i++) {
        CHECK(ptx_opt_pass_name(i) != NULL && ptx_opt_pass_description(i) != NULL);
        if (ptx_opt_pass_name(i) != NULL && strcmp(ptx_opt_pass_name(i), "dce") == 0) {
            has_dce = 1;
        }
    }
    CHECK(has_dce);
    CHECK(ptx_opt_pass_name(n) == NULL && ptx_opt_pass_description(n) == NULL);
}

static void version(void) {
    char header[64];
    snprintf(header, sizeof header, "%d.%d.%d", PTX_OPT_VERSION_MAJOR, PTX_OPT_VERSION_MINOR, PTX_OPT_VERSION_PATCH);
    CHECK(strcmp(header, ptx_opt_version()) == 0);
}

static void setter_errors(void) {
    PtxOptOptions *o = ptx_opt_options_create();
    CHECK(ptx_opt_options_error(o) == NULL);
    CHECK(ptx_opt_options_set_passes(o, "dce,no-such-pass") == PTX_OPT_ERROR_USAGE);
    CHECK(ptx_opt_options_error(o) != NULL && strcmp(ptx_opt_options_error(o), "unknown pass 'no-such-pass'") == 0);
    CHECK(ptx_opt_options_set_level(o, 7) == PTX_OPT_ERROR_USAGE);
    CHECK(ptx_opt_options_error(o) != NULL && strstr(ptx_opt_options_error(o), "level 7") != NULL);
    CHECK(ptx_opt_options_set_level(o, 2) == PTX_OPT_OK);
    CHECK(ptx_opt_options_error(o) == NULL);
    CHECK(ptx_opt_options_error(NULL) == NULL);
    ptx_opt_options_destroy(o);
}

static void remarks_and_stats(const char *ptx, size_t len) {
    PtxOptOptions *o = ptx_opt_options_create();
    ptx_opt_options_set_level(o, 2);
    ptx_opt_options_set_source_name(o, "k.ptx");
    PtxOptResult *r = NULL;
    CHECK(ptx_opt_run(o, ptx, len, &r) == PTX_OPT_OK);
    size_t n = ptx_opt_result_remark_count(r);
    CHECK(n > 0);
    const char *json = ptx_opt_result_remarks(r, PTX_OPT_FORMAT_JSON);
    const char *text = ptx_opt_result_remarks(r, PTX_OPT_FORMAT_TEXT);
    CHECK(json != NULL && count_lines(json) == n && strncmp(json, "{\"file\":\"k.ptx\",\"line\":", 23) == 0);
    CHECK(text != NULL && count_lines(text) == n && strncmp(text, "k.ptx:", 6) == 0 && strstr(text, ": remark: ") != NULL);
    CHECK(ptx_opt_result_remarks(r, 7) == NULL);
    const char *stats = ptx_opt_result_stats(r);
    CHECK(stats != NULL && strncmp(stats, "{\"passes\":[{\"name\":", 19) == 0 && strstr(stats, "\"changed\":true") != NULL);
    CHECK(ptx_opt_result_rendered(r) != NULL && ptx_opt_result_rendered(r)[0] == '\0');
    ptx_opt_result_free(r);
    ptx_opt_options_destroy(o);
    CHECK(ptx_opt_result_remarks(NULL, PTX_OPT_FORMAT_JSON) == NULL && ptx_opt_result_stats(NULL) == NULL);
}

/* A kernel with a label defined twice, and an ESC in a comment-free line. */
static const char DUPLICATE[] =
    ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\nL1:\n\tbra.uni L1;\nL1:\n\tret;\n}\n";
static const char ESCAPE[] =
    ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n\tret\x1b[2J;\n}\n";

static void rendered(void) {
    PtxOptOptions *o = ptx_opt_options_create();
    ptx_opt_options_set_source_name(o, "k.ptx");
    PtxOptResult *r = NULL;
    CHECK(ptx_opt_run(o, DUPLICATE, strlen(DUPLICATE), &r) == PTX_OPT_ERROR_INPUT);
    const char *want =
        "k.ptx:8:1: error: label 'L1' is defined twice\n  |\n8 | L1:\n  | ^^\n"
        "k.ptx:6:1: note: first defined here\n  |\n6 | L1:\n  | ^^\n";
    CHECK(ptx_opt_result_rendered(r) != NULL && strcmp(ptx_opt_result_rendered(r), want) == 0);
    ptx_opt_result_free(r);

    CHECK(ptx_opt_options_set_color(o, true) == PTX_OPT_OK);
    CHECK(ptx_opt_run(o, DUPLICATE, strlen(DUPLICATE), &r) == PTX_OPT_ERROR_INPUT);
    CHECK(strstr(ptx_opt_result_rendered(r), "\x1b[1m\x1b[31merror\x1b[0m") != NULL);
    ptx_opt_result_free(r);
    CHECK(ptx_opt_options_set_color(o, false) == PTX_OPT_OK);

    CHECK(ptx_opt_run(o, ESCAPE, strlen(ESCAPE), &r) == PTX_OPT_ERROR_INPUT);
    CHECK(strchr(ptx_opt_result_rendered(r), '\x1b') == NULL);
    CHECK(strstr(ptx_opt_result_rendered(r), "\tret\\u{1b}[2J;") != NULL);
    ptx_opt_result_free(r);

    /* 30 errors: 20 shown by default, all with limit 0; the accessors see all. */
    char big[8192];
    size_t at = (size_t)snprintf(big, sizeof big,
        ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n\t.reg .b32 %%r<3>;\n\t.reg .b64 %%rd<2>;\n");
    for (int i = 0; i < 30; i++) {
        at += (size_t)snprintf(big + at, sizeof big - at, "\tadd.s32 %%r1, %%rd1, %%r2;\n");
    }
    at += (size_t)snprintf(big + at, sizeof big - at, "\tret;\n}\n");
    CHECK(ptx_opt_run(o, big, at, &r) == PTX_OPT_ERROR_INPUT);
    CHECK(ptx_opt_result_diagnostic_count(r) == 30);
    CHECK(strstr(ptx_opt_result_rendered(r), "note: 10 more errors not shown (error limit 20)\nerror: aborting due to 30 errors\n") != NULL);
    ptx_opt_result_free(r);
    CHECK(ptx_opt_options_set_error_limit(o, 0) == PTX_OPT_OK);
    CHECK(ptx_opt_run(o, big, at, &r) == PTX_OPT_ERROR_INPUT);
    CHECK(strstr(ptx_opt_result_rendered(r), "not shown") == NULL);
    CHECK(strstr(ptx_opt_result_rendered(r), "k.ptx:37:2: error:") != NULL);
    ptx_opt_result_free(r);
    CHECK(ptx_opt_options_set_color(NULL, true) == PTX_OPT_ERROR_USAGE);
    CHECK(ptx_opt_options_set_error_limit(NULL, 1) == PTX_OPT_ERROR_USAGE);
    CHECK(ptx_opt_result_rendered(NULL) == NULL);
    ptx_opt_options_destroy(o);
}

/* A pack combine-cvt-pack rewrites, on sm_70, which has no cvt.pack. */
static const char GATED[] =
    ".version 8.0\n.target sm_70\n.address_size 64\n.visible .entry g(.param .u64 p)\n{\n"
    "\t.reg .b16 %rs<3>;\n\t.reg .b32 %r<11>;\n\t.reg .b64 %rd<3>;\n"
    "\tld.param.u64 %rd1, [p];\n\tcvta.to.global.u64 %rd2, %rd1;\n"
    "\tld.global.u32 %r1, [%rd2];\n\tld.global.u32 %r2, [%rd2+4];\n"
    "\tcvt.sat.s16.s32 %rs1, %r1;\n\tcvt.sat.s16.s32 %rs2, %r2;\n"
    "\tmov.b32 %r10, {%rs1, %rs2};\n\tst.global.u32 [%rd2+16], %r10;\n\tret;\n}\n";

/* --passes pipeline texts, --target/--set-target, missed remarks. */
static void pipeline_target_missed(void) {
    PtxOptOptions *o = ptx_opt_options_create();
    ptx_opt_options_set_source_name(o, "g.ptx");
    CHECK(ptx_opt_options_set_passes(o, "legalize-relaxed, default<O2>") == PTX_OPT_OK);
    CHECK(ptx_opt_options_set_passes(o, "fold-byte-gathers<min-saving=1>") == PTX_OPT_OK);
    CHECK(ptx_opt_options_set_passes(o, "dce<x>") == PTX_OPT_ERROR_USAGE);
    CHECK(strstr(ptx_opt_options_error(o), "pass 'dce' takes no options") != NULL);
    CHECK(ptx_opt_options_set_passes(o, "default<O9>") == PTX_OPT_ERROR_USAGE);
    CHECK(ptx_opt_options_set_target(o, "sm80", false) == PTX_OPT_ERROR_USAGE);
    CHECK(strstr(ptx_opt_options_error(o), "invalid target 'sm80'") != NULL);
    CHECK(ptx_opt_options_set_target(NULL, "sm_80", false) == PTX_OPT_ERROR_USAGE);
    CHECK(ptx_opt_options_set_passes(o, "default<O2>") == PTX_OPT_OK);

    /* As written: gated off, the input back, and a missed remark saying why. */
    PtxOptResult *r = NULL;
    CHECK(ptx_opt_run(o, GATED, strlen(GATED), &r) == PTX_OPT_OK);
    size_t len = 0;
    CHECK(strcmp(ptx_opt_result_output(r, &len), GATED) == 0);
    CHECK(ptx_opt_result_remarks(r, PTX_OPT_FORMAT_TEXT)[0] == '\0');
    const char *missed = ptx_opt_result_missed_remarks(r, PTX_OPT_FORMAT_TEXT);
    CHECK(missed != NULL && strncmp(missed, "g.ptx:4:1: remark: missed: not run: cvt.pack.sat needs PTX 6.5 and sm_72", 72) == 0);
    const char *missed_json = ptx_opt_result_missed_remarks(r, PTX_OPT_FORMAT_JSON);
    CHECK(missed_json != NULL && strstr(missed_json, "\"kind\":\"missed\"") != NULL && count_lines(missed_json) == 1);
    CHECK(ptx_opt_result_missed_remarks(r, 7) == NULL && ptx_opt_result_missed_remarks(NULL, PTX_OPT_FORMAT_JSON) == NULL);
    ptx_opt_result_free(r);

    /* Gating on sm_80 with the header as written: ptxas would reject the output. */
    CHECK(ptx_opt_options_set_target(o, "sm_80", false) == PTX_OPT_OK);
    CHECK(ptx_opt_run(o, GATED, strlen(GATED), &r) == PTX_OPT_ERROR_INPUT);
    CHECK(strstr(ptx_opt_result_rendered(r), "cvt.pack requires .target sm_72") != NULL);
    ptx_opt_result_free(r);
    /* Written into the header: the pack is made. */
    CHECK(ptx_opt_options_set_target(o, "sm_80", true) == PTX_OPT_OK);
    CHECK(ptx_opt_run(o, GATED, strlen(GATED), &r) == PTX_OPT_OK);
    const char *out = ptx_opt_result_output(r, &len);
    CHECK(strstr(out, "\n.target sm_80\n") != NULL && strstr(out, "cvt.pack.sat.s16.s32") != NULL);
    CHECK(strstr(ptx_opt_result_stats(r), "\"combined\":1") != NULL);
    ptx_opt_result_free(r);
    /* NULL: the input's .target again. */
    CHECK(ptx_opt_options_set_target(o, NULL, false) == PTX_OPT_OK);
    CHECK(ptx_opt_run(o, GATED, strlen(GATED), &r) == PTX_OPT_OK);
    CHECK(strcmp(ptx_opt_result_output(r, &len), GATED) == 0);
    ptx_opt_result_free(r);
    ptx_opt_options_destroy(o);
}

/* A word of PTX ISA 9.3 (mbarrier.test_wait's .phase_type::primary), which
 * the ISA 9.1 text ptx-opt describes lacks: reported unless newer forms are
 * accepted (--accept-newer-forms); then the module comes back as it is. */
static const char NEWER[] =
    ".version 9.3\n.target sm_90a\n.address_size 64\n.shared .align 8 .b64 barrier;\n.visible .entry k()\n{\n"
    "\t.reg .pred %p<3>;\n\t.reg .b8 %rs<2>;\n\t.reg .b64 %rd<2>;\n\tmov.b64 %rd1, 0;\n"
    "\tmbarrier.test_wait.phase_type::primary.b64 %p1|%p2, %rs1, [barrier], %rd1;\n\tret;\n}\n";

static void newer_forms(void) {
    PtxOptOptions *o = ptx_opt_options_create();
    PtxOptResult *r = NULL;
    CHECK(ptx_opt_run(o, NEWER, strlen(NEWER), &r) == PTX_OPT_ERROR_INPUT);
    CHECK(strstr(ptx_opt_result_rendered(r), "unknown modifier .phase_type::primary") != NULL);
    ptx_opt_result_free(r);
    CHECK(ptx_opt_options_set_accept_newer_forms(o, true) == PTX_OPT_OK);
    CHECK(ptx_opt_options_set_level(o, 2) == PTX_OPT_OK);
    CHECK(ptx_opt_run(o, NEWER, strlen(NEWER), &r) == PTX_OPT_OK);
    size_t out_len = 0;
    const char *out = ptx_opt_result_output(r, &out_len);
    CHECK(out != NULL && out_len == strlen(NEWER) && memcmp(out, NEWER, out_len) == 0);
    ptx_opt_result_free(r);
    CHECK(ptx_opt_options_set_accept_newer_forms(NULL, true) == PTX_OPT_ERROR_USAGE);
    ptx_opt_options_destroy(o);
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: parity REWRITTEN.ptx\n");
        return 2;
    }
    size_t len = 0;
    char *ptx = read_file(argv[1], &len);
    if (ptx == NULL) {
        fprintf(stderr, "cannot read %s\n", argv[1]);
        return 2;
    }
    pass_list();
    version();
    setter_errors();
    remarks_and_stats(ptx, len);
    rendered();
    pipeline_target_missed();
    newer_forms();
    free(ptx);
    if (failures == 0) {
        printf("ok\n");
        return 0;
    }
    return 1;
}
