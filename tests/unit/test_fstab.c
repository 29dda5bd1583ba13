/* Unit tests: the mount tables (conf/fstab.c).
 *
 *   1. good fstab lines, each entry shown whole: fields (octal escapes
 *      decoded), mount(2) flags and data, propagation, swapon(2) flags,
 *      switches.  The expected flags are the kernel's ABI values
 *      (include/uapi/linux/mount.h, swap.h) written as numbers here, not
 *      the MS_ names the parser uses;
 *   2. bad lines: the exact problem ("LINE: message"), the entries kept
 *      (a bad line is skipped whole), whether the root's line was bad;
 *      each with its twin, the bad line corrected, which must parse with
 *      no problem (the refusal comes from the fault, not the fixture);
 *   3. fstab_unescape alone;
 *   4. /proc/self/mountinfo lines as the kernel writes them (optional
 *      fields, escapes), and lines that are not;
 *   5. the file itself: missing, a directory (fstab_load).
 * The kernel's own reading of the options is compared with util-linux's
 * mount in tests/system/test_fstab.sh. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../conf/diag.h"
#include "../../conf/fstab.h"
#include "t.h"

#define TEXT(s) s, sizeof(s) - 1

/* One entry as a line: LINE SPEC FILE TYPE flags=0x.. data=.. prop=0x..
 * swap=0x.. [noauto] [nofail] [netdev] [required] [swap] FREQ PASS */
static void show(fstab_entry const *e, char *out, size_t len)
{
  snprintf(out, len, "%u %s %s %s flags=%#lx data=%s prop=%#lx swap=%#x%s%s%s%s%s %u %u\n", e->line, e->spec,
           e->file, e->type, e->flags, e->data, e->propagation, (unsigned)e->swapflags, e->noauto ? " noauto" : "",
           e->nofail ? " nofail" : "", e->netdev ? " netdev" : "", e->required ? " required" : "",
           e->swap ? " swap" : "", e->freq, e->passno);
}

/* Every entry and every problem of a parse, as text. */
static void parse(char const *text, size_t len, char *entries, char *problems, size_t cap, unsigned *bad_root)
{
  diag_list d = { 0, 0, 0 };
  fstab f = { 0, 0, 0 };
  size_t i, w = 0;
  fstab_parse(&d, "fstab", text, len, &f);
  entries[0] = problems[0] = 0;
  for (i = 0; i < f.n; i++) {
    show(&f.v[i], entries + w, cap - w);
    w += strlen(entries + w);
  }
  for (i = 0, w = 0; i < d.n; i++) {
    snprintf(problems + w, cap - w, "%u: %s\n", d.v[i].line, d.v[i].text);
    w += strlen(problems + w);
  }
  *bad_root = f.bad_root;
  fstab_free(&f);
  diag_free(&d);
}

typedef struct good_s {
  char const *what, *text, *want;
} good;

/* MS_RDONLY 0x1, NOSUID 0x2, NODEV 0x4, NOEXEC 0x8, SYNCHRONOUS 0x10,
 * MANDLOCK 0x40, DIRSYNC 0x80, NOSYMFOLLOW 0x100, NOATIME 0x400,
 * NODIRATIME 0x800, BIND 0x1000, REC 0x4000, SILENT 0x8000, UNBINDABLE
 * 0x20000, PRIVATE 0x40000, SLAVE 0x80000, SHARED 0x100000, RELATIME
 * 0x200000, STRICTATIME 0x1000000, LAZYTIME 0x2000000; SWAP_FLAG_PREFER
 * 0x8000 | priority, DISCARD 0x10000, DISCARD_ONCE 0x20000, DISCARD_PAGES
 * 0x40000. */
