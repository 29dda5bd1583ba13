#!/bin/sh
# tests/debian/test_boot_entry.sh BUILDDIR -- the Debian image, which holds
# capinit as a package (make deb, dpkg -i), as its administrator meets it
# (issue 38).  Two boots of one copy of the disk:
#
#   1. capinit as PID 1 (rootfs/debian/qemu.sh's command line):
#      menu       update-grub in the guest writes GRUB's menu: Debian's
#                 default entry (no init=: systemd), then "Debian GNU/Linux,
#                 with capinit", the image's kernel with
#                 init=/usr/sbin/capinit
#      apt        apt-get install of a daemon the image lacks (cron; its
#                 .deb files wait in /var/cache/capinit-tests) succeeds, and
#                 its postinst's invoke-rc.d is denied by policy-rc.d: no
#                 cron runs; control: invoke-rc.d --force starts it (then
#                 stops it)
#      systemctl  says it cannot operate without systemd, exit 1; poweroff
#                 (systemctl's, through /run/initctl) powers off
#   2. the kernel command line of GRUB's capinit entry, as GRUB would give
#      it (QEMU loads the same kernel and initrd itself: the image is one
#      file system with no boot loader): the kernel says that command line,
#      PID 1 is capinit, every service is ready, cron was not started (it
#      has no service file), and is once the administrator writes one
#      (capctl reload); the power off is clean
#
# Runs as root; every wait is bounded (BOOT_TIMEOUT, 600 s, per boot).
B=${1:-build}
. tests/lib.sh
. tests/debian/guest.sh
guest_setup entry
krel=$(cat "$D/kernel.release")
console() { tr -d '\r' < "$out/console.$n_boot.log"; }

# boot N [CMDLINE]: boot the disk (CMDLINE: the whole kernel command line),
# wait until capinit says every service is ready and ssh answers
n_boot=0
boot() {
  n_boot=$1
  mkdir -p "$out/q$n_boot"
  : > "$out/q$n_boot/console.log"
  DEBIAN_DISK=$out/disk.ext4 DEBIAN_PORTS="$SSH_PORT $SMTP_PORT $HTTP_PORT" DEBIAN_CMDLINE=${2:-} \
    sh rootfs/debian/qemu.sh run "$B" "$out/q$n_boot" &
  qpid=$!
  # qemu.sh writes OUTDIR/console.log; follow it under this boot's name
  ln -sf "$out/q$n_boot/console.log" "$out/console.$n_boot.log"
  n=0
  while ! console | grep -q 'capinit: all [0-9]* services' && kill -0 "$qpid" 2>/dev/null && [ $n -lt $((limit * 4)) ]; do
    sleep 0.25
    n=$((n + 1))
  done
  ready=$(console | sed -n 's/.*capinit: all \([0-9]*\) services ready .*/\1/p')
  [ -n "$ready" ] || { console | tail -n 30 | sed 's/^/#   /'; return 1; }
  n=0
  until [ "$(gssh echo up 2>/dev/null)" = up ]; do
    [ $n -lt 60 ] || return 1
    sleep 1
    n=$((n + 1))
  done
}
# poweroff WHAT: Debian's poweroff, QEMU exits 0
poweroff() {
  gssh poweroff > "$out/poweroff.$n_boot.txt" 2>&1
  n=0
  while kill -0 "$qpid" 2>/dev/null && [ $n -lt 1200 ]; do sleep 0.1; n=$((n + 1)); done
  wait "$qpid"
  t_eq "$?" 0 "$1: Debian's poweroff (systemctl, through /run/initctl): QEMU exits 0"
  qpid=
}

# ------------------------------------------------ boot 1
boot 1
t_ok $? "boot 1 (init=/usr/sbin/capinit on qemu.sh's command line): every service ready, ssh answers"
[ -n "$qpid" ] && kill -0 "$qpid" 2>/dev/null || { t_done; exit 1; }
t_eq "$(gssh cat /proc/1/comm)" capinit "PID 1 is capinit"

# ------------------------------------------------ the menu
gssh 'mkdir -p /boot/grub && update-grub' > "$out/update-grub.txt" 2>&1
t_ok $? "update-grub in the guest"
sed 's/^/#   /' "$out/update-grub.txt"
gssh cat /boot/grub/grub.cfg > "$out/grub.cfg"
entry() { sed -n "/^menuentry '$1'/,/^}/p" "$out/grub.cfg"; }
t_eq "$(grep '^menuentry ' "$out/grub.cfg" | sed 's/ --class.*//')" \
  "menuentry 'Debian GNU/Linux'
