// SPDX-License-Identifier: GPL-2.0
/*
 * Words to actions.  Every level of the grammar is a table; a word picks
 * the entry it names exactly or, failing that, the only entry it is a
 * prefix of.  A word matching nothing or more than one entry is an error
 * that names it: the tool never guesses and never ignores a word.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "vrdmactl.h"

/**
 * vctl_error() - print "vrdmactl: <message>" on stderr
 * @fmt: printf format
 */
void vctl_error(const char *fmt, ...)
{
	va_list ap;

	fputs(VCTL_NAME ": ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static const char *entry_name(const void *table, size_t stride, int i)
{
	return *(const char *const *)((const char *)table + i * stride);
}

/**
 * vctl_lookup() - find a word in a table
 * @table: array of structs whose first member is the name; a NULL name
 *	ends it
 * @stride: size of one entry
 * @word: the word
 * @kind: what the table holds, for messages ("object", "dev command")
 * @help: the command to suggest on error ("vrdmactl dev help")
 *
 * Return: the index of the entry, or -1 after printing why not.
 */
int vctl_lookup(const void *table, size_t stride, const char *word,
		const char *kind, const char *help)
{
	size_t len = strlen(word);
	char candidates[256] = "";
	const char *name;
	int found = -1;
	int matches = 0;
	int i;

	for (i = 0; (name = entry_name(table, stride, i)); i++) {
		if (!strcmp(name, word))
			return i;
		if (!len || strncmp(name, word, len))
			continue;
		found = i;
		if (matches++)
			strncat(candidates, ", ",
				sizeof(candidates) - strlen(candidates) - 1);
		strncat(candidates, name,
			sizeof(candidates) - strlen(candidates) - 1);
	}
	if (matches == 1)
		return found;
	if (matches)
		vctl_error("ambiguous %s \"%s\" (could be %s); try \"%s\"",
			   kind, word, candidates, help);
	else
		vctl_error("unknown %s \"%s\"; try \"%s\"", kind, word, help);
	return -1;
}

/**
 * vctl_dispatch() - run the table entry a word names
 * @c: the tool state
 * @cmds: the table; its first entry runs when there is no word
 * @kind: what the table holds, for messages
 * @help: the command to suggest on error
 * @argc: number of words left
 * @argv: the words, the first one selecting the entry
 *
 * Return: what the entry returns, or -1 for an unknown word.
 */
int vctl_dispatch(struct vctl *c, const struct vctl_cmd *cmds,
		  const char *kind, const char *help, int argc, char **argv)
{
	int i;

	if (argc < 1)
		return cmds[0].run(c, 0, argv);
	i = vctl_lookup(cmds, sizeof(cmds[0]), argv[0], kind, help);
	if (i < 0)
		return -1;
	return cmds[i].run(c, argc - 1, argv + 1);
}

/**
 * vctl_is_help() - whether a word asks for help
 * @word: the word
 *
 * Return: true for "help" and its prefixes down to "he", "-h", "--help".
 */
bool vctl_is_help(const char *word)
{
	size_t len = strlen(word);

	return (len >= 2 && !strncmp("help", word, len)) ||
	       !strcmp(word, "-h") || !strcmp(word, "--help");
}

/**
 * vctl_is_help_exact() - whether a word where a name may stand asks for help
 * @word: the word
 *
 * A name may be a prefix of "help" (a vdevice called "he"), so there only
 * the whole word counts.
 *
 * Return: true for "help", "-h", "--help".
 */
bool vctl_is_help_exact(const char *word)
{
	return !strcmp(word, "help") || !strcmp(word, "-h") ||
	       !strcmp(word, "--help");
}

/**
 * vctl_help() - the "help" command of an object
 * @what: the command, for the message
 * @argc: number of words after it
 * @argv: the words
 * @usage: prints the object's usage
 *
 * Return: 0 after printing the usage on stdout, -1 if words follow.
 */
int vctl_help(const char *what, int argc, char **argv,
	      void (*usage)(FILE *f))
{
	if (vctl_no_more_words(what, argc, argv))
		return -1;
	usage(stdout);
	return 0;
}

/**
 * vctl_no_more_words() - fail on words after a complete command
 * @what: the command, for the message
 * @argc: number of words left
 * @argv: the words
 *
 * Return: 0 when there are none, -1 after naming the first one.
 */
int vctl_no_more_words(const char *what, int argc, char **argv)
{
	if (argc < 1)
		return 0;
	vctl_error("%s: unexpected word \"%s\"", what, argv[0]);
	return -1;
}