static good const goods[] = {
  { "a Debian installer's fstab",
    "# /etc/fstab: static file system information.\n"
    "#\n"
    "# <file system> <mount point>   <type>  <options>       <dump>  <pass>\n"
    "UUID=0a3407de-014b-458b-b5c1-848e92a327a3 /               ext4    errors=remount-ro 0       1\n"
    "UUID=76e2a9d1-86c8-4b4a-8c5c-0d1a5a2fa1c2 none            swap    sw              0       0\n"
    "/dev/sr0        /media/cdrom0   udf,iso9660 user,noauto     0       0\n",
    "4 UUID=0a3407de-014b-458b-b5c1-848e92a327a3 / ext4 flags=0 data=errors=remount-ro prop=0 swap=0 0 1\n"
    "5 UUID=76e2a9d1-86c8-4b4a-8c5c-0d1a5a2fa1c2 none swap flags=0 data= prop=0 swap=0 swap 0 0\n"
    "6 /dev/sr0 /media/cdrom0 udf,iso9660 flags=0xe data= prop=0 swap=0 noauto 0 0\n" },
  { "three fields only: options defaults, dump and pass 0",
    "tmpfs /tmp tmpfs\n", "1 tmpfs /tmp tmpfs flags=0 data= prop=0 swap=0 0 0\n" },
  { "every flag word, set then cleared in order",
    "/dev/a /a ext4 ro,nosuid,nodev,noexec,sync,dirsync,noatime,nodiratime,relatime,strictatime,lazytime,mand,silent,nosymfollow\n"
    "/dev/b /b ext4 ro,nosuid,nodev,noexec,sync,noatime,nodiratime,relatime,strictatime,lazytime,mand,silent,nosymfollow,"
    "rw,suid,dev,exec,async,atime,diratime,norelatime,nostrictatime,nolazytime,nomand,loud,symfollow\n",
    "1 /dev/a /a ext4 flags=0x3208ddf data= prop=0 swap=0 0 0\n"
    "2 /dev/b /b ext4 flags=0 data= prop=0 swap=0 0 0\n" },
  { "the file system's own options go to data, in order, flags out",
    "/dev/vdb /data ext4 rw,nosuid,commit=7,noatime,errors=remount-ro,data=ordered 0 2\n",
    "1 /dev/vdb /data ext4 flags=0x402 data=commit=7,errors=remount-ro,data=ordered prop=0 swap=0 0 2\n" },
  { "a quoted value keeps its commas",
    "tmpfs /t tmpfs context=\"system_u:object_r:tmp_t:s0:c127,c456\",ro\n",
    "1 tmpfs /t tmpfs flags=0x1 data=context=\"system_u:object_r:tmp_t:s0:c127,c456\" prop=0 swap=0 0 0\n" },
  { "user and users imply noexec, nosuid, nodev; owner and group nosuid, nodev; later words win",
    "/dev/a /a vfat user\n/dev/b /b vfat users,exec,dev\n/dev/c /c vfat owner\n/dev/d /d vfat exec,group\n/dev/e /e vfat nouser\n",
    "1 /dev/a /a vfat flags=0xe data= prop=0 swap=0 0 0\n"
    "2 /dev/b /b vfat flags=0x2 data= prop=0 swap=0 0 0\n"
    "3 /dev/c /c vfat flags=0x6 data= prop=0 swap=0 0 0\n"
    "4 /dev/d /d vfat flags=0x6 data= prop=0 swap=0 0 0\n"
    "5 /dev/e /e vfat flags=0 data= prop=0 swap=0 0 0\n" },
  { "what only PID 1 reads: noauto, nofail, _netdev, x-capinit.required; x-* and comment= dropped",
    "/dev/a /a ext4 noauto,x-systemd.automount,comment=systemd.foo\n"
    "/dev/b /b ext4 nofail,auto\n"
    "srv:/x /c nfs _netdev,vers=4\n"
    "/dev/d /d ext4 x-capinit.required,noauto,auto\n",
    "1 /dev/a /a ext4 flags=0 data= prop=0 swap=0 noauto 0 0\n"
    "2 /dev/b /b ext4 flags=0 data= prop=0 swap=0 nofail 0 0\n"
    "3 srv:/x /c nfs flags=0 data=vers=4 prop=0 swap=0 netdev 0 0\n"
    "4 /dev/d /d ext4 flags=0 data= prop=0 swap=0 required 0 0\n" },
  { "bind mounts and propagation",
    "/srv /mnt/srv none bind,ro\n/a /b none rbind,rshared\n/c /d none bind,private,slave\n/e /f none bind,runbindable\n",
    "1 /srv /mnt/srv none flags=0x1001 data= prop=0 swap=0 0 0\n"
    "2 /a /b none flags=0x5000 data= prop=0x104000 swap=0 0 0\n"
    "3 /c /d none flags=0x1000 data= prop=0x80000 swap=0 0 0\n"
    "4 /e /f none flags=0x1000 data= prop=0x24000 swap=0 0 0\n" },
  { "swap areas: priority, discard; the mount point is not read",
    "/dev/vdc none swap sw,pri=7,discard\n/swapfile swap swap pri=0,discard=once\n/dev/zram0 x swap defaults,pri=32767,discard=pages,nofail\n"
    "/s2 none swap pri=-1,noauto\n",
    "1 /dev/vdc none swap flags=0 data= prop=0 swap=0x18007 swap 0 0\n"
    "2 /swapfile swap swap flags=0 data= prop=0 swap=0x38000 swap 0 0\n"
    "3 /dev/zram0 x swap flags=0 data= prop=0 swap=0x5ffff nofail swap 0 0\n"
    "4 /s2 none swap flags=0 data= prop=0 swap=0 noauto swap 0 0\n" },
  { "octal escapes in every field; other backslashes stay",
    "/dev/disk/by-label/my\\040disk /mnt/my\\040data\\011tab ext4 uid=1\\0540 0 0\n"
    "LABEL=a\\134b /x\\ny\\400 vfat defaults\n",
    "1 /dev/disk/by-label/my disk /mnt/my data\ttab ext4 flags=0 data=uid=1,0 prop=0 swap=0 0 0\n"
    "2 LABEL=a\\b /x\\ny\\400 vfat flags=0 data= prop=0 swap=0 0 0\n" },
  { "blanks and tabs around and between, trailing slashes, empty option words",
    " \t/dev/a\t\t/data/ \text4  rw,,nosuid,  0\t2 \n/dev/b // ext4 defaults\n",
    "1 /dev/a /data ext4 flags=0x2 data= prop=0 swap=0 0 2\n"
    "2 /dev/b / ext4 flags=0 data= prop=0 swap=0 0 0\n" },
  { "no newline at the end, comments, indented comments, blank lines",
    "\n# one\n   # two\n\t\n/dev/a /a ext4 ro 0 0",
    "5 /dev/a /a ext4 flags=0x1 data= prop=0 swap=0 0 0\n" },
  { "the same mount point twice (the second covers the first)",
    "tmpfs /t tmpfs size=1m\ntmpfs /t tmpfs size=2m\n",
    "1 tmpfs /t tmpfs flags=0 data=size=1m prop=0 swap=0 0 0\n"
    "2 tmpfs /t tmpfs flags=0 data=size=2m prop=0 swap=0 0 0\n" },
  { "an empty fstab", "", "" },
};

