#!/usr/bin/env bash
# A single-node Slurm cluster on this machine, for testing grids end to end (Debian 12, as root).
#
#   slurm/local_cluster.sh up      # install (if needed), configure and start; prints `export SLURM_CONF=...`
#   slurm/local_cluster.sh down    # cancel jobs, stop every daemon
#   slurm/local_cluster.sh status
#
# Layout: everything lives under $HAM_SLURM_DIR (default /tmp/ham-slurm): slurm.conf,
# slurmdbd.conf, spool and state folders, logs. Clients find it through SLURM_CONF.
# Accounting (slurmdbd + a local MariaDB) is on: without it submitit cannot see the state of a
# job that was killed and would wait for it forever.
set -euo pipefail

DIR=${HAM_SLURM_DIR:-/tmp/ham-slurm}
CLUSTER=${HAM_SLURM_CLUSTER:-hamtest}
export SLURM_CONF=$DIR/slurm.conf

log() { printf '[local_cluster] %s\n' "$*" >&2; }

need_root() {
  if [ "$(id -u)" != 0 ]; then
    log "must run as root (it starts munged, mariadb and the slurm daemons)"; exit 1
  fi
}

install_packages() {
  local missing=()
  for cmd in slurmctld slurmd slurmdbd sbatch munged mariadbd; do
    command -v "$cmd" >/dev/null 2>&1 || missing+=("$cmd")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    log "installing slurm, munge and mariadb (missing: ${missing[*]})"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq slurmctld slurmd slurm-client munge \
      slurmdbd mariadb-server >/dev/null
  fi
}

wait_for() {  # wait_for SECONDS DESCRIPTION COMMAND...
  local secs=$1 what=$2; shift 2
  for _ in $(seq "$((secs * 5))"); do
    if "$@" >/dev/null 2>&1; then return 0; fi
    sleep 0.2
  done
  log "timed out waiting for $what"; return 1
}

start_munge() {
  mkdir -p /etc/munge /run/munge /var/log/munge /var/lib/munge
  if [ ! -s /etc/munge/munge.key ]; then
    dd if=/dev/urandom bs=1 count=1024 of=/etc/munge/munge.key status=none
  fi
  chown -R munge:munge /etc/munge /run/munge /var/log/munge /var/lib/munge
  chmod 0700 /etc/munge; chmod 0400 /etc/munge/munge.key
  if ! pgrep -x munged >/dev/null; then
    runuser -u munge -- /usr/sbin/munged --force
  fi
  wait_for 10 munged sh -c 'munge -n | unmunge'
}

start_mariadb() {
  mkdir -p /run/mysqld && chown mysql:mysql /run/mysqld
  if ! pgrep -x mariadbd >/dev/null; then
    [ -d /var/lib/mysql/mysql ] || mariadb-install-db --user=mysql >/dev/null 2>&1
    (mariadbd --user=mysql --skip-networking=0 --bind-address=127.0.0.1 >"$DIR/log/mariadb.log" 2>&1 &)
  fi
  wait_for 30 mariadb mariadb -e 'select 1'
  # a fresh accounting database: job ids restart with a new cluster, and records of an earlier
  # cluster's job 1 must never be mistaken for this one's
  pgrep -x slurmdbd >/dev/null || mariadb -e "DROP DATABASE IF EXISTS slurm_acct_db;"
  mariadb -e "CREATE DATABASE IF NOT EXISTS slurm_acct_db;
              CREATE USER IF NOT EXISTS 'slurm'@'localhost' IDENTIFIED BY 'slurm';
              GRANT ALL ON slurm_acct_db.* TO 'slurm'@'localhost'; FLUSH PRIVILEGES;"
}

write_configs() {
  local node host
  host=$(hostname -s)
  node=$(slurmd -C | head -1 | sed "s/^NodeName=[^ ]*/NodeName=$host/")
  cat >"$DIR/slurm.conf" <<EOF
ClusterName=$CLUSTER
SlurmctldHost=$host
SlurmUser=root
AuthType=auth/munge
StateSaveLocation=$DIR/state
SlurmdSpoolDir=$DIR/spool
SlurmctldPidFile=$DIR/slurmctld.pid
SlurmdPidFile=$DIR/slurmd.pid
SlurmctldLogFile=$DIR/log/slurmctld.log
SlurmdLogFile=$DIR/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=localhost
JobCompType=jobcomp/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
JobRequeue=1
MinJobAge=300
SlurmctldTimeout=30
SlurmdTimeout=30
InactiveLimit=0
KillWait=5
$node State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP OverSubscribe=NO
EOF
  cat >"$DIR/slurmdbd.conf" <<EOF
AuthType=auth/munge
DbdHost=localhost
SlurmUser=root
PidFile=$DIR/slurmdbd.pid
LogFile=$DIR/log/slurmdbd.log
StorageType=accounting_storage/mysql
StorageHost=localhost
StorageUser=slurm
StoragePass=slurm
StorageLoc=slurm_acct_db
EOF
  chmod 600 "$DIR/slurmdbd.conf"
}

up() {
  need_root
  install_packages
  pgrep -x slurmctld >/dev/null || rm -rf "$DIR/state" "$DIR/spool"
  mkdir -p "$DIR"/{state,spool,log}
  write_configs
  start_munge
  start_mariadb
  pgrep -x slurmdbd >/dev/null || slurmdbd
  wait_for 30 slurmdbd sacctmgr -i show cluster
  sacctmgr -i add cluster "$CLUSTER" >/dev/null 2>&1 || true
  pgrep -x slurmctld >/dev/null || slurmctld
  wait_for 30 slurmctld scontrol ping
  pgrep -x slurmd >/dev/null || slurmd
  wait_for 60 "an idle node" sh -c 'sinfo -h -o %T | grep -q idle'
  log "up: $(sinfo -h -o '%P %D %T %c cpus')"
  echo "export SLURM_CONF=$SLURM_CONF"
}

down() {
  need_root
  if pgrep -x slurmctld >/dev/null; then scancel --full --quiet --user=root 2>/dev/null || true; fi
  for daemon in slurmd slurmctld slurmdbd; do pkill -x "$daemon" 2>/dev/null || true; done
  if ! wait_for 15 "the slurm daemons to stop" sh -c '! pgrep -x "slurmd|slurmctld|slurmdbd"'; then
    log "killing what is left"
    pkill -9 -x "slurmd|slurmctld|slurmdbd|slurmstepd" 2>/dev/null || true
  fi
  mariadb-admin shutdown 2>/dev/null || pkill -x mariadbd 2>/dev/null || true
  pkill -x munged 2>/dev/null || true
  wait_for 10 "munged to stop" sh -c '! pgrep -x munged' || pkill -9 -x munged || true
  rm -rf "$DIR/state" "$DIR/spool"
  log "down"
}

status() {
  sinfo 2>/dev/null && squeue 2>/dev/null || { log "not running"; return 1; }
}

case "${1:-}" in
  up) up ;;
  down) down ;;
  status) status ;;
  *) echo "usage: $0 up|down|status" >&2; exit 2 ;;
esac
