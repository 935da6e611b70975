/*
 * powercutfs: a FUSE file system (libfuse3) that loses what a power cut loses.
 *
 *     powercutfs BACKING MOUNTPOINT        (runs in the foreground, one thread)
 *     kill -USR1 <its pid>                  the power goes: nothing more becomes durable
 *     fusermount3 -u MOUNTPOINT             it exits; mount again to "boot" from BACKING
 *
 * Every file and folder lives in memory while mounted. What has reached the "disk" lives
 * in BACKING, which the next mount starts from:
 *
 *  - A file's data becomes durable only when that file is synced (fsync or fdatasync,
 *    through any descriptor on it): its whole content as it is then is written to
 *    BACKING/data/<id>. Writes never synced are lost at a cut, however old they are.
 *  - Names (create, mkdir, unlink, rename, truncate to a size is data) become durable at
 *    the next sync of any file or folder, all together, as a journalling file system's
 *    commit does (ext4 commits its one journal on any fsync): BACKING/namespace lists
 *    each path with its id. A file whose name is durable but whose data was never synced
 *    comes back empty: the harsher of the two outcomes a real disk allows.
 *  - SIGUSR1 is the cut: from then on no sync reaches BACKING (writes and syncs still
 *    succeed, as they would for a program that has not yet noticed the power is gone).
 *    The test then kills the program with SIGKILL and unmounts; the kernel's cache of
 *    the file system goes with the mount, so the next mount sees BACKING alone.
 *
 * Attribute and entry caching is off (timeouts 0): sizes and names always come from here.
 * Locks (flock, POSIX) are the kernel's own, local to the mount. Extended attributes,
 * links and special files are not supported (ENOTSUP): SQLite needs none of them.
 */
#define FUSE_USE_VERSION 31
#include <fuse.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

struct node {
    char *path;                 /* "/", "/state", "/state/kiosk.db" */
    unsigned long id;
    int is_dir;
    mode_t mode;
    char *data;
    size_t size, capacity;
    struct timespec mtime;
};

static struct node **nodes;
static size_t node_count, node_capacity;
static unsigned long next_id = 1;
static char *backing;
static volatile sig_atomic_t power_cut;
static unsigned long syncs_committed;

static void die(const char *what) { perror(what); exit(1); }

static struct node *find(const char *path) {
    for (size_t i = 0; i < node_count; i++)
        if (strcmp(nodes[i]->path, path) == 0) return nodes[i];
    return NULL;
}

static struct node *add(const char *path, int is_dir, mode_t mode, unsigned long id) {
    if (node_count == node_capacity) {
        node_capacity = node_capacity ? node_capacity * 2 : 64;
        nodes = realloc(nodes, node_capacity * sizeof *nodes);
        if (!nodes) die("realloc");
    }
    struct node *n = calloc(1, sizeof *n);
    if (!n || !(n->path = strdup(path))) die("calloc");
    n->id = id ? id : next_id++;
    if (n->id >= next_id) next_id = n->id + 1;
    n->is_dir = is_dir;
    n->mode = mode;
    clock_gettime(CLOCK_REALTIME, &n->mtime);
    nodes[node_count++] = n;
    return n;
}

static void drop(struct node *n) {
    for (size_t i = 0; i < node_count; i++)
        if (nodes[i] == n) { nodes[i] = nodes[--node_count]; break; }
    free(n->path); free(n->data); free(n);
}

/* The folder a path is in ("/" for "/a"). */
static int parent_exists(const char *path) {
    const char *slash = strrchr(path, '/');
    if (slash == path) return 1;
    char parent[4096];
    size_t len = (size_t)(slash - path);
    if (len >= sizeof parent) return 0;
    memcpy(parent, path, len); parent[len] = 0;
    struct node *p = find(parent);
    return p && p->is_dir;
}

static int is_child(const char *dir, const char *path) {
    size_t len = strlen(dir);
    if (strcmp(dir, "/") == 0) return path[0] == '/' && path[1] && !strchr(path + 1, '/');
    return strncmp(path, dir, len) == 0 && path[len] == '/' && !strchr(path + len + 1, '/');
}

static int resize(struct node *n, size_t size) {
    if (size > n->capacity) {
        size_t capacity = n->capacity ? n->capacity : 4096;
        while (capacity < size) capacity *= 2;
        char *grown = realloc(n->data, capacity);
        if (!grown) return -ENOSPC;
        n->data = grown;
        n->capacity = capacity;
    }
    if (size > n->size) memset(n->data + n->size, 0, size - n->size);
    n->size = size;
    clock_gettime(CLOCK_REALTIME, &n->mtime);
    return 0;
}

