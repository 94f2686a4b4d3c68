// SPDX-License-Identifier: GPL-2.0
/*
 * The output layer: commands make one call per field, and the field comes
 * out either as text (the call's format) or as a JSON member (the call's
 * key).  JSON keys are an interface: scripts and tests rely on them, so
 * they never change meaning.
 *
 * Text goes out as the fields come.  JSON is a small writer with a stack
 * of "is this the first member" flags; -p indents it.  A container opened
 * at the top level (no list around it) ends with a newline, which gives
 * monitor -j its one object per line.
 */
#include <stdarg.h>
#include <stdio.h>

#include "vrdmactl.h"

#define MAX_DEPTH	16

static struct {
	bool json;
	bool pretty;
	int depth;
	bool first[MAX_DEPTH];
} out;

/**
 * out_init() - choose text or JSON
 * @json: print JSON
 * @pretty: indent it
 */
void out_init(bool json, bool pretty)
{
	out.json = json;
	out.pretty = json && pretty;
	out.depth = 0;
}

/**
 * out_is_json() - whether the output is JSON
 *
 * Return: true for JSON.
 */
bool out_is_json(void)
{
	return out.json;
}

static void json_newline(void)
{
	int i;

	if (!out.pretty)
		return;
	putchar('\n');
	for (i = 0; i < out.depth; i++)
		fputs("    ", stdout);
}

static void json_string(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		unsigned char ch = *s;

		if (ch == '"' || ch == '\\')
			printf("\\%c", ch);
		else if (ch == '\n')
			fputs("\\n", stdout);
		else if (ch == '\t')
			fputs("\\t", stdout);
		else if (ch < 0x20 || ch == 0x7f)
			printf("\\u%04x", ch);
		else
			putchar(ch);
	}
	putchar('"');
}

/* Separator, indentation and key of the next member */
static void json_member(const char *key)
{
	if (out.depth) {
		if (!out.first[out.depth])
			putchar(',');
		out.first[out.depth] = false;
		json_newline();
	}
	if (key) {
		json_string(key);
		fputs(out.pretty ? ": " : ":", stdout);
	}
}

/* Brackets are JSON's alone: text output has none */
static void json_open(const char *key, char bracket)
{
	if (!out.json)
		return;
	json_member(key);
	putchar(bracket);
	if (out.depth < MAX_DEPTH - 1)
		out.depth++;
	out.first[out.depth] = true;
}

static void json_close(char bracket)
{
	bool empty = out.first[out.depth];

	if (!out.json)
		return;
	if (out.depth)
		out.depth--;
	if (!empty)
		json_newline();
	putchar(bracket);
	if (!out.depth)
		putchar('\n');
}

/**
 * out_obj_begin() - begin a record or a nested object
 * @key: its key inside an object, NULL inside a list or at the top
 */
void out_obj_begin(const char *key)
{
	json_open(key, '{');
}

/** out_obj_end() - end the object begun last */
void out_obj_end(void)
{
	json_close('}');
}

/**
 * out_array_begin() - begin an array member
 * @key: its key; NULL for the top-level list (out_list_begin())
 */
void out_array_begin(const char *key)
{
	json_open(key, '[');
}

/** out_array_end() - end the array begun last */
void out_array_end(void)
{
	json_close(']');
}

/** out_list_begin() - begin the list of records a command prints */
void out_list_begin(void)
{
	out_array_begin(NULL);
}

/** out_list_end() - end the list of records */
void out_list_end(void)
{
	out_array_end();
}

/**
 * out_str() - one string field
 * @key: JSON key, NULL inside an array
 * @fmt: text format with one %s, NULL to print nothing as text
 * @val: the value
 */
void out_str(const char *key, const char *fmt, const char *val)
{
	if (out.json) {
		json_member(key);
		json_string(val);
	} else if (fmt) {
		printf(fmt, val);
	}
}

/**
 * out_uint() - one number field
 * @key: JSON key, NULL inside an array
 * @fmt: text format with one %s for the number, NULL to print nothing as
 *	text
 * @val: the value
 */
void out_uint(const char *key, const char *fmt, uint64_t val)
{
	char num[24];

	snprintf(num, sizeof(num), "%llu", (unsigned long long)val);
	if (out.json) {
		json_member(key);
		fputs(num, stdout);
	} else if (fmt) {
		printf(fmt, num);
	}
}

/**
 * out_null() - a JSON null field; nothing as text
 * @key: JSON key, NULL inside an array
 */
void out_null(const char *key)
{
	if (!out.json)
		return;
	json_member(key);
	fputs("null", stdout);
}

/**
 * out_text() - text that only the text output has
 * @fmt: printf format
 */
void out_text(const char *fmt, ...)
{
	va_list ap;

	if (out.json)
		return;
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
}

/** out_line_end() - end a line of text output */
void out_line_end(void)
{
	if (!out.json)
		putchar('\n');
}
