#!/bin/sh
# rootfs/debian/import.sh ROOT CAPCTL OUT -- the Debian image's service
# files made by capctl import (issue 37; make debian DEBIAN_SERVICES=import,
# rootfs/debian/build.sh): the image's own systemd units of its daemons,
# read in ROOT (the image's tree, after the overlay and configure.sh),
# converted by CAPCTL import -R ROOT into ROOT/etc/capinit/services in
# place of the hand-written files.  The report (UNIT:LINE lines and the
# counts) goes to OUT/report, a copy of each file written to OUT/NAME.svc
# (rootfs/debian/compare.py reads them).
#
# Each file keeps capctl import's output as it is, under the hand-written
# file's name (the tests and capctl's verbs name the services so), with
# what the units cannot say appended after a marker line:
#
#   network oneshot  kept, hand-written: Debian's units order themselves
#                    after network.target, which systemd-networkd reaches
#                    (/etc/systemd/network/10-eth0.network); capinit runs
#                    no networkd, and its network oneshot sets the same
#                    address.  Every imported daemon but the getty gets
#                    after = network.
#   tmpfiles         imported too (systemd-tmpfiles-setup.service, the
#                    oneshot systemd runs at boot): the units rely on what
#                    its tmpfiles.d lines make in /run, /run/lock above all
#                    (apachectl makes its lock directory there).  Every
#                    imported daemon gets after = tmpfiles.
#   rundirs,         dropped: what they did for the hand-written files
#   postfix-chroot   (RuntimeDirectory= for non-root daemons, /dev/log for
#                    a rsyslog with a /dev of its own, the chroot's
#                    copies) the imported files do themselves: ssh's and
#                    chrony's scripts make /run/sshd and /run/chrony, as
#                    systemd would (they run as root), nginx as root
#                    writes its pid file, rsyslog as root binds /dev/log,
#                    and postfix@-'s ExecStartPre= runs configure-instance.sh.
#   the cards        postfix's and apache2's network = macvlan:eth0,
#                    address and gateway are capinit's own (no unit says
#                    them): added, with the hand-written files' addresses,
#                    since the image's forwards lead there under capinit
#                    (rootfs/debian/qemu.sh).
#   postfix's PIDs  private-pids = yes: capinit stops a service by its
#                    process group, and postfix start-fg (import's
#                    foreground for postmulti -p start) runs master -s,
#                    which makes a session of its own: capctl stop postfix
#                    left the master running (measured), and every trial
#                    of capctl learn would have met the previous master
#                    ("already running", exit 1) while the check passed on
#                    it.  A PID namespace of its own ends with its reaper.
#                    (postfix stop, reload and status outside then read a
#                    pid of that namespace: capctl stop and restart
#                    instead.)
#   apache2 -D capinit  the image's ports.conf listens on 80 only with
#                    -D capinit (rootfs/debian/configure.sh: under systemd
#                    it shares the guest's address with nginx, on 81);
#                    apachectl adds APACHE_ARGUMENTS to its command.
#
# Not imported: dbus (nothing in the image uses it under capinit, and it
# needs /run/dbus, which systemd makes) and cron (not installed: the
# package's test installs it under capinit).  Every file must pass
# capctl check -R ROOT (build.sh checks the whole directory after).
set -eu
[ $# = 3 ] || { echo "usage: rootfs/debian/import.sh ROOT CAPCTL OUT" >&2; exit 100; }
R=$1 CAPCTL=$2 OUT=$3 REPORT=$3/report
rm -rf "$OUT"
mkdir -p "$OUT"
die() { echo "rootfs/debian/import.sh: fatal: $*" >&2; exit 111; }
S=$R/etc/capinit/services
T=$(mktemp -d "${TMPDIR:-/tmp}/capinit-import.XXXXXX")
trap 'rm -rf "$T"' EXIT

# UNIT NAME: the unit, and the name of the service file it becomes
DAEMONS="ssh.service:sshd postfix@-.service:postfix nginx.service:nginx apache2.service:apache2
chrony.service:chrony rsyslog.service:rsyslog serial-getty@ttyS0.service:getty
systemd-tmpfiles-setup.service:tmpfiles"
set --
for d in $DAEMONS; do set -- "$@" "${d%%:*}"; done
"$CAPCTL" import -R "$R" -o "$T" "$@" > "$REPORT" 2>&1 ||
  { cat "$REPORT" >&2; die "capctl import refused a unit of the image's daemons"; }

for f in sshd postfix postfix-chroot nginx apache2 chrony rsyslog getty rundirs; do
  rm -f "$S/$f.svc"
done
for d in $DAEMONS; do
  u=${d%%:*} n=${d#*:}
  case $n in
    getty|tmpfiles) cp "$T/${u%.service}.svc" "$S/$n.svc" ;;
    *) sed 's/^after = .*/&, network, tmpfiles/' "$T/${u%.service}.svc" > "$S/$n.svc" ;;
  esac
  {
    echo
    echo "# --- what the unit cannot say, added by rootfs/debian/import.sh"
    # (one after key a file: import's own line, when it has one, gains it)
    if [ $n != getty ] && [ $n != tmpfiles ] && ! grep -q '^after = ' "$S/$n.svc"; then
      echo "# the network oneshot stands for systemd-networkd's network.target; tmpfiles makes /run's directories"
      echo "after = network, tmpfiles"
    fi
    case $n in
      postfix)
        echo "# capinit's own: a network card of postfix's own (the image's forwards lead there)"
        echo "network = macvlan:eth0"
        echo "address = 10.0.2.25/24"
        echo "gateway = 10.0.2.2"
        echo "# capinit stops a service by its process group; postfix start-fg's master -s makes a session of"
        echo "# its own and would outlive every stop: in a PID namespace of its own, it ends with it"
        echo "private-pids = yes" ;;
      apache2)
        echo "# capinit's own: a network card of apache2's own (the image's forwards lead there)"
        echo "network = macvlan:eth0"
        echo "address = 10.0.2.80/24"
        echo "gateway = 10.0.2.2"
        echo "# the image's ports.conf listens on 80 under -D capinit (configure.sh)"
        echo "environment = APACHE_ARGUMENTS=-D capinit" ;;
    esac
  } >> "$S/$n.svc"
  cp "$S/$n.svc" "$OUT/$n.svc"
done
