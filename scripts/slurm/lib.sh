# Shared by scripts/slurm/local-cluster and scripts/cluster/slurm (sourced):
# Slurm's packages and munge, the one authentication daemon every Slurm
# daemon on this machine uses (its socket is a file, seen from every network
# namespace).

# Installs slurm-wlm and munge where they are missing.
slurm_install() {
  dpkg-query -W -f='${Status}' slurm-wlm 2>/dev/null | grep -q "install ok installed" ||
    { $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends slurm-wlm munge; }
}

# Starts munged (with a key made on first use) unless it runs.
munge_start() {
  $SUDO mkdir -p /etc/munge /var/lib/munge /var/log/munge /run/munge
  [[ -f /etc/munge/munge.key ]] || $SUDO mungekey -c
  $SUDO chown -R munge:munge /etc/munge /var/lib/munge /var/log/munge /run/munge
  pgrep -x munged -r R,S,D > /dev/null || $SUDO su -s /bin/sh munge -c /usr/sbin/munged
}

# Stops munged once no Slurm daemon is left to use it (the local cluster's
# and every emulated cluster's share it; one that has exited and waits to
# be reaped is not left).
munge_stop_if_unused() {
  local live=R,S,D
  pgrep -x slurmd -r $live > /dev/null || pgrep -x slurmctld -r $live > /dev/null || $SUDO pkill -x munged || return 0
  for _ in $(seq 50); do pgrep -x munged -r $live > /dev/null || break; sleep 0.1; done
}
