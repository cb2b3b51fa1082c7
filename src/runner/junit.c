/* junit.c - the JUnit XML report of `uir test --junit FILE`.
 *
 * One <testsuite> named "uir" with one <testcase> per test: classname is the test's folder,
 * name its file name, file its path as printed. A failed test has a <failure> whose message
 * is the reason on the test's line and whose text is the failing command with its outputs;
 * a skipped test has <skipped message="...">; parts not run are noted in <system-out>. The
 * output is UTF-8 XML 1.0 whatever bytes the children printed: characters XML cannot hold
 * and invalid UTF-8 become U+FFFD.
 */
#include "runner_int.h"

#include <string.h>
#include <time.h>

void ut_xml_escape(FILE *f, const char *s, size_t n, bool attr)
{
	const unsigned char *p = (const unsigned char *)s;
	for (size_t i = 0; i < n;) {
		unsigned char c = p[i];
		if (c >= 0x80) {
			size_t len = ut_utf8_len(p + i, n - i);
			if (len) {
				fwrite(p + i, 1, len, f);
				i += len;
			} else {
				fputs("\xEF\xBF\xBD", f);
				i++;
			}
			continue;
		}
		switch (c) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&apos;", f); break;
		case '\r': fputs("&#13;", f); break;
		case '\n': fputs(attr ? "&#10;" : "\n", f); break;
		case '\t': fputs(attr ? "&#9;" : "\t", f); break;
		default:
			if (c < 0x20)
				fputs("\xEF\xBF\xBD", f);
			else
				fputc(c, f);
		}
		i++;
	}
}

static void escape(FILE *f, const char *s, bool attr)
{
	ut_xml_escape(f, s, strlen(s), attr);
}

static void write_case(FILE *f, const UtTest *t)
{
	const char *slash = strrchr(t->path, '/');
	fputs("    <testcase classname=\"", f);
	if (slash)
		ut_xml_escape(f, t->path, (size_t)(slash - t->path), true);
	else
		fputs(".", f);
	fputs("\" name=\"", f);
	escape(f, slash ? slash + 1 : t->path, true);
	fputs("\" file=\"", f);
	escape(f, t->path, true);
	fprintf(f, "\" time=\"%.3f\">\n", t->elapsed);
	if (t->result == UT_FAIL) {
		fputs("      <failure type=\"failure\" message=\"", f);
		escape(f, t->fail ? t->fail : "failed", true);
		fputs("\">", f);
		if (t->detail.len)
			ut_xml_escape(f, t->detail.data, t->detail.len, false);
		fputs("</failure>\n", f);
	} else if (t->result == UT_SKIP) {
		fputs("      <skipped message=\"", f);
		escape(f, t->skips.len ? t->skips.data : t->notes.len ? t->notes.data : "skipped", true);
		fputs("\"/>\n", f);
	}
	if (t->notes.len) {
		fputs("      <system-out>not run: ", f);
		ut_xml_escape(f, t->notes.data, t->notes.len, false);
		fputs("</system-out>\n", f);
	}
	fputs("    </testcase>\n", f);
}

int ut_write_junit(FILE *f, const UtTest *tests, int n, double total)
{
	int failed = 0, skipped = 0;
	for (int i = 0; i < n; i++) {
		failed += tests[i].result == UT_FAIL;
		skipped += tests[i].result == UT_SKIP;
	}
	char stamp[32] = "1970-01-01T00:00:00";
	time_t now = time(NULL);
	struct tm tm;
	if (gmtime_r(&now, &tm))
		strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%S", &tm);
	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", f);
	fprintf(f, "<testsuites name=\"uir test\" tests=\"%d\" failures=\"%d\" errors=\"0\" "
	        "skipped=\"%d\" time=\"%.3f\">\n", n, failed, skipped, total);
	fprintf(f, "  <testsuite name=\"uir\" tests=\"%d\" failures=\"%d\" errors=\"0\" "
	        "skipped=\"%d\" time=\"%.3f\" timestamp=\"%s\">\n", n, failed, skipped, total,
	        stamp);
	for (int i = 0; i < n; i++)
		write_case(f, &tests[i]);
	fputs("  </testsuite>\n</testsuites>\n", f);
	return ferror(f) ? -1 : 0;
}