/* ---- BACKING: the durable state ------------------------------------------------- */

/* Writes a real file of BACKING whole: temp, fsync, rename (our own crash, not the
 * test's cut, must never tear it). */
static void write_backing(const char *name, const char *bytes, size_t size) {
    char path[4200], temp[4210];
    snprintf(path, sizeof path, "%s/%s", backing, name);
    snprintf(temp, sizeof temp, "%s.tmp", path);
    int fd = open(temp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) die(temp);
    size_t done = 0;
    while (done < size) {
        ssize_t n = write(fd, bytes + done, size - done);
        if (n < 0) die("write backing");
        done += (size_t)n;
    }
    if (fsync(fd) != 0) die("fsync backing");
    close(fd);
    if (rename(temp, path) != 0) die("rename backing");
}

/* The names as they are now become durable (a journal commit). */
static void commit_namespace(void) {
    size_t room = 64;
    for (size_t i = 0; i < node_count; i++) room += strlen(nodes[i]->path) + 48;
    char *text = malloc(room);
    if (!text) die("malloc");
    size_t used = (size_t)snprintf(text, room, "next %lu\n", next_id);
    for (size_t i = 0; i < node_count; i++)
        used += (size_t)snprintf(text + used, room - used, "%lu %d %o %s\n", nodes[i]->id, nodes[i]->is_dir,
                                 (unsigned)(nodes[i]->mode & 07777), nodes[i]->path);
    write_backing("namespace", text, used);
    free(text);
}

/* A sync of `n` (NULL: a folder's): its data, then every name, reach BACKING. */
static void commit(struct node *n) {
    if (power_cut) return;
    if (n && !n->is_dir) {
        char name[64];
        snprintf(name, sizeof name, "data/%lu", n->id);
        write_backing(name, n->data, n->size);
    }
    commit_namespace();
    syncs_committed++;
}

/* Mounting: the durable state is all there is. */
static void load_backing(void) {
    char path[4200];
    snprintf(path, sizeof path, "%s/data", backing);
    if (mkdir(path, 0700) != 0 && errno != EEXIST) die(path);
    snprintf(path, sizeof path, "%s/namespace", backing);
    FILE *f = fopen(path, "r");
    if (!f) {
        if (errno != ENOENT) die(path);
        add("/", 1, 0755, 0);
        return;
    }
    if (fscanf(f, "next %lu\n", &next_id) != 1) { fprintf(stderr, "powercutfs: %s: bad header\n", path); exit(1); }
    unsigned long id; int is_dir; unsigned mode; char name[4096];
    while (fscanf(f, "%lu %d %o %4095[^\n]\n", &id, &is_dir, &mode, name) == 4) {
        struct node *n = add(name, is_dir, mode, id);
        if (is_dir) continue;
        char data[4200];
        snprintf(data, sizeof data, "%s/data/%lu", backing, id);
        int fd = open(data, O_RDONLY | O_CLOEXEC);
        if (fd < 0) continue;           /* named, never synced: empty */
        struct stat st;
        if (fstat(fd, &st) != 0 || resize(n, (size_t)st.st_size) != 0) die(data);
        size_t done = 0;
        while (done < n->size) {
            ssize_t got = read(fd, n->data + done, n->size - done);
            if (got <= 0) die(data);
            done += (size_t)got;
        }
        close(fd);
    }
    fclose(f);
    if (!find("/")) add("/", 1, 0755, 0);
}

/* ---- The operations ------------------------------------------------------------- */

static void *pc_init(struct fuse_conn_info *conn, struct fuse_config *cfg) {
    (void)conn;
    cfg->entry_timeout = 0;
    cfg->attr_timeout = 0;
    cfg->negative_timeout = 0;
    cfg->hard_remove = 1;       /* SQLite unlinks nothing it keeps open, but no .fuse_hidden files */
    cfg->use_ino = 1;
    return NULL;
}

