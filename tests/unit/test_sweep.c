// SPDX-License-Identifier: GPL-2.0
/*
 * A sweep's model (lib/sweep/): axes and their values turned into wult
 * record's options, the product in order (the first axis slowest), the
 * monikers, every bad input refused with its reason, and the manifest
 * written and read back, including the malformed ones a reader must
 * refuse with where it stopped.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <wult/sweep.h>
#include "wt.h"

static struct wult_sweep *make(const char *const *specs, unsigned int n, int want_points)
{
	struct wult_sweep *s;
	char err[256] = "";
	unsigned int i;

	WT_EQ(wult_sweep_new(&s), 0);
	for (i = 0; i < n; i++)
		WT_CHECK(!wult_sweep_add_axis(s, specs[i], err, sizeof(err)), "%s: %s",
			 specs[i], err);
	WT_EQ(wult_sweep_build(s, err, sizeof(err)), want_points);
	return s;
}

/* @specs must be refused (by add_axis or build) with @why in the reason. */
static void bad(const char *const *specs, unsigned int n, const char *why)
{
	struct wult_sweep *s;
	char err[256] = "";
	unsigned int i;
	int ret = 0;

	WT_EQ(wult_sweep_new(&s), 0);
	for (i = 0; i < n && !ret; i++)
		ret = wult_sweep_add_axis(s, specs[i], err, sizeof(err));
	if (!ret)
		ret = wult_sweep_build(s, err, sizeof(err));
	WT_CHECK(ret == -EINVAL && strstr(err, why), "%s...: got %d '%s', want '%s'", specs[0],
		 ret, err, why);
	wult_sweep_free(s);
}

static const char *args(const struct wult_sweep *s, unsigned int p)
{
	static char buf[512];
	const char *argv[16];
	unsigned int i, n = wult_sweep_point_args(s, p, argv, 16);
	size_t len = 0;

	buf[0] = '\0';
	for (i = 0; i < n; i++)
		len += snprintf(buf + len, sizeof(buf) - len, "%s%s", i ? " " : "", argv[i]);
	return buf;
}

/* @text as a manifest file; wult_sweep_read()'s result, @err its reason. */
static int read_text(const char *dir, const char *text, struct wult_sweep **out, char *err,
		     size_t errlen)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/m.json", dir);
	f = fopen(path, "w");
	WT_CHECK(f != NULL, "cannot write %s", path);
	if (!f)
		return -EIO;
	fputs(text, f);
	fclose(f);
	return wult_sweep_read(path, out, err, errlen);
}

static void bad_manifest(const char *dir, const char *text, const char *why)
{
	struct wult_sweep *s = (struct wult_sweep *)1;
	char err[512] = "";

	WT_EQ(read_text(dir, text, &s, err, sizeof(err)), -EINVAL);
	WT_CHECK(s == NULL, "%s: a sweep returned", why);
	WT_CHECK(strstr(err, why) != NULL, "got '%s', want '%s'", err, why);
}

#define POINT(m, st) "{\"moniker\": \"" m "\", \"file\": \"" m ".data\", " \
	"\"settings\": {\"states\": \"C1\"}, \"status\": \"" st "\"}"
#define DOC(points) "{\"wult_sweep\": 1, \"axes\": [{\"name\": \"states\", " \
	"\"values\": [\"C1\"]}], \"points\": [" points "]}"

