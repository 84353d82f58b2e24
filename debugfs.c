// SPDX-License-Identifier: GPL-2.0
/*
 * Switches for tests and diagnosis, in /sys/kernel/debug/esp_swoffload/.
 *
 * The module has no parameters: its defaults are what a host wants. Each
 * file of the module puts the few switches its tests need here, with
 * eso_debugfs_bool() and eso_debugfs_u32(), from its own init. They are
 * root's only and go with the module. debugfs may be absent (not built,
 * or locked down): then the switches are, and nothing else changes.
 */

#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/uaccess.h>

#include "esp_swoffload.h"

static struct dentry *eso_debugfs;

void eso_debugfs_init(void)
{
	eso_debugfs = debugfs_create_dir(ESO_NAME, NULL);
}

/* First thing at exit: no switch may be written once its code is going. */
void eso_debugfs_exit(void)
{
	debugfs_remove_recursive(eso_debugfs);
	eso_debugfs = NULL;
}

struct dentry *eso_debugfs_dir(void)
{
	return eso_debugfs;
}

void eso_debugfs_bool(const char *name, bool *value)
{
	debugfs_create_bool(name, 0600, eso_debugfs, value);
}

void eso_debugfs_u32(const char *name, u32 *value)
{
	debugfs_create_u32(name, 0600, eso_debugfs, value);
}

/*
 * A switch whose write goes through @set, which may refuse it (a negative
 * errno) or act on it (rx_rehome=N puts the homes back). Reads and writes
 * as debugfs_create_bool()'s or debugfs_create_u32()'s files do.
 */
struct eso_debugfs_hook {
	const void *value;	/* bool * or u32 * */
	bool is_bool;
	int (*set)(u32 v);
};

#define ESO_DEBUGFS_HOOKS 4
static struct eso_debugfs_hook eso_hooks[ESO_DEBUGFS_HOOKS];
static unsigned int eso_nr_hooks;

static ssize_t eso_hook_read(struct file *file, char __user *buf, size_t len,
			     loff_t *ppos)
{
	const struct eso_debugfs_hook *h = file_inode(file)->i_private;
	char s[16];
	int n;

	if (h->is_bool)
		n = scnprintf(s, sizeof(s), "%c\n",
			      READ_ONCE(*(const bool *)h->value) ? 'Y' : 'N');
	else
		n = scnprintf(s, sizeof(s), "%u\n",
			      READ_ONCE(*(const u32 *)h->value));
	return simple_read_from_buffer(buf, len, ppos, s, n);
}

static ssize_t eso_hook_write(struct file *file, const char __user *buf,
			      size_t len, loff_t *ppos)
{
	const struct eso_debugfs_hook *h = file_inode(file)->i_private;
	u32 v;
	int err;

	if (h->is_bool) {
		bool b;

		err = kstrtobool_from_user(buf, len, &b);
		v = b;
	} else {
		err = kstrtou32_from_user(buf, len, 0, &v);
	}
	if (!err)
		err = h->set(v);
	return err ?: len;
}

/*
 * No .owner: an open file must not pin the module (tx_order_bits asks
 * whether anything does); debugfs_remove_recursive() at exit waits for
 * reads and writes under way instead.
 */
static const struct file_operations eso_hook_fops = {
	.open	= simple_open,
	.read	= eso_hook_read,
	.write	= eso_hook_write,
	.llseek	= default_llseek,
};

static void eso_debugfs_hook(const char *name, const void *value, bool is_bool,
			     int (*set)(u32 v))
{
	struct eso_debugfs_hook *h;

	if (WARN_ON_ONCE(eso_nr_hooks >= ESO_DEBUGFS_HOOKS))
		return;
	h = &eso_hooks[eso_nr_hooks++];
	*h = (struct eso_debugfs_hook){ value, is_bool, set };
	debugfs_create_file(name, 0600, eso_debugfs, h, &eso_hook_fops);
}

/* @set stores the value (or refuses it); @value is what reads show. */
void eso_debugfs_bool_hook(const char *name, const bool *value,
			   int (*set)(u32 v))
{
	eso_debugfs_hook(name, value, true, set);
}

void eso_debugfs_u32_hook(const char *name, const u32 *value,
			  int (*set)(u32 v))
{
	eso_debugfs_hook(name, value, false, set);
}