static int pc_getattr(const char *path, struct stat *st, struct fuse_file_info *fi) {
    (void)fi;
    struct node *n = find(path);
    if (!n) return -ENOENT;
    memset(st, 0, sizeof *st);
    st->st_ino = n->id;
    st->st_mode = (n->is_dir ? S_IFDIR : S_IFREG) | n->mode;
    st->st_nlink = n->is_dir ? 2 : 1;
    st->st_uid = getuid();
    st->st_gid = getgid();
    st->st_size = (off_t)n->size;
    st->st_blocks = (blkcnt_t)((n->size + 511) / 512);
    st->st_blksize = 4096;
    st->st_mtim = st->st_ctim = st->st_atim = n->mtime;
    return 0;
}

static int pc_readdir(const char *path, void *buf, fuse_fill_dir_t fill, off_t offset, struct fuse_file_info *fi,
                      enum fuse_readdir_flags flags) {
    (void)offset; (void)fi; (void)flags;
    struct node *dir = find(path);
    if (!dir) return -ENOENT;
    if (!dir->is_dir) return -ENOTDIR;
    fill(buf, ".", NULL, 0, 0);
    fill(buf, "..", NULL, 0, 0);
    for (size_t i = 0; i < node_count; i++)
        if (is_child(path, nodes[i]->path)) fill(buf, strrchr(nodes[i]->path, '/') + 1, NULL, 0, 0);
    return 0;
}

static int pc_mkdir(const char *path, mode_t mode) {
    if (find(path)) return -EEXIST;
    if (!parent_exists(path)) return -ENOENT;
    add(path, 1, mode & 07777, 0);
    return 0;
}

static int pc_rmdir(const char *path) {
    struct node *n = find(path);
    if (!n) return -ENOENT;
    if (!n->is_dir) return -ENOTDIR;
    for (size_t i = 0; i < node_count; i++)
        if (is_child(path, nodes[i]->path)) return -ENOTEMPTY;
    drop(n);
    return 0;
}

static int pc_create(const char *path, mode_t mode, struct fuse_file_info *fi) {
    (void)fi;
    struct node *n = find(path);
    if (n) {
        if (n->is_dir) return -EISDIR;
        if (fi->flags & O_EXCL) return -EEXIST;
        if (fi->flags & O_TRUNC) resize(n, 0);
        return 0;
    }
    if (!parent_exists(path)) return -ENOENT;
    add(path, 0, mode & 07777, 0);
    return 0;
}

static int pc_open(const char *path, struct fuse_file_info *fi) {
    struct node *n = find(path);
    if (!n) return -ENOENT;
    if (n->is_dir) return -EISDIR;
    if (fi->flags & O_TRUNC) resize(n, 0);
    return 0;
}

static int pc_read(const char *path, char *buf, size_t size, off_t offset, struct fuse_file_info *fi) {
    (void)fi;
    struct node *n = find(path);
    if (!n) return -ENOENT;
    if ((size_t)offset >= n->size) return 0;
    if (size > n->size - (size_t)offset) size = n->size - (size_t)offset;
    memcpy(buf, n->data + offset, size);
    return (int)size;
}

static int pc_write(const char *path, const char *buf, size_t size, off_t offset, struct fuse_file_info *fi) {
    (void)fi;
    struct node *n = find(path);
    if (!n) return -ENOENT;
    size_t end = (size_t)offset + size;
    if (end > n->size) {
        int r = resize(n, end);
        if (r) return r;
    }
    memcpy(n->data + offset, buf, size);
    clock_gettime(CLOCK_REALTIME, &n->mtime);
    return (int)size;
}

static int pc_truncate(const char *path, off_t size, struct fuse_file_info *fi) {
    (void)fi;
    struct node *n = find(path);
    if (!n) return -ENOENT;
    if (n->is_dir) return -EISDIR;
    return resize(n, (size_t)size);
}

static int pc_fallocate(const char *path, int mode, off_t offset, off_t length, struct fuse_file_info *fi) {
    (void)fi;
    struct node *n = find(path);
    if (!n) return -ENOENT;
    if (mode != 0) return -EOPNOTSUPP;
    size_t end = (size_t)(offset + length);
    return end > n->size ? resize(n, end) : 0;
}

static int pc_unlink(const char *path) {
    struct node *n = find(path);
    if (!n) return -ENOENT;
    if (n->is_dir) return -EISDIR;
    drop(n);
    return 0;
}

