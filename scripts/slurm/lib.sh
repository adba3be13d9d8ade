# Shared by scripts/slurm/local-cluster and scripts/cluster/slurm (sourced):
# Slurm's packages and munge, the one authentication daemon every Slurm
# daemon on this machine uses (its socket is a file, seen from every network
# namespace).

# Where munge_start notes that it started munged, so that only a munged TRA
# started is stopped (a machine's own, serving a real cluster, is left alone).
MUNGE_MARK=/run/tra-munged-started

# Installs slurm-wlm and munge where they are missing.
slurm_install() {
  dpkg-query -W -f='${Status}' slurm-wlm 2>/dev/null | grep -q "install ok installed" ||
    { $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends slurm-wlm munge; }
}

# A live process of that name (one that has exited and waits to be reaped is not).
live() { $SUDO pgrep -x "$1" -r R,S,D > /dev/null; }

# Starts munged (with a key made on first use) unless it runs.
munge_start() {
  live munged && return 0
  $SUDO mkdir -p /etc/munge /var/lib/munge /var/log/munge /run/munge
  [[ -f /etc/munge/munge.key ]] || $SUDO mungekey -c
  $SUDO chown -R munge:munge /etc/munge /var/lib/munge /var/log/munge /run/munge
  $SUDO su -s /bin/sh munge -c /usr/sbin/munged
  $SUDO touch "$MUNGE_MARK"
}

# Stops the munged munge_start started once no Slurm daemon is left to use it
# (the local cluster's and every emulated cluster's share it).
munge_stop_if_unused() {
  [[ -f $MUNGE_MARK ]] || return 0
  if ! live slurmd && ! live slurmctld; then
    $SUDO pkill -x munged || true
    for _ in $(seq 50); do live munged || break; sleep 0.1; done
    $SUDO rm -f "$MUNGE_MARK"
  fi
}