int main(void)
{
	static const char *const two[] = { "states=C1,C2+C3", "governor=menu,ladder" };
	static const char *const all[] = {
		"cpu=1,0+2", "ldist=100-200,1ms-2ms,500us", "method=hrt", "deepest-state=C6",
		"governor=teo",
	};
	static const char *const ropts[] = { "-c", "100", "--quoted\"\\\n" };
	struct wult_sweep *s, *r;
	char dir[] = "/tmp/test_sweep.XXXXXX", path[512], err[512];
	unsigned int p, i;
	int code;

	/* The product: the first axis slowest; '+' sets become comma lists. */
	s = make(two, 2, 4);
	WT_CHECK(!strcmp(wult_sweep_moniker(s, 0), "states-C1_governor-menu"), "%s",
		 wult_sweep_moniker(s, 0));
	WT_CHECK(!strcmp(wult_sweep_moniker(s, 1), "states-C1_governor-ladder"), "%s",
		 wult_sweep_moniker(s, 1));
	WT_CHECK(!strcmp(wult_sweep_moniker(s, 2), "states-C2+C3_governor-menu"), "%s",
		 wult_sweep_moniker(s, 2));
	WT_CHECK(!strcmp(wult_sweep_file(s, 3), "states-C2+C3_governor-ladder.data"), "%s",
		 wult_sweep_file(s, 3));
	WT_CHECK(!strcmp(args(s, 3), "--states C2,C3 --idle-governor ladder"), "%s", args(s, 3));
	WT_CHECK(!strcmp(wult_sweep_point_value(s, 3, 0), "C2+C3"), "value as given");
	WT_EQ(wult_sweep_naxes(s), 2);
	WT_EQ(wult_sweep_axis(s, 1), WULT_SWEEP_GOVERNOR);
	WT_EQ(wult_sweep_status(s, 0, NULL), WULT_SWEEP_PENDING);

	/* Every axis's translation. */
	r = make(all, 5, 6);
	WT_CHECK(!strcmp(args(r, 0), "--cpus 1 --ldist 100,200 --method hrt --deepest-state C6 "
			 "--idle-governor teo"), "%s", args(r, 0));
	WT_CHECK(!strcmp(args(r, 2), "--cpus 1 --ldist 500us,500us --method hrt --deepest-state "
			 "C6 --idle-governor teo"), "%s", args(r, 2));
	WT_CHECK(!strcmp(args(r, 4), "--cpus 0,2 --ldist 1ms,2ms --method hrt --deepest-state C6 "
			 "--idle-governor teo"), "%s", args(r, 4));
	WT_CHECK(!strcmp(wult_sweep_moniker(r, 4), "cpu-0+2_ldist-1ms-2ms_method-hrt_"
			 "deepest-state-C6_governor-teo"), "%s", wult_sweep_moniker(r, 4));
	wult_sweep_free(r);

	/* Bad input, each with its reason. */
	bad((const char *const[]){ "foo=1" }, 1, "unknown axis 'foo' (axes: states, "
	    "deepest-state, governor, method, ldist, cpu)");
	bad((const char *const[]){ "states" }, 1, "'states' is not AXIS=VALUES");
	bad((const char *const[]){ "states=C1", "states=C2" }, 2, "axis states given twice");
	bad((const char *const[]){ "states=C1,,C2" }, 1, "states: an empty value");
	bad((const char *const[]){ "states=" }, 1, "states: an empty value");
	bad((const char *const[]){ "states=C1,C1" }, 1, "states: value 'C1' given twice");
	bad((const char *const[]){ "states=C1+" }, 1, "states: bad value 'C1+'");
	bad((const char *const[]){ "states=+C1" }, 1, "states: bad value '+C1'");
	bad((const char *const[]){ "states=C1++C2" }, 1, "states: bad value 'C1++C2'");
	bad((const char *const[]){ "governor=a+b" }, 1, "governor: bad value 'a+b' (one name)");
	bad((const char *const[]){ "states=C 1" }, 1, "states: bad value 'C 1'");
	bad((const char *const[]){ "states=../x" }, 1, "states: bad value '../x'");
	bad((const char *const[]){ "ldist=200-100" }, 1, "ldist: bad value '200-100'");
	bad((const char *const[]){ "ldist=1-2-3" }, 1, "ldist: bad value '1-2-3'");
	bad((const char *const[]){ "ldist=5parsecs" }, 1, "ldist: bad value '5parsecs'");
	bad((const char *const[]){ "cpu=3-1" }, 1, "cpu: bad value '3-1'");
	bad((const char *const[]){ "cpu=x" }, 1, "cpu: bad value 'x'");
	bad((const char *const[]){ "states=C1", "deepest-state=C2" }, 2,
	    "the states and deepest-state axes exclude each other");
	bad(NULL, 0, "no axis");
	bad((const char *const[]){ "method=a*b,a?b" }, 1,
	    "two points would both be named method-a_b");
	bad((const char *const[]){ "states=C1,C2,C3,C4,C5,C6,C7,C8",
				   "governor=a,b,c,d,e,f,g,h", "method=1,2,3,4,5,6,7,8",
				   "cpu=0,1,2,3,4,5,6,7,8" }, 4, "more than 4096 points");

	/* The manifest: written, read back whole. */
	WT_CHECK(mkdtemp(dir) != NULL, "mkdtemp");
	snprintf(path, sizeof(path), "%s/" WULT_SWEEP_MANIFEST, dir);
	WT_EQ(wult_sweep_set_run(s, "root@sut:22", (char *const *)ropts, 3), 0);
	wult_sweep_set_status(s, 0, WULT_SWEEP_DONE, 0);
	wult_sweep_set_status(s, 1, WULT_SWEEP_FAILED, 2);
	wult_sweep_set_status(s, 2, WULT_SWEEP_STOPPED, -15);
	WT_EQ(wult_sweep_write(s, path, err, sizeof(err)), 0);
	snprintf(path + strlen(path), sizeof(path) - strlen(path), ".tmp");
	WT_CHECK(access(path, F_OK), "no temporary file left");
	path[strlen(path) - 4] = '\0';
	WT_EQ(wult_sweep_read(path, &r, err, sizeof(err)), 0);
	WT_CHECK(r != NULL, "read: %s", err);
	if (r) {
		WT_EQ(wult_sweep_npoints(r), 4);
		WT_EQ(wult_sweep_naxes(r), 2);
		WT_CHECK(!strcmp(wult_sweep_host(r), "root@sut:22"), "host");
		WT_EQ(wult_sweep_nropts(r), 3);
		WT_CHECK(!strcmp(wult_sweep_ropt(r, 2), ropts[2]), "an escaped option: '%s'",
			 wult_sweep_ropt(r, 2));
		for (p = 0; p < 4; p++) {
			WT_CHECK(!strcmp(wult_sweep_moniker(r, p), wult_sweep_moniker(s, p)),
				 "moniker %u", p);
			WT_CHECK(!strcmp(wult_sweep_file(r, p), wult_sweep_file(s, p)), "file %u", p);
			WT_CHECK(!strcmp(args(r, p), args(s, p)), "args %u: %s", p, args(r, p));
			for (i = 0; i < 2; i++)
				WT_CHECK(!strcmp(wult_sweep_point_value(r, p, i),
						 wult_sweep_point_value(s, p, i)), "value %u %u", p, i);
		}
		WT_EQ(wult_sweep_status(r, 0, &code), WULT_SWEEP_DONE);
		WT_EQ(code, 0);
		WT_EQ(wult_sweep_status(r, 1, &code), WULT_SWEEP_FAILED);
		WT_EQ(code, 2);
		WT_EQ(wult_sweep_status(r, 2, &code), WULT_SWEEP_STOPPED);
		WT_EQ(code, -15);
		WT_EQ(wult_sweep_status(r, 3, NULL), WULT_SWEEP_PENDING);
		wult_sweep_free(r);
	}
	wult_sweep_free(s);

	/* Other writers' keys are ignored; escapes are decoded. */
	WT_EQ(read_text(dir, "{\"new\": [1, {\"x\": null}, true, -1.5e3], " "\"wult_sweep\": 1, "
			"\"axes\": [{\"name\": \"states\", \"values\": [\"C\\u00e9\\ud83d\\ude00\"]}],"
			" \"points\": [{\"moniker\": \"m\", \"file\": \"m.data\", \"settings\": "
			"{\"states\": \"C\\u00e9\\ud83d\\ude00\"}, \"status\": \"done\"}]}",
			&r, err, sizeof(err)), 0);
	WT_CHECK(r && !strcmp(wult_sweep_value(r, 0, 0), "C\xc3\xa9\xf0\x9f\x98\x80"),
		 "UTF-8 from \\u escapes: %s", err);
	wult_sweep_free(r);

	/* A manifest a reader must refuse, and where. */
	bad_manifest(dir, "", "byte 1: a value is missing");
	bad_manifest(dir, "{\"wult_sweep\": 1,}", "byte 18: an object key is not a string");
	bad_manifest(dir, "[1 2]", "byte 4: no ',' or ']' after an array item");
	bad_manifest(dir, "{\"a\": \"x", "a string without its closing quote");
	bad_manifest(dir, "{\"a\": \"x\\", "a string without its closing quote");
	bad_manifest(dir, "{\"a\": \"\\q\"}", "an unknown escape");
	bad_manifest(dir, "{\"a\": \"\\ud800\"}", "a lone surrogate");
	bad_manifest(dir, "{\"a\": \"\\u0000\"}", "a NUL in a string");
	bad_manifest(dir, "{\"a\": 0x10}", "byte 7: a bad number");
	bad_manifest(dir, "{\"a\": inf}", "not a JSON value");
	bad_manifest(dir, "{} {}", "more after the document");
	bad_manifest(dir, "[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]", "nested too deep");
	bad_manifest(dir, "{}", "not a wult sweep manifest");
	bad_manifest(dir, "{\"wult_sweep\": 2}", "manifest format 2, this wult reads 1");
	bad_manifest(dir, "{\"wult_sweep\": 1, \"axes\": []}", "no \"axes\" array");
	bad_manifest(dir, "{\"wult_sweep\": 1, \"axes\": [{\"name\": \"x\", \"values\": "
		     "[\"1\"]}]}", "axis 1: no known \"name\"");
	bad_manifest(dir, "{\"wult_sweep\": 1, \"axes\": [{\"name\": \"states\", \"values\": "
		     "[\"C1\"]}], \"points\": []}", "no \"points\" array");
	bad_manifest(dir, DOC("{\"moniker\": \"m\"}"), "point 1: no \"moniker\", \"file\"");
	bad_manifest(dir, DOC("{\"moniker\": \"m\", \"file\": \"../etc/x\", \"settings\": "
			      "{\"states\": \"C1\"}, \"status\": \"done\"}"),
		     "point m: \"file\" is not a file name of the directory");
	bad_manifest(dir, DOC(POINT("m", "gone")), "point m: no known \"status\"");
	bad_manifest(dir, DOC("{\"moniker\": \"m\", \"file\": \"m.data\", \"settings\": "
			      "{\"states\": \"C9\"}, \"status\": \"done\"}"),
		     "point m: its states is 'C9', not one of the axis's values");
	WT_EQ(read_text(dir, DOC(POINT("m", "done")), &r, err, sizeof(err)), 0);
	wult_sweep_free(r);
	snprintf(path, sizeof(path), "%s/nothing.json", dir);
	WT_EQ(wult_sweep_read(path, &r, err, sizeof(err)), -ENOENT);
	snprintf(path, sizeof(path), "%s/m.json", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/" WULT_SWEEP_MANIFEST, dir);
	unlink(path);
	WT_EQ(rmdir(dir), 0);	/* nothing else left behind */
	return wt_done();
}
