// SPDX-License-Identifier: GPL-2.0
/*
 * What every other file of the plugin uses: filling in the CNI error it
 * prints, and writing files (state files, records, CDI specs) whole.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cni.h"

/**
 * cni_fail() - fill in an error
 * @e: the error
 * @code: enum cni_code
 * @msg: the message
 * @details_fmt: printf format of the details
 *
 * Return: -1, for "return cni_fail(...)".
 */
int cni_fail(struct cni_error *e, int code, const char *msg,
	     const char *details_fmt, ...)
{
	va_list ap;

	e->code = code;
	snprintf(e->msg, sizeof(e->msg), "%s", msg);
	va_start(ap, details_fmt);
	vsnprintf(e->details, sizeof(e->details), details_fmt, ap);
	va_end(ap);
	return -1;
}

/**
 * cni_fail0() - fill in an error without details
 * @e: the error
 * @code: enum cni_code
 * @msg: the message
 *
 * Return: -1.
 */
int cni_fail0(struct cni_error *e, int code, const char *msg)
{
	e->code = code;
	snprintf(e->msg, sizeof(e->msg), "%s", msg);
	e->details[0] = '\0';
	return -1;
}

/**
 * mkdir_p() - make a directory and its parents (0700)
 * @path: the directory
 *
 * Return: 0 (also when it exists) or a negative errno.
 */
int mkdir_p(const char *path)
{
	char buf[PATH_MAX];
	char *p;

	if ((size_t)snprintf(buf, sizeof(buf), "%s", path) >= sizeof(buf))
		return -ENAMETOOLONG;
	for (p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, 0700) && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(buf, 0700) && errno != EEXIST)
		return -errno;
	return 0;
}

/**
 * write_file_atomic() - replace a file with new contents
 * @path: the file
 * @text: its contents
 * @mode: its mode
 *
 * Writes a new file of a unique name next to @path (PATH.XXXXXX, which
 * ends in neither ".json" nor ".yaml", so no reader takes it for a state
 * file or a CDI spec) and renames it over @path: readers see the old or
 * the new file, and two writers never write into one temporary file.
 *
 * Return: 0 or a negative errno.
 */
int write_file_atomic(const char *path, const char *text, mode_t mode)
{
	char tmp[PATH_MAX];
	size_t len = strlen(text);
	ssize_t n;
	int fd, ret = 0;

	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path) >= sizeof(tmp))
		return -ENAMETOOLONG;
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fchmod(fd, mode))
		ret = -errno;
	n = ret ? 0 : write(fd, text, len);
	if (!ret && (n < 0 || (size_t)n != len))
		ret = n < 0 ? -errno : -EIO;
	if (close(fd) && !ret)
		ret = -errno;
	if (!ret && rename(tmp, path))
		ret = -errno;
	if (ret)
		unlink(tmp);
	return ret;
}

/**
 * write_json_atomic() - replace a file with a JSON document, and drop it
 * @path: the file
 * @o: the document; its reference is put whatever the outcome
 * @flags: JSON_C_TO_STRING_PLAIN or _PRETTY; slashes are never escaped
 * @mode: the file's mode
 *
 * Return: 0 or a negative errno.
 */
int write_json_atomic(const char *path, struct json_object *o, int flags,
		      mode_t mode)
{
	const char *text;
	int ret;

	text = json_object_to_json_string_ext(o, flags |
					      JSON_C_TO_STRING_NOSLASHESCAPE);
	ret = text ? write_file_atomic(path, text, mode) : -ENOMEM;
	json_object_put(o);
	return ret;
}

/**
 * save_json() - write a document to a file, making its directory first
 * @o: the document; its reference is put whatever the outcome
 * @dir: the directory of @path
 * @path: the file, written as write_json_atomic() does, mode 0600
 * @dir_msg: the error message when @dir cannot be made
 * @path_msg: the error message when @path cannot be written
 * @e: receives the error
 *
 * Return: 0 or -1 with @e filled in.
 */
int save_json(struct json_object *o, const char *dir, const char *path,
	      const char *dir_msg, const char *path_msg, struct cni_error *e)
{
	int ret;

	ret = mkdir_p(dir);
	if (ret) {
		json_object_put(o);
		return cni_fail(e, CNI_ERR_IO, dir_msg, "%s: %s", dir,
				strerror(-ret));
	}
	ret = write_json_atomic(path, o, JSON_C_TO_STRING_PLAIN, 0600);
	if (ret)
		return cni_fail(e, CNI_ERR_IO, path_msg, "%s: %s", path,
				strerror(-ret));
	return 0;
}

/**
 * json_add_attachment() - the fields that name an attachment
 * @o: the object to add them to
 * @a: the attachment
 *
 * Both the state file and the record start with them: the container, the
 * network, the interface and the vdevice.
 */
void json_add_attachment(struct json_object *o, const struct attachment *a)
{
	json_object_object_add(o, "containerID",
			       json_object_new_string(a->container_id));
	json_object_object_add(o, "network", json_object_new_string(a->network));
	json_object_object_add(o, "ifname", json_object_new_string(a->ifname));
	json_object_object_add(o, "vdevice", json_object_new_string(a->vdev));
}
