#!/usr/bin/env bash
# Local single-node Apache Kafka (KRaft, broker+controller) on 127.0.0.1, started with java.
#   deploy/kafka/kafka.sh up      fetch jars (cached in deploy/kafka/.jars), format storage, start, wait until ready
#   deploy/kafka/kafka.sh down    stop it cleanly (SIGTERM, then wait)
#   deploy/kafka/kafka.sh status  exit 0 when the broker answers
# Environment: KAFKA_PORT (default 19092), KAFKA_CONTROLLER_PORT (default 19093),
#              KAFKA_DATA_DIR (default deploy/kafka/.data), KAFKA_HEAP (default 512m),
#              KAFKA_JVM_OPTS (default -XX:+UseG1GC), KAFKA_PROPS_EXTRA (lines added to
#              server.properties, e.g. "num.io.threads=2").
#              down and status act on the broker of that KAFKA_DATA_DIR (its pid file and log;
#              status also probes KAFKA_PORT), so pass them the same values as up.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
jars="$here/.jars"
port="${KAFKA_PORT:-19092}"
cport="${KAFKA_CONTROLLER_PORT:-19093}"
data="${KAFKA_DATA_DIR:-$here/.data}"
pidfile="$data/kafka.pid"
log="$data/kafka.log"

fetch() {
  if [ ! -f "$jars/.complete" ]; then
    echo "kafka: fetching broker jars from Maven Central into $jars" >&2
    rm -rf "$jars"
    mvn -q -B -Dstyle.color=never -f "$here/pom.xml" dependency:copy-dependencies \
      -DoutputDirectory="$jars" -DincludeScope=runtime >&2
    touch "$jars/.complete"
  fi
}

ready() {
  # The broker is ready when it accepts TCP connections on its listener and has written its
  # "started" line; the Python side then checks metadata with aiokafka.
  (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && grep -q "Kafka Server started" "$log" 2>/dev/null
}

up() {
  fetch
  mkdir -p "$data"
  if [ -f "$pidfile" ] && kill -0 "$(cat "$pidfile")" 2>/dev/null && ready; then
    echo "kafka: already running on 127.0.0.1:$port (pid $(cat "$pidfile"))"; return 0
  fi
  props="$data/server.properties"
  cat > "$props" <<PROPS
process.roles=broker,controller
node.id=1
controller.quorum.bootstrap.servers=127.0.0.1:$cport
listeners=PLAINTEXT://127.0.0.1:$port,CONTROLLER://127.0.0.1:$cport
advertised.listeners=PLAINTEXT://127.0.0.1:$port
controller.listener.names=CONTROLLER
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
log.dirs=$data/logs
num.partitions=8
offsets.topic.replication.factor=1
offsets.topic.num.partitions=8
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
group.initial.rebalance.delay.ms=0
transaction.abort.timed.out.transaction.cleanup.interval.ms=2000
auto.create.topics.enable=true
log.retention.hours=-1
${KAFKA_PROPS_EXTRA:-}
PROPS
  cp="$jars/*"
  if [ ! -f "$data/logs/meta.properties" ]; then
    java -cp "$cp" kafka.tools.StorageTool format --standalone \
      -t "$(java -cp "$cp" kafka.tools.StorageTool random-uuid)" -c "$props" >"$data/format.log" 2>&1 \
      || { cat "$data/format.log" >&2; exit 1; }
  fi
  : > "$log"
  # shellcheck disable=SC2086  # KAFKA_JVM_OPTS: several options, split on purpose
  nohup java -Xms256m -Xmx"${KAFKA_HEAP:-512m}" ${KAFKA_JVM_OPTS:--XX:+UseG1GC} -Djava.awt.headless=true \
    -cp "$cp" kafka.Kafka "$props" >>"$log" 2>&1 &
  echo $! > "$pidfile"
  for _ in $(seq 1 120); do
    if ready; then echo "kafka: ready on 127.0.0.1:$port (pid $(cat "$pidfile"))"; return 0; fi
    kill -0 "$(cat "$pidfile")" 2>/dev/null || { echo "kafka: broker exited; log:" >&2; tail -40 "$log" >&2; exit 1; }
    sleep 0.5
  done
  echo "kafka: not ready after 60 s; log:" >&2; tail -40 "$log" >&2; exit 1
}

down() {
  if [ -f "$pidfile" ]; then
    pid="$(cat "$pidfile")"
    if kill -0 "$pid" 2>/dev/null; then
      kill -TERM "$pid"
      for _ in $(seq 1 60); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
      kill -0 "$pid" 2>/dev/null && kill -KILL "$pid"
    fi
    rm -f "$pidfile"
    echo "kafka: stopped"
  else
    echo "kafka: not running"
  fi
}

case "${1:-}" in
  up) up ;;
  down) down ;;
  status) ready ;;
  fetch) fetch ;;
  *) echo "usage: $0 up|down|status|fetch" >&2; exit 2 ;;
esac