typedef struct bad_s {
  char const *what;
  char const *text;
  size_t len;
  char const *want;        /* every problem: "LINE: message\n" */
  char const *kept;        /* the entries kept */
  unsigned bad_root;
  char const *twin;        /* the fault corrected */
} bad;

#define OK_A "/dev/a /a ext4 defaults 0 0\n"
#define OK_B "tmpfs /b tmpfs size=1m\n"
#define KEPT_AB "1 /dev/a /a ext4 flags=0 data= prop=0 swap=0 0 0\n3 tmpfs /b tmpfs flags=0 data=size=1m prop=0 swap=0 0 0\n"
#define LONG64 "x123456789012345678901234567890123456789012345678901234567890123"
#define LONG1K LONG64 LONG64 LONG64 LONG64 LONG64 LONG64 LONG64 LONG64 LONG64 LONG64 LONG64 LONG64 LONG64 LONG64 LONG64 LONG64

static bad const bads[] = {
  { "two fields", TEXT(OK_A "/dev/sda1 /mnt\n" OK_B),
    "2: expected DEVICE MOUNTPOINT TYPE [OPTIONS [DUMP [PASS]]]\n", KEPT_AB, 0, OK_A "/dev/sda1 /mnt ext4\n" OK_B },
  { "a trailing comment", TEXT(OK_A "/dev/sda1 /mnt ext4 defaults 0 0 # data\n" OK_B),
    "2: more than 6 fields (a comment must be a line of its own)\n", KEPT_AB, 0,
    OK_A "/dev/sda1 /mnt ext4 defaults 0 0\n" OK_B },
  { "seven fields, the seventh with \\000 (found by fuzz_fstab)", TEXT(OK_A "/dev/sda1 /mnt ext4 defaults 0 0 x\\000\n" OK_B),
    "2: more than 6 fields (a comment must be a line of its own)\n", KEPT_AB, 0,
    OK_A "/dev/sda1 /mnt ext4 defaults 0 0\n" OK_B },
  { "a relative mount point", TEXT(OK_A "/dev/sda1 mnt ext4\n" OK_B),
    "2: 'mnt': the mount point must be an absolute path\n", KEPT_AB, 0, OK_A "/dev/sda1 /mnt ext4\n" OK_B },
  { "'..' in a mount point", TEXT(OK_A "/dev/sda1 /mnt/../etc ext4\n" OK_B),
    "2: '/mnt/../etc': '..' is not allowed in a mount point\n", KEPT_AB, 0, OK_A "/dev/sda1 /mnt/..etc ext4\n" OK_B },
  { "'..' at the end of a mount point", TEXT(OK_A "/dev/sda1 /mnt/.. ext4\n" OK_B),
    "2: '/mnt/..': '..' is not allowed in a mount point\n", KEPT_AB, 0, OK_A "/dev/sda1 /mnt/x.. ext4\n" OK_B },
  { "a dump frequency that is not a number", TEXT(OK_A "/dev/sda1 /mnt ext4 defaults x 0\n" OK_B),
    "2: 'x': expected a number (the dump frequency)\n", KEPT_AB, 0, OK_A "/dev/sda1 /mnt ext4 defaults 1 0\n" OK_B },
  { "a negative fsck pass", TEXT(OK_A "/dev/sda1 /mnt ext4 defaults 0 -1\n" OK_B),
    "2: '-1': expected a number (the fsck pass)\n", KEPT_AB, 0, OK_A "/dev/sda1 /mnt ext4 defaults 0 1\n" OK_B },
  { "\\000 in a mount point", TEXT(OK_A "/dev/sda1 /mnt\\000x ext4\n" OK_B),
    "2: the mount point: \\000 is not allowed (no name holds a NUL byte)\n", KEPT_AB, 0,
    OK_A "/dev/sda1 /mnt\\040x ext4\n" OK_B },
  { "an empty LABEL=", TEXT(OK_A "LABEL= /mnt ext4\n" OK_B),
    "2: 'LABEL=' names no device: a value must follow the '='\n", KEPT_AB, 0, OK_A "LABEL=x /mnt ext4\n" OK_B },
  { "loop", TEXT(OK_A "/srv/img /mnt ext4 ro,loop\n" OK_B),
    "2: 'loop': capinit sets up no loop device: name a block device\n", KEPT_AB, 0,
    OK_A "/dev/loop0 /mnt ext4 ro\n" OK_B },
  { "offset=", TEXT(OK_A "/srv/img /mnt ext4 offset=1048576\n" OK_B),
    "2: 'offset': capinit sets up no loop device: name a block device\n", KEPT_AB, 0,
    OK_A "/dev/loop0 /mnt ext4\n" OK_B },
  { "remount", TEXT(OK_A "/dev/sda1 /mnt ext4 remount,ro\n" OK_B),
    "2: 'remount' is a command of mount(8), not an fstab option\n", KEPT_AB, 0, OK_A "/dev/sda1 /mnt ext4 ro\n" OK_B },
  { "a mount option on a swap area", TEXT(OK_A "/dev/sdb none swap sw,noexec\n" OK_B),
    "2: 'noexec' is not a swap option (pri=N, discard, nofail, noauto)\n", KEPT_AB, 0,
    OK_A "/dev/sdb none swap sw\n" OK_B },
  { "a file system option on a swap area", TEXT(OK_A "/dev/sdb none swap size=1m\n" OK_B),
    "2: 'size=1m' is not a swap option (pri=N, discard, nofail, noauto)\n", KEPT_AB, 0,
    OK_A "/dev/sdb none swap defaults\n" OK_B },
  { "a swap priority out of range", TEXT(OK_A "/dev/sdb none swap pri=32768\n" OK_B),
    "2: 'pri=32768' is not a swap option (pri=N, discard, nofail, noauto)\n", KEPT_AB, 0,
    OK_A "/dev/sdb none swap pri=32767\n" OK_B },
  { "nofail and x-capinit.required", TEXT(OK_A "/dev/sdb /srv ext4 nofail,x-capinit.required\n" OK_B),
    "2: 'nofail' and 'x-capinit.required' contradict each other\n", KEPT_AB, 0,
    OK_A "/dev/sdb /srv ext4 x-capinit.required\n" OK_B },
  { "options longer than mount(2) takes",
    TEXT(OK_A "/dev/sdb /srv ext4 " LONG1K "," LONG1K "," LONG1K "," LONG1K "\n" OK_B),
    "2: the file system's options are 4099 bytes: mount(2) takes at most 4095\n", KEPT_AB, 0,
    OK_A "/dev/sdb /srv ext4 " LONG1K "," LONG1K "," LONG1K "\n" OK_B },
  { "a control character", TEXT(OK_A "/dev/sdb\x01 /srv ext4\n" OK_B),
    "2: control character in line (binary file?)\n", KEPT_AB, 0, OK_A "/dev/sdb /srv ext4\n" OK_B },
  { "a carriage return (CRLF line)", TEXT(OK_A "/dev/sdb /srv ext4\r\n" OK_B),
    "2: control character in line (binary file?)\n", KEPT_AB, 0, OK_A "/dev/sdb /srv ext4\n" OK_B },
  { "a bad root line is remembered", TEXT(OK_A "/dev/vda / ext4 defaults 0 x\n" OK_B),
    "2: 'x': expected a number (the fsck pass)\n", KEPT_AB, 2, OK_A "/dev/vda / ext4 defaults 0 1\n" OK_B },
  { "a root line with a bad option", TEXT(OK_A "/dev/vda / ext4 rw,loop\n" OK_B),
    "2: 'loop': capinit sets up no loop device: name a block device\n", KEPT_AB, 2, OK_A "/dev/vda / ext4 rw\n" OK_B },
  { "a root line with two fields, after a good root line", TEXT("/dev/vda / ext4\n/dev/vda /\n"),
    "2: expected DEVICE MOUNTPOINT TYPE [OPTIONS [DUMP [PASS]]]\n",
    "1 /dev/vda / ext4 flags=0 data= prop=0 swap=0 0 0\n", 2, "/dev/vda / ext4\n" },
  { "'/' as a swap area's mount point is not the root", TEXT(OK_A "/dev/sdb / swap sw,ro\n" OK_B),
    "2: 'ro' is not a swap option (pri=N, discard, nofail, noauto)\n", KEPT_AB, 0, OK_A "/dev/sdb / swap sw\n" OK_B },
};