static int pc_rename(const char *from, const char *to, unsigned int flags) {
    if (flags) return -EINVAL;
    struct node *n = find(from);
    if (!n) return -ENOENT;
    if (!parent_exists(to)) return -ENOENT;
    struct node *old = find(to);
    if (old == n) return 0;
    if (old) {
        if (old->is_dir != n->is_dir) return old->is_dir ? -EISDIR : -ENOTDIR;
        if (old->is_dir) for (size_t i = 0; i < node_count; i++) if (is_child(to, nodes[i]->path)) return -ENOTEMPTY;
        drop(old);
    }
    if (n->is_dir) {
        /* Everything under the folder moves with it. */
        size_t len = strlen(from);
        for (size_t i = 0; i < node_count; i++) {
            struct node *c = nodes[i];
            if (strncmp(c->path, from, len) == 0 && c->path[len] == '/') {
                char *moved = malloc(strlen(to) + strlen(c->path + len) + 1);
                if (!moved) return -ENOMEM;
                strcpy(moved, to); strcat(moved, c->path + len);
                free(c->path); c->path = moved;
            }
        }
    }
    char *moved = strdup(to);
    if (!moved) return -ENOMEM;
    free(n->path);
    n->path = moved;
    return 0;
}

static int pc_fsync(const char *path, int datasync, struct fuse_file_info *fi) {
    (void)datasync; (void)fi;
    struct node *n = find(path);
    if (!n) return -ENOENT;
    commit(n);
    return 0;
}

static int pc_fsyncdir(const char *path, int datasync, struct fuse_file_info *fi) {
    (void)path; (void)datasync; (void)fi;
    commit(NULL);
    return 0;
}

static int pc_chmod(const char *path, mode_t mode, struct fuse_file_info *fi) {
    (void)fi;
    struct node *n = find(path);
    if (!n) return -ENOENT;
    n->mode = mode & 07777;
    return 0;
}

static int pc_chown(const char *path, uid_t uid, gid_t gid, struct fuse_file_info *fi) {
    (void)uid; (void)gid; (void)fi;
    return find(path) ? 0 : -ENOENT;
}

static int pc_utimens(const char *path, const struct timespec tv[2], struct fuse_file_info *fi) {
    (void)fi;
    struct node *n = find(path);
    if (!n) return -ENOENT;
    if (tv && tv[1].tv_nsec != UTIME_OMIT) {
        if (tv[1].tv_nsec == UTIME_NOW) clock_gettime(CLOCK_REALTIME, &n->mtime); else n->mtime = tv[1];
    }
    return 0;
}

static int pc_statfs(const char *path, struct statvfs *st) {
    (void)path;
    memset(st, 0, sizeof *st);
    st->f_bsize = st->f_frsize = 4096;
    st->f_blocks = st->f_bfree = st->f_bavail = 1 << 20;    /* 4 GiB, all free */
    st->f_files = st->f_ffree = 1 << 20;
    st->f_namemax = 255;
    return 0;
}

static const struct fuse_operations operations = {
    .init = pc_init,
    .getattr = pc_getattr,
    .readdir = pc_readdir,
    .mkdir = pc_mkdir,
    .rmdir = pc_rmdir,
    .create = pc_create,
    .open = pc_open,
    .read = pc_read,
    .write = pc_write,
    .truncate = pc_truncate,
    .fallocate = pc_fallocate,
    .unlink = pc_unlink,
    .rename = pc_rename,
    .fsync = pc_fsync,
    .fsyncdir = pc_fsyncdir,
    .chmod = pc_chmod,
    .chown = pc_chown,
    .utimens = pc_utimens,
    .statfs = pc_statfs,
};

static void on_cut(int sig) { (void)sig; power_cut = 1; }

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: powercutfs BACKING MOUNTPOINT  (SIGUSR1: cut the power)\n");
        return 2;
    }
    backing = realpath(argv[1], NULL);
    if (!backing) die(argv[1]);
    load_backing();
    struct sigaction action = { .sa_handler = on_cut };
    sigemptyset(&action.sa_mask);
    /* No SA_RESTART needed: libfuse's loop retries a read that EINTR interrupts. */
    if (sigaction(SIGUSR1, &action, NULL) != 0) die("sigaction");
    char *fuse_argv[] = { argv[0], "-f", "-s", "-o", "fsname=powercutfs,subtype=powercutfs", argv[2], NULL };
    int status = fuse_main(6, fuse_argv, &operations, NULL);
    fprintf(stderr, "powercutfs: unmounted; %lu syncs committed%s\n", syncs_committed, power_cut ? " before the cut" : "");
    return status;
}