menuentry 'Debian GNU/Linux, with capinit'" "GRUB's menu: Debian's entry first (the default), then capinit's"
t_eq "$(entry 'Debian GNU\/Linux' | grep -c 'init=')" 0 "... Debian's boots /sbin/init (systemd): no init="
linux=$(entry 'Debian GNU\/Linux, with capinit' | sed -n 's/^[[:space:]]*linux[[:space:]]*//p')
initrd=$(entry 'Debian GNU\/Linux, with capinit' | sed -n 's/^[[:space:]]*initrd[[:space:]]*//p')
t_eq "$(echo "$linux" | sed 's/ .*//') $initrd $(echo "$linux" | grep -o 'init=[^ ]*$')" \
  "/boot/vmlinuz-$krel /boot/initrd.img-$krel init=/usr/sbin/capinit" \
  "... capinit's boots the image's kernel ($krel) and initrd with init=/usr/sbin/capinit, last"
echo "# capinit's entry: linux $linux"

# ------------------------------------------------ apt-get install of a new daemon
t_eq "$(gssh 'pgrep -x cron; dpkg-query -W -f "\${Status}" cron 2>&1')" "unknown ok not-installed" \
  "control: cron is neither installed nor running"
gssh 'apt-get install -y -q /var/cache/capinit-tests/*.deb' > "$out/apt.txt" 2>&1
t_ok $? "apt-get install cron under capinit succeeds"
sed 's/^/#   /' "$out/apt.txt" | tail -n 6
t_eq "$(grep -c 'invoke-rc.d: policy-rc.d denied execution of start' "$out/apt.txt")" 1 \
  "... cron's postinst asked invoke-rc.d to start it: policy-rc.d said no"
t_eq "$(gssh 'dpkg-query -W -f "\${Status}" cron; echo; pgrep -x cron | wc -l')" "install ok installed
0" "... cron is installed, and not running: capinit has no service file for it"
# the daemon is the cron whose parent is PID 1 (capinit): a job it runs
# (cron.daily at 6:25...) is a cron too, its child, for a while
t_eq "$(gssh 'invoke-rc.d --force cron start >/dev/null 2>&1; sleep 1; pgrep -x -P 1 cron | wc -l')" 1 \
  "control: invoke-rc.d --force, which passes over the policy, starts it"
t_eq "$(gssh 'invoke-rc.d --force cron stop >/dev/null 2>&1; sleep 1; pgrep -x -P 1 cron | wc -l')" 0 \
  "... and stops it again"

# ------------------------------------------------ systemctl
gssh systemctl status cron > "$out/systemctl.txt" 2>&1
t_eq "$?:$(head -n 1 "$out/systemctl.txt")" \
  "1:System has not been booted with systemd as init system (PID 1). Can't operate." \
  "systemctl under capinit: it cannot operate, and says why (exit 1)"
poweroff "boot 1"

# ------------------------------------------------ boot 2: GRUB's capinit entry
cmdline=${linux#* }
boot 2 "$cmdline"
t_ok $? "boot 2, with the command line of GRUB's capinit entry: every service ready, ssh answers"
[ -n "$qpid" ] && kill -0 "$qpid" 2>/dev/null || { t_done; exit 1; }
t_eq "$(gssh cat /proc/cmdline)" "$cmdline" "... the kernel's command line is the entry's"
t_eq "$(gssh 'cat /proc/1/comm; pgrep -x cron | wc -l')" "capinit
0" "... PID 1 is capinit, and cron, installed without a service file, was not started"
gssh capctl status > "$out/status.txt" 2>&1
t_eq "$?" 0 "... capctl status: every service up"
# the administrator writes cron's service file: capinit starts it
gssh 'printf "command = /usr/sbin/cron -f\nmode = legacy\n" > /etc/capinit/services/cron.svc &&
  capctl check && capctl reload && sleep 2 && capctl status cron >/dev/null && pgrep -x -P 1 cron | wc -l' > "$out/cron.txt" 2>&1
t_eq "$?:$(tail -n 1 "$out/cron.txt")" "0:1" "cron.svc written, capctl reload: capinit starts cron, and it runs"
sed 's/^/#   /' "$out/cron.txt"
poweroff "boot 2"
e2fsck -fn "$out/disk.ext4" > "$out/e2fsck.txt" 2>&1
t_eq "$?" 0 "e2fsck -fn on the host: the disk is clean"
t_done