int main(void)
{
  static char ebuf[65536], pbuf[65536];
  char *entries = ebuf, *problems = pbuf;  /* pointers: t_streq checks for NULL */
  size_t i;
  unsigned root;

  /* 1. good lines */
  for (i = 0; i < sizeof goods / sizeof goods[0]; i++) {
    parse(goods[i].text, strlen(goods[i].text), entries, problems, sizeof ebuf, &root);
    t_streq(problems, "", "good: %s: no problem", goods[i].what);
    t_streq(entries, goods[i].want, "good: %s: every entry", goods[i].what);
  }

  /* 2. bad lines, and their twins */
  for (i = 0; i < sizeof bads / sizeof bads[0]; i++) {
    parse(bads[i].text, bads[i].len, entries, problems, sizeof ebuf, &root);
    t_streq(problems, bads[i].want, "bad: %s: the problem, with its line", bads[i].what);
    t_streq(entries, bads[i].kept, "bad: %s: the other lines kept", bads[i].what);
    t_ueq(root, bads[i].bad_root, "bad: %s: the root's line is %s", bads[i].what, bads[i].bad_root ? "bad" : "not bad");
    parse(bads[i].twin, strlen(bads[i].twin), entries, problems, sizeof ebuf, &root);
    t_streq(problems, "", "bad: %s: control: corrected, no problem", bads[i].what);
    t_ueq(root, 0, "bad: %s: control: the root's line is not bad", bads[i].what);
  }
  {
    /* too many problems: the rest is not read */
    static char many[4096];
    size_t w = 0;
    for (i = 0; i < 25; i++) w += (size_t)snprintf(many + w, sizeof many - w, "x\n");
    snprintf(many + w, sizeof many - w, OK_A);
    parse(many, strlen(many), entries, problems, sizeof ebuf, &root);
    t_ok(strstr(problems, "21: too many problems: the rest of this file is not read\n") != 0,
         "bad: 25 bad lines: 21 reported, then 'too many problems'");
    t_streq(entries, "", "bad: 25 bad lines: the good line after them is not read");
  }

  /* 3. the escapes alone */
  {
    char sbuf[64], *s = sbuf;
    strcpy(s, "a\\040b\\011c\\012d\\134e\\377");
    t_ueq(fstab_unescape(s), 0, "unescape: space, tab, newline, backslash, \\377");
    t_streq(s, "a b\tc\nd\\e\377", "unescape: decoded in place");
    strcpy(s, "\\04\\0a\\8\\400\\");
    t_ueq(fstab_unescape(s), 0, "unescape: short, non-octal and out-of-range escapes are not escapes");
    t_streq(s, "\\04\\0a\\8\\400\\", "unescape: they stay as they are");
    strcpy(s, "x\\000y");
    t_ueq(fstab_unescape(s) + 1, 0, "unescape: \\000 is refused");
  }

  /* 4. mountinfo */
  {
    static char mi[] =
      "22 1 0:21 / /proc rw,nosuid,nodev,noexec,relatime shared:5 - proc proc rw\n"
      "23 22 0:5 / /dev rw,nosuid,relatime shared:2 - devtmpfs devtmpfs rw,size=100532k,mode=755\n"
      "29 1 254:16 / /data rw,nosuid,nodev,noatime - ext4 /dev/vdb rw,commit=7\n"
      "30 29 0:33 /sub /mnt/with\\040space\\011tab rw,relatime master:1 propagate_from:2 - tmpfs my\\040tmpfs rw\n"
      "not a mountinfo line\n"
      "31 1 0:34 / /x rw - ext4\n"
      "32 1 0:35 / /y rw shared:7\n"
      "33 1 8:1 / /last rw - vfat /dev/sda1 rw";
    mountinfo_entry v[8];
    char bbuf[4096], *buf = bbuf;
    size_t n, w = 0;
    n = mountinfo_parse(mi, sizeof mi - 1, v, 8);
    t_ueq(n, 5, "mountinfo: 5 entries; a line that is not one, one without source, one without '-' skipped");
    for (i = 0; i < n; i++)
      w += (size_t)snprintf(buf + w, sizeof bbuf - w, "%u %u %u:%u [%s] [%s] [%s] [%s] [%s] [%s]\n", v[i].id, v[i].parent,
                            v[i].major, v[i].minor, v[i].root, v[i].point, v[i].options, v[i].type, v[i].source,
                            v[i].super);
    t_streq(buf,
            "22 1 0:21 [/] [/proc] [rw,nosuid,nodev,noexec,relatime] [proc] [proc] [rw]\n"
            "23 22 0:5 [/] [/dev] [rw,nosuid,relatime] [devtmpfs] [devtmpfs] [rw,size=100532k,mode=755]\n"
            "29 1 254:16 [/] [/data] [rw,nosuid,nodev,noatime] [ext4] [/dev/vdb] [rw,commit=7]\n"
            "30 29 0:33 [/sub] [/mnt/with space\ttab] [rw,relatime] [tmpfs] [my tmpfs] [rw]\n"
            "33 1 8:1 [/] [/last] [rw] [vfat] [/dev/sda1] [rw]\n",
            "mountinfo: every field, escapes decoded, optional fields passed over, the last line without a newline");
    t_ueq(mountinfo_lines("a\nb\nc", 5), 3, "mountinfo: lines counted, the last without a newline too");
    t_ueq(mountinfo_lines("a\nb\n", 4), 2, "mountinfo: lines counted");
    {
      static char two[] = "1 0 0:1 / / rw - ext4 /dev/vda rw\n2 1 0:2 / /a rw - ext4 /dev/vdb rw\n";
      t_ueq(mountinfo_parse(two, sizeof two - 1, v, 1), 1, "mountinfo: never more entries than room");
    }
  }

  /* 5. the file */
  {
    diag_list d = { 0, 0, 0 };
    fstab f = { 0, 0, 0 };
    char dir[] = "/tmp/capinit-fstab.XXXXXX", path[64];
    FILE *fp;
    t_ok(mkdtemp(dir) != 0, "file: a temporary directory");
    snprintf(path, sizeof path, "%s/none", dir);
    t_ueq(fstab_load(&d, path, &f) + 1, 0, "file: a missing fstab is an error");
    t_ok(d.n == 1 && !strcmp(d.v[0].text, "unable to open: No such file or directory"), "file: missing: 'unable to open'");
    diag_free(&d);
    t_ueq(fstab_load(&d, dir, &f) + 1, 0, "file: a directory is an error");
    t_ok(d.n == 1 && !strcmp(d.v[0].text, "is a directory, not a file"), "file: a directory: 'is a directory'");
    diag_free(&d);
    snprintf(path, sizeof path, "%s/fstab", dir);
    fp = fopen(path, "w");
    if (fp) {
      fputs(OK_A, fp);
      fclose(fp);
    }
    t_ueq(fstab_load(&d, path, &f), 0, "file: control: a good fstab loads");
    t_ok(f.n == 1 && !strcmp(f.v[0].file, "/a"), "file: control: its entry");
    fstab_free(&f);
    diag_free(&d);
    unlink(path);
    rmdir(dir);
  }
  return t_done();
}
